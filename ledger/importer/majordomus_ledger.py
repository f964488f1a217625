"""majordomus `ledger.jsonl` (and its `.archived` rotations) through the shared line importer.

Where the files are (`sources`), and each line as an `MjLedgerLine` row (`store_lines`, which
LedgerConfig.ready registers with introspect's line importer, importer/stores.py): the event name
is the FIRST `event` key (§7.1).
"""

from __future__ import annotations

import json
from pathlib import Path

from introspect.importer import secret_rows, stores
from introspect.importer.discovery import Source
from introspect.rules.timestamps import utc_second
from ledger.models import MjLedgerLine
from lib import bulk, column_fit, safefs


def sources(repos: list[Path], problems: list[safefs.Problem] | None = None) -> list[Source]:
    """Archives first (oldest name first), then the live ledger, per repository; each file read
    inside its repository only (lib/safefs.py), what is refused put in `problems`."""
    problems = [] if problems is None else problems
    found = []
    for repo in repos:
        state = repo / ".ai" / "local" / "state"
        if not safefs.is_dir(state):
            continue
        archives, live = [], False
        for entry in safefs.entries(repo, state, problems, want=ledger_name):
            if entry.kind != "file":
                continue
            if entry.name == "ledger.jsonl":
                live = True
            elif ledger_name(entry.name):
                archives.append(entry.name)
        names = sorted(archives) + (["ledger.jsonl"] if live else [])
        found += [
            Source("mj_ledger", state, name, rank, confine_to=str(repo)) for rank, name in enumerate(names)
        ]
    return found


def ledger_name(name: str) -> bool:
    """Whether a file name is a majordomus ledger: the live one or an archived rotation."""
    return name == "ledger.jsonl" or (name.startswith("ledger.") and name.endswith(".jsonl.archived"))


def store_lines(row, lines: stores.NewLines, sessions: set[str]) -> list[MjLedgerLine]:
    """Rows for new lines; a line already stored (a rotation re-wrote it) is a duplicate (fault case 35)."""
    candidates, shas, outcomes = lines.candidates, lines.shas, lines.outcomes
    known = set(bulk.chunked_in(MjLedgerLine.objects.values_list("sha256", flat=True), "sha256", set(shas)))
    repo = str(Path(row.root).parent.parent.parent)
    fresh: dict[str, MjLedgerLine] = {}
    for (line, record), sha in zip(candidates, shas, strict=True):
        if sha in known or sha in fresh:
            continue
        fresh[sha] = mj_ledger_row(row, line, record, sha, repo)
        outcomes[(line.offset, line.index)] = "imported"
    return list(fresh.values())


def first_event_key(pairs: list[tuple[str, object]]) -> dict:
    """object_pairs_hook for majordomus lines: keep the FIRST `event`, the second as provider_event."""
    out: dict = {}
    for key, value in pairs:
        if key == "event" and "event" in out:
            out.setdefault("provider_event", value)
            continue
        out[key] = value
    return out


def parse_mj_line(data: bytes) -> dict | None:
    """A ledger line as a dict with the first `event` key kept; None if it is not a JSON object."""
    try:
        obj = json.loads(data.decode("utf-8"), object_pairs_hook=first_event_key)
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    return obj if isinstance(obj, dict) else None


def mj_ledger_row(source, line, record, sha: str, repo: str) -> MjLedgerLine:
    """The `MjLedgerLine` row of one line, values too long for their column flagged."""
    obj = parse_mj_line(record.data) or record.obj
    ts = obj.get("ts") if isinstance(obj.get("ts"), str) else ""
    payload = {k: v for k, v in obj.items() if k not in ("ts", "event", "head", "branch", "by", "session")}
    typed = {
        "ts_raw": ts,
        "event": str(obj.get("event") or ""),
        "provider_event": str(obj.get("provider_event") or ""),
        "episode": str(obj.get("session") or obj.get("episode") or ""),
        "provider_session": str(obj.get("provider_session") or ""),
    }
    flags = column_fit.fit(MjLedgerLine, typed)
    scan = secret_rows.DocumentScan()  # masked in team mode (a line's texts are not listed as findings)
    return MjLedgerLine(
        source=source,
        offset=line.offset,
        index=line.index,
        sha256=sha,
        repo=repo,
        ts=utc_second(typed["ts_raw"]),
        payload=scan.value(json.loads(json.dumps(payload, default=str))),
        raw=scan.text(record.data.decode("utf-8", "replace")),
        flags=flags,
        **typed,
    )
