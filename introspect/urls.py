"""Introspection routes. Ids are data: `<id:…>` and `<wayid:…>` carry any id (lib/converters.py)."""

from django.urls import path

from introspect import api, search_views, views, way_views
from lib import converters

app_name = "introspect"
urlpatterns = [
    path("", views.session_list, name="session-list"),
    path("sessions/<id:session_id>/", views.session_detail, name="session-detail"),
    path("sessions/<id:session_id>/events/", views.session_events, name="session-events"),
    path("sessions/<id:session_id>/agents/<id:agent_id>/", views.subagent_detail, name="subagent-detail"),
    path("status/", views.import_status, name="import-status"),
    path("search/", search_views.search, name="search"),
    path("ways/", way_views.way_list, name="way-list"),
    path("ways/<wayid:way_id>/", way_views.way_detail, name="way-detail"),
    path("api/sessions/", api.session_list, name="api-session-list"),
    path("api/sessions/<id:session_id>/dump.json", api.session_dump, name="api-session-dump"),
    path("api/sessions/<id:session_id>/replay.json", api.session_replay, name="api-session-replay"),
    path("api/sessions/<id:session_id>/fires.json", api.session_fires, name="api-session-fires"),
]
