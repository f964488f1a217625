"""Ledger routes: `<thing>-<role>` names; a ledger folder is data (`<ledgerslug:…>`, lib/converters.py)."""

from django.urls import path

from ledger.views import knowledge, memory, questions, records, stream
from lib import converters  # noqa: F401 - registers <ledgerslug:…> (imported for its side effect)

app_name = "ledger"
urlpatterns = [
    path("", stream.ledger_index, name="ledger-index"),
    path("knowledge/", knowledge.candidate_list, name="candidate-list"),
    path("knowledge/bulk/", knowledge.candidate_bulk, name="candidate-bulk"),
    path("knowledge/audit/", knowledge.audit_list, name="audit-list"),
    path("knowledge/count/", knowledge.knowledge_count, name="knowledge-count"),
    path("knowledge/<int:pk>/", knowledge.candidate_detail, name="candidate-detail"),
    path("knowledge/<int:pk>/promote/", knowledge.candidate_promote, name="candidate-promote"),
    path("knowledge/<int:pk>/reject/", knowledge.candidate_reject, name="candidate-reject"),
    path("knowledge/<int:pk>/edit/", knowledge.candidate_edit, name="candidate-edit"),
    path("knowledge/<int:pk>/merge/", knowledge.candidate_merge, name="candidate-merge"),
    path("knowledge/<int:pk>/adr/", knowledge.record_from_knowledge, name="record-from-knowledge"),
    path("decisions/", records.record_list, name="record-list"),
    path("decisions/<int:pk>/", records.record_detail, name="record-detail"),
    path("decisions/<int:pk>/status/", records.record_status, name="record-status"),
    path("decisions/<int:pk>/rule/", records.record_rule, name="record-rule"),
    path("decisions/<int:pk>/resolve/", records.record_resolve, name="record-resolve"),
    path("decisions/backlog/", questions.decision_backlog, name="decision-backlog"),
    path("decisions/backlog/count/", questions.backlog_count, name="backlog-count"),
    path("memory/", memory.memory_index, name="memory-index"),
    path("memory/<int:pk>/promote/", memory.memory_promote, name="memory-promote"),
    path("memory/<int:pk>/wrong/", memory.memory_mark_wrong, name="memory-mark-wrong"),
    path("memory/<ledgerslug:slug>/", memory.memory_project, name="memory-project"),
    # Last: a folder named like a route above is encoded, never shadowed (converters.LedgerSlugConverter).
    path("<ledgerslug:slug>/", stream.ledger_stream, name="ledger-stream"),
]
