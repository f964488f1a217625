"""Ledger entries and knowledge records as documents: front matter + body. No Django.

A document that does not check out is returned with a quarantine reason, never guessed at
(knowledge-and-records.md §2.4, §4.1).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, date, datetime

from lib import frontmatter
from lib.hashing import sha256

MAX_DOCUMENT_BYTES = 1 << 20
ENTRY_NAME = re.compile(r"^(\d{4}-\d{2}-\d{2})T(\d{2})(\d{2})Z_e(\d+)\.md$")
PHASES = ("orientation", "progress", "consolidation", "handoff", "resume")
KNOWLEDGE_KEYS = ("schema", "id", "kind", "class", "title", "description", "status", "epistemics", "date",
                  "tags", "superseded_by", "provenance", "relations", "about", "route")
CLASSES = ("fact", "convention", "constraint", "memory", "lesson")
STATUSES = ("candidate", "verified", "superseded")
EPISTEMICS = ("observed", "inferred", "decided")
RECORD_ID = re.compile(r"^[a-z][a-z0-9-]*$")
# §4.1 transcript guard: a record is an assertion, never a transcript.
TRANSCRIPT_LINE = re.compile(r"^\s*(transcript|messages|assistant|completion|response)[: ]", re.I)


@dataclass(frozen=True)
class Entry:
    session: str = ""
    transcript: str = ""
    epoch: int | None = None
    context_pct: int | None = None
    timestamp: str = ""
    ts: datetime | None = None
    phase: str = ""
    body: str = ""
    quarantine: tuple[str, str] | None = None


def parse_timestamp(value: object) -> datetime | None:
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    if not isinstance(value, str):
        return None
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def as_int(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value.strip())
    return None


def split_document(raw: bytes) -> tuple[dict | None, str, tuple[str, str] | None]:
    """(front matter, body, quarantine) of a Markdown document."""
    if len(raw) > MAX_DOCUMENT_BYTES:
        return None, "", ("document_too_large", f"{len(raw)} bytes")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, "", ("invalid_utf8", str(exc))
    block, body = frontmatter.split(text)
    if block is None:
        return None, text, ("frontmatter_missing", "the first line is not ---")
    try:
        data = frontmatter.load(block)
    except ValueError as exc:
        reason = "yaml_too_large" if "larger than" in str(exc) else "yaml_invalid"
        return None, body, (reason, str(exc))
    if not isinstance(data, dict):
        return None, body, ("yaml_invalid", "front matter is not a mapping")
    return data, body, None


def parse_entry(raw: bytes) -> Entry:
    """An ADR-112 ledger entry (§2.2); malformed front matter is quarantined with its reason."""
    data, body, problem = split_document(raw)
    if problem is not None:
        return Entry(body=body, quarantine=problem)
    session = data.get("session")
    if not isinstance(session, str) or not session:
        return Entry(body=body, quarantine=("yaml_invalid", "no session in the front matter"))
    timestamp = data.get("timestamp")
    return Entry(
        session=session, transcript=str(data.get("transcript") or ""), epoch=as_int(data.get("epoch")),
        context_pct=as_int(data.get("context_pct")), timestamp=str(timestamp or ""),
        ts=parse_timestamp(timestamp), phase=str(data.get("phase") or ""), body=body.strip("\n"),
    )


def name_epoch(name: str) -> int | None:
    match = ENTRY_NAME.match(name)
    return int(match.group(4)) if match else None


@dataclass(frozen=True)
class Knowledge:
    data: dict = field(default_factory=dict)
    body: str = ""
    problems: tuple[str, ...] = ()
    quarantine: tuple[str, str] | None = None

    def get(self, key: str, default=""):
        value = self.data.get(key, default)
        return default if value is None else value


def parse_knowledge(raw: bytes, *, stem: str) -> Knowledge:
    """A `knowledge/v1` record; schema problems are listed (`knowledge check`), not fatal."""
    data, body, problem = split_document(raw)
    if problem is not None:
        return Knowledge(body=body, quarantine=problem)
    problems = []
    if data.get("schema") != "knowledge/v1":
        problems.append(f"schema is {data.get('schema')!r}, not knowledge/v1")
    unknown = [key for key in data if key not in KNOWLEDGE_KEYS]
    if unknown:
        problems.append(f"unknown keys: {', '.join(map(str, unknown))}")
    if data.get("id") != stem:
        problems.append(f"id {data.get('id')!r} is not the file name {stem!r}")
    elif not RECORD_ID.match(str(stem)):
        problems.append("id is not a lowercase slug")
    if data.get("class") not in CLASSES:
        problems.append(f"class {data.get('class')!r} is not one of {', '.join(CLASSES)}")
    if data.get("status") not in STATUSES:
        problems.append(f"status {data.get('status')!r} is not one of {', '.join(STATUSES)}")
    for key in ("title", "description"):
        if TRANSCRIPT_LINE.match(str(data.get(key) or "")):
            problems.append(f"{key} reads like a transcript")
    if isinstance(data.get("date"), date):
        data["date"] = data["date"].isoformat()
    return Knowledge(data=data, body=body.strip("\n"), problems=tuple(problems))


def transcript_like(text: str) -> bool:
    return any(TRANSCRIPT_LINE.match(line) for line in text.splitlines())


def render_knowledge(data: dict, body: str) -> bytes:
    """A knowledge/v1 file: front matter in the §4.1 key order, then the body."""
    import yaml

    ordered = {key: data[key] for key in KNOWLEDGE_KEYS if key in data and data[key] not in (None, "", [])}
    head = yaml.safe_dump(ordered, sort_keys=False, allow_unicode=True, width=1000)
    return f"---\n{head}---\n\n{body.strip()}\n".encode()
