"""A session exported as a download: self-contained HTML, Markdown or JSON."""

from __future__ import annotations

from django.http import Http404, HttpRequest, StreamingHttpResponse
from django.shortcuts import get_object_or_404
from django.utils.http import content_disposition_header
from django.views.decorators.http import require_safe

from introspect.documents import export_formats
from introspect.models import Session
from introspect.queries import export as queries


@require_safe
def session_export(request: HttpRequest, session_id: str, fmt: str) -> StreamingHttpResponse:
    if fmt not in export_formats.FORMATS:
        raise Http404("no such export format")
    session = get_object_or_404(Session.objects.select_related("project", "transcript"), sid=session_id)
    # Streamed: the conversation is read and rendered a chunk at a time as the download goes.
    response = StreamingHttpResponse(
        export_formats.export_parts(
            fmt, session, queries.export_chunks(session), queries.subagent_runs(session)
        ),
        content_type=export_formats.FORMATS[fmt].media_type,
    )
    response["Content-Disposition"] = content_disposition_header(
        True, export_formats.export_filename(session, fmt)
    )
    return response
