from django.urls import path

from ledger import views

app_name = "ledger"
urlpatterns = [
    path("", views.ledger_index, name="ledger-index"),
    path("knowledge/", views.candidate_list, name="candidate-list"),
    path("knowledge/bulk/", views.candidate_bulk, name="candidate-bulk"),
    path("knowledge/audit/", views.audit, name="audit"),
    path("knowledge/<int:pk>/", views.candidate_detail, name="candidate-detail"),
    path("knowledge/<int:pk>/promote/", views.candidate_promote, name="candidate-promote"),
    path("knowledge/<int:pk>/reject/", views.candidate_reject, name="candidate-reject"),
    path("knowledge/<int:pk>/edit/", views.candidate_edit, name="candidate-edit"),
    path("knowledge/<int:pk>/merge/", views.candidate_merge, name="candidate-merge"),
    path("<str:slug>/", views.ledger_stream, name="ledger-stream"),
]
