"""JSON endpoints for scripts and agents: the same documents `manage.py introspect` prints."""

from __future__ import annotations

import orjson
from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import require_safe

from introspect.documents import build as documents
from introspect.rules import secrets
from lib.params import flag, float_param, int_param


def json_response(document: dict) -> HttpResponse:
    # Error documents are answers, not failures (upstream exits 0): 200 with the `error` key,
    # except an unknown named session, which is a plain 404 for HTTP clients.
    status = 404 if document.get("error") == "no events for session" else 200
    # Masked as a whole, as `manage.py introspect` prints it: events and prompts may hold secrets.
    return HttpResponse(
        secrets.mask_line(orjson.dumps(document)), content_type="application/json", status=status
    )


@require_safe
def api_session_list(request: HttpRequest) -> HttpResponse:
    project = request.GET.get("project") or None
    return json_response(
        documents.list_document(project=project, with_transcripts=flag(request, "with_transcripts"))
    )


@require_safe
def api_session_dump(request: HttpRequest, session_id: str) -> HttpResponse:
    return json_response(documents.dump_document(session_id, matched=flag(request, "matched")))


@require_safe
def api_session_replay(request: HttpRequest, session_id: str) -> HttpResponse:
    # `?window=N`: only that compaction window's frames (the session page's replay panel loads
    # one window at a time); without it, the whole document `manage.py introspect replay` prints.
    window = int_param(request, "window", low=1)
    if window is not None:
        return json_response(
            documents.replay_window_document(session_id, matched=flag(request, "matched"), window=window)
        )
    return json_response(documents.replay_document(session_id, matched=flag(request, "matched")))


@require_safe
def api_session_fires(request: HttpRequest, session_id: str) -> HttpResponse:
    limit = int_param(request, "limit")
    return json_response(
        documents.fires_document(
            session_id,
            matched=flag(request, "matched"),
            max_score=float_param(request, "max_score"),
            limit=limit if limit is None or limit >= 0 else None,
        )
    )
