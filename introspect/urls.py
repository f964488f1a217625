"""Introspection routes. Ids are data: `<id:…>` and `<wayid:…>` carry any id (lib/converters.py)."""

from django.urls import path

from introspect.views import (
    api,
    effectiveness,
    exports,
    labels,
    proposals,
    search,
    secrets,
    session_live,
    sessions,
    status,
    ways,
)

app_name = "introspect"
urlpatterns = [
    path("", sessions.session_list, name="session-list"),
    path("sessions/<id:session_id>/", sessions.session_detail, name="session-detail"),
    path("sessions/<id:session_id>/live/turns/", session_live.session_turns_live, name="session-turns-live"),
    path(
        "sessions/<id:session_id>/live/conversation/",
        session_live.session_conversation_live,
        name="session-conversation-live",
    ),
    path("sessions/<id:session_id>/seen/", sessions.session_seen, name="session-seen"),
    path("sessions/<id:session_id>/events/", sessions.session_events, name="session-events"),
    path("sessions/<id:session_id>/agents/<id:agent_id>/", sessions.subagent_detail, name="subagent-detail"),
    path(
        "sessions/<id:session_id>/entries/<int:entry_id>/code/<slug:slot>/",
        sessions.entry_code,
        name="entry-code",
    ),
    path("status/", status.import_status, name="import-status"),
    path("search/", search.search_results, name="search-results"),
    path("secrets/", secrets.secrets_list, name="secrets"),
    path("secrets/<int:finding_id>/reveal/", secrets.secret_reveal, name="secret-reveal"),
    path("secrets/<int:finding_id>/not-a-secret/", secrets.secret_not_a_secret, name="secret-not-a-secret"),
    path("ways/", ways.way_list, name="way-list"),
    # Before the way page: "effectiveness" would otherwise be read as a way id.
    path("ways/effectiveness/", effectiveness.effectiveness_page, name="way-effectiveness"),
    path("ways/labels/", labels.way_labels, name="way-labels"),
    path("ways/labels/label/", labels.way_label, name="way-label"),
    path("ways/labels/clear/", labels.way_label_delete, name="way-label-delete"),
    path("ways/labels/export.jsonl", labels.way_labels_export, name="way-labels-export"),
    # Before the way page, whose id matches any path: a way id ending `apply/refire` would be shadowed.
    path("ways/<wayid:way_id>/apply/refire/", proposals.apply_refire, name="way-apply-refire"),
    path("ways/<wayid:way_id>/apply/toggle/", proposals.apply_toggle, name="way-apply-toggle"),
    path("ways/<wayid:way_id>/", ways.way_detail, name="way-detail"),
    path("api/sessions/", api.api_session_list, name="api-session-list"),
    path("api/sessions/<id:session_id>/dump.json", api.api_session_dump, name="api-session-dump"),
    path("api/sessions/<id:session_id>/replay.json", api.api_session_replay, name="api-session-replay"),
    path("api/sessions/<id:session_id>/fires.json", api.api_session_fires, name="api-session-fires"),
    path("sessions/<id:session_id>/export.<str:fmt>", exports.session_export, name="session-export"),
]
