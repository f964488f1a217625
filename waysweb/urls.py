from django.contrib.auth import views as auth_views
from django.urls import include, path

from waysweb import views

urlpatterns = [
    path("", include("introspect.urls")),
    path("ledger/", include("ledger.urls")),
    path(
        "accounts/login/", auth_views.LoginView.as_view(template_name="registration/login.html"), name="login"
    ),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("import-progress/", views.import_progress, name="import-progress"),
    path("importer-alert/", views.importer_alert, name="importer-alert"),
    path("palette.json", views.palette, name="palette"),
]
