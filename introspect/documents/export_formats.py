"""The three export formats of a session: each one's media type, file name and builder.

The view (views/exports.py) and `manage.py export` both go through `export_parts`, so a file
downloaded from the session page and one written by the command are the same bytes (but for
the HTML's "exported at" line).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass

from django.utils.text import slugify

from introspect.documents import export_html, export_json, export_markdown
from introspect.documents.export_runs import SubagentRun
from introspect.models import Session
from introspect.rules import secrets

# The session's chunks of spine items (queries.export.export_chunks) and its subagent runs
# (queries.export.subagent_runs), which every format puts in an appendix after the conversation.
Builder = Callable[[Session, Iterable[list], Sequence[SubagentRun]], Iterator[bytes]]


@dataclass(frozen=True)
class Format:
    extension: str
    media_type: str
    build: Builder


def _text(builder) -> Builder:
    return lambda session, chunks, runs: (part.encode("utf-8") for part in builder(session, chunks, runs))


def _one_part(session: Session, chunks: Iterable[list], runs: Sequence[SubagentRun]) -> Iterator[bytes]:
    # One validated document: built whole (pydantic checks it all), then written.
    yield export_json.json_export(session, chunks, runs)


FORMATS = {
    "html": Format("html", "text/html; charset=utf-8", _text(export_html.html_export)),
    "md": Format("md", "text/markdown; charset=utf-8", _text(export_markdown.markdown_export)),
    "json": Format("json", "application/json", _one_part),
}


def export_parts(
    fmt: str, session: Session, chunks: Iterable[list], runs: Sequence[SubagentRun] = ()
) -> Iterator[bytes]:
    """The document of `session` in format `fmt` (a key of FORMATS), as bytes to write in order.

    Every part is masked once more as written (rules/secrets.mask_line): the entries were masked
    when prepared (queries/secret_masks.py); this catches what reaches an export by another road (a
    title, a fire turn's prompt, a subagent's description). No export ever holds a revealed value."""
    return (secrets.mask_line(part) for part in FORMATS[fmt].build(session, chunks, runs))


def export_filename(session: Session, fmt: str) -> str:
    """`session-<id>.<ext>`: ids are data (any characters), so only a slug of one goes in a name."""
    stem = slugify(session.sid)[:100] or "export"
    return f"session-{stem}.{FORMATS[fmt].extension}"
