"""JSON endpoints for scripts and agents: the same documents `manage.py introspect` prints."""

from __future__ import annotations

import orjson
from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import require_GET

from introspect import documents


def json_response(document: dict) -> HttpResponse:
    # Error documents are answers, not failures (upstream exits 0): 200 with the `error` key,
    # except an unknown named session, which is a plain 404 for HTTP clients.
    status = 404 if document.get("error") == "no events for session" else 200
    return HttpResponse(orjson.dumps(document), content_type="application/json", status=status)


def flag(request: HttpRequest, name: str) -> bool:
    return request.GET.get(name, "").lower() in {"1", "true", "yes"}


def number(request: HttpRequest, name: str, kind: type) -> float | int | None:
    raw = request.GET.get(name, "")
    try:
        return kind(raw) if raw else None
    except ValueError:
        return None


@require_GET
def session_list(request: HttpRequest) -> HttpResponse:
    project = request.GET.get("project") or None
    return json_response(documents.list_document(project=project, with_transcripts=flag(request, "with_transcripts")))


@require_GET
def session_dump(request: HttpRequest, session_id: str) -> HttpResponse:
    return json_response(documents.dump_document(session_id, matched=flag(request, "matched")))


@require_GET
def session_replay(request: HttpRequest, session_id: str) -> HttpResponse:
    return json_response(documents.replay_document(session_id, matched=flag(request, "matched")))


@require_GET
def session_fires(request: HttpRequest, session_id: str) -> HttpResponse:
    limit = number(request, "limit", int)
    return json_response(documents.fires_document(
        session_id, matched=flag(request, "matched"), max_score=number(request, "max_score", float),
        limit=limit if limit is None or limit >= 0 else None,
    ))
