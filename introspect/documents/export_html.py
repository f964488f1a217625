"""A session as one self-contained HTML file: readable from `file://` with the network off.

Styles are the dashboard's own stylesheets, inlined; no script, font or image is referenced, and
entries are drawn by the session page's card partial (partials/entry.html), so agent text goes
through the same sanitising filters (every character of a long text: `whole_texts`, where a
dashboard page draws the first two million). The document is produced part by part (`html_export`
yields strings), so a view can stream it and a command can write it as it goes.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from functools import cache

from django.contrib.staticfiles import finders
from django.template.loader import render_to_string
from django.utils import timezone
from django.utils.safestring import SafeString, mark_safe

from introspect.documents.export_runs import SubagentRun
from introspect.models import Session

TEMPLATE = "introspect/session_export.html"
STYLESHEETS = ("css/app.css", "css/ways.css", "css/cards.css", "css/pygments.css")
# The page's layout assumes the dashboard's header and nav; a file has neither.
EXPORT_CSS = "body.export main{max-width:72rem;margin:0 auto;padding:1rem}"


@cache
def inline_styles() -> SafeString:
    """The dashboard's stylesheets as one block (they are static files and never change under a
    running process). Marked safe: they are our files, not data, and hold no `</style`."""
    parts = []
    for name in STYLESHEETS:
        path = finders.find(name)
        if path:
            with open(path, encoding="utf-8") as fh:
                parts.append(fh.read())
    parts.append(EXPORT_CSS)
    return mark_safe("\n".join(parts).replace("</", "<\\/"))


def html_export(
    session: Session, chunks: Iterable[list], subagents: Sequence[SubagentRun] = ()
) -> Iterator[str]:
    """The HTML document of `session`, in parts: its head, then one part per chunk of spine items
    (queries.export.export_chunks), then an appendix with each subagent's conversation
    (queries.export.subagent_runs), then its end."""
    yield render_to_string(
        f"{TEMPLATE}#export-start",
        {
            "export_session": session,
            "styles": inline_styles(),
            "exported_at": timezone.now(),
            "runs": subagents,
        },
    )
    spawned = {run.agent.tool_use_id: run for run in subagents if run.agent.spawn_entry_id}
    for items in chunks:
        yield render_to_string(
            f"{TEMPLATE}#export-items",
            {
                "export_session": session,
                "items": items,
                "subagents": {},
                "spawned": spawned,
                "whole_texts": True,
            },
        )
    if subagents:
        yield render_to_string(f"{TEMPLATE}#export-appendix", {})
    for run in subagents:
        yield render_to_string(f"{TEMPLATE}#export-run", {"run": run})
        for chunk in run.chunks:
            yield render_to_string(
                f"{TEMPLATE}#export-run-entries",
                {"export_session": session, "entries": chunk, "subagents": {}, "whole_texts": True},
            )
    yield render_to_string(f"{TEMPLATE}#export-end", {})
