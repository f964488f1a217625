from django.urls import path

from ledger import views
from lib import converters

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
    path("knowledge/<int:pk>/adr/", views.record_from_knowledge, name="record-from-knowledge"),
    path("decisions/", views.record_list, name="record-list"),
    path("decisions/<int:pk>/", views.record_detail, name="record-detail"),
    path("decisions/<int:pk>/status/", views.record_status, name="record-status"),
    # Last: a folder named like a route above is encoded, never shadowed (converters.LedgerSlugConverter).
    path("<ledgerslug:slug>/", views.ledger_stream, name="ledger-stream"),
]
