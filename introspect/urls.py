from django.urls import path

from introspect import views

app_name = "introspect"
urlpatterns = [
    path("", views.session_list, name="session-list"),
    path("sessions/<str:session_id>/", views.session_detail, name="session-detail"),
    path("status/", views.import_status, name="import-status"),
]
