"""Spilled output: the full text behind a `<persisted-output>` stub (formats-claude-code.md §9.4).

The stub names a path; that path is data and never opened as given. Only its file name is used,
looked up in the `tool-results/` folder of the transcript's own session directory, which the
importer discovered under the configured Claude directory (importer-reliability.md §13.2).

Two steps, so that a SIGKILL, a full disk or an exception at any moment loses nothing:
- `place`: the loader writes a placeholder `Spill` (not found, due now) for every file a stub
  line names, in the transaction that stores the line and moves its checkpoint. A committed stub
  line always has its placeholders; a line rolled back has none and is read again.
- `read_due`: every pass looks for the placeholders that are due, outside any transaction (no
  file I/O in one). A look killed half-way is simply due again.

Bound on looking again: a file not found is looked for again 30 s later, then after twice as long
each time, up to once a day (`wait_after`), and at most `RETRIES_PER_PASS` of those per pass; only
while its transcript is still on disk (a file deleted by Claude Code's retention took its
`tool-results/` with it); `--ignore-checkpoints` looks for every one now. So a spill Claude Code
(or a sync) writes after its stub is found within about as long again as it was late, without
any new line in the transcript, and ten thousand spills that never come cost ten thousand opens a
day, never a stat of each on every poll.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path, PurePosixPath

from django.conf import settings
from django.db import connection
from django.db.models import F
from django.utils import timezone

from introspect.importer import secret_rows
from introspect.models import SourceFile, Spill, TranscriptEntry
from lib import bulk, safefs
from lib.hashing import sha256

MAX_SPILL_BYTES = 8 << 20
MARKER = "<persisted-output>"
STUB = re.compile(r"<persisted-output>.*?Full output saved to:\s*(\S+)", re.S)
SAFE_NAME = re.compile(r"^[A-Za-z0-9._-]+$")
FIRST_WAIT = timedelta(seconds=30)
LONGEST_WAIT = timedelta(days=1)
RETRIES_PER_PASS = 200


def named_spills(text: str) -> list[str]:
    """File names the stubs in `text` point at (only plain names survive)."""
    names = []
    for path in STUB.findall(text or ""):
        name = PurePosixPath(path).name
        if SAFE_NAME.match(name) and name not in names:
            names.append(name)
    return names


def spill_folder(kind: str, root: str, rel_path: str) -> Path | None:
    """`<projects>/<slug>/<session>/tool-results/` of a trunk file or of a subagent file under its
    session folder; None for other files (a legacy `agent-*.jsonl` beside the sessions has none)."""
    if kind == SourceFile.Kind.TRANSCRIPT:
        return (Path(root) / rel_path).with_suffix("") / "tool-results"
    parts = PurePosixPath(rel_path).parts
    if kind == SourceFile.Kind.SUBAGENT_TRANSCRIPT and len(parts) > 3 and parts[2] == "subagents":
        return Path(root, parts[0], parts[1], "tool-results")
    return None


def place(source: SourceFile, rows) -> None:
    """Placeholders for the spills the stub lines among `rows` name (just inserted into `source`;
    entry_rows.EntryRows, whose `texts` are the texts as read); runs inside the loader's batch transaction.

    An assistant line is never a stub, only the model quoting one (a test it writes, a transcript
    it reads). A placeholder already there (a replayed line) stays as it is.
    """
    at = {name: rows.names.index(name) for name in ("type", "offset", "index")}
    named: dict[tuple[int, int], list[str]] = {}
    for values, text in zip(rows.values, rows.texts, strict=True):  # the texts as read, not as stored
        if MARKER in text and values[at["type"]] != "assistant":
            names = named_spills(text)
            if names:
                named[(values[at["offset"]], values[at["index"]])] = names
    if not named:
        return
    lines = TranscriptEntry.objects.filter(source=source).values_list("offset", "index", "pk")
    due = timezone.now() if spill_folder(source.kind, source.root, source.rel_path) else None
    placeholders = [
        Spill(entry_id=pk, name=name, due_at=due)
        for offset, index, pk in bulk.chunked_in(lines, "offset", {offset for offset, _ in named})
        for name in named.get((offset, index), ())
    ]
    bulk.insert_ignore(placeholders)


@dataclass
class Looked:
    found: int = 0
    missing: int = 0


# The spills a pass looks for, with the file their stub line is in. Planned from the spill's due_at
# index (CROSS JOIN fixes SQLite's join order; PostgreSQL reorders it by its statistics): SQLite,
# without statistics, started from the source files and read every line of every transcript to
# find the few due spills, on every pass of a follower, an events-only append too (issue 29).
DUE = """
    SELECT s.id, s.name, s.looks, f.kind, f.root, f.rel_path
    FROM {spill} s CROSS JOIN {entry} e CROSS JOIN {source} f
    WHERE s.entry_id = e.id AND e.source_id = f.id
      AND f.status = %s AND f.host = %s  -- another machine's folders are not ours to open
      AND {due}
    ORDER BY s.due_at{limit}
"""


def due_spills(*, now: datetime | None, looked_before: bool | None = None, limit: int | None = None) -> list:
    """(pk, name, looks, kind, root, rel_path) of the spills not found whose transcript is on disk,
    soonest due first: due by `now` (every one with `now` None), of those looked for before or not
    (either with `looked_before` None), at most `limit`."""
    quote = connection.ops.quote_name
    due, params = ["s.due_at IS NOT NULL"], [SourceFile.Status.ACTIVE, settings.WAYSWEB_HOST]
    if now is not None:
        due.append("s.due_at <= %s")
        params.append(connection.ops.adapt_datetimefield_value(now))
    if looked_before is not None:
        due.append("s.looks > 0" if looked_before else "s.looks = 0")
    sql = DUE.format(
        spill=quote(Spill._meta.db_table),
        entry=quote(TranscriptEntry._meta.db_table),
        source=quote(SourceFile._meta.db_table),
        due=" AND ".join(due),
        limit="" if limit is None else f" LIMIT {int(limit)}",
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


def read_due(*, everything: bool = False, now: datetime | None = None) -> Looked:
    """Look for the spills that are due (see the module docstring for the bound); with
    `everything`, for every spill still not found whose transcript is on disk."""
    now = now or timezone.now()
    looked = Looked()
    due = Spill.objects.filter(due_at__isnull=False)
    if not (due if everything else due.filter(due_at__lte=now)).exists():
        # Asked of the due_at index alone, once: a no-op pass and a followed append skip the look-ups
        # below (the large tier has no spill at all).
        return looked
    if everything:
        batches = [due_spills(now=None)]
    else:
        # Never looked at yet: every one, as many as the lines just imported named.
        batches = [
            due_spills(now=now, looked_before=False),
            due_spills(now=now, looked_before=True, limit=RETRIES_PER_PASS),
        ]
    for batch in batches:
        for pk, name, looks, kind, root, rel_path in batch:
            if look(pk, name, looks, spill_folder(kind, root, rel_path), Path(root), now):
                looked.found += 1
            else:
                looked.missing += 1
    return looked


def look(pk: int, name: str, looks: int, folder: Path | None, root: Path, now: datetime) -> bool:
    """Read one spill into its row, or note the miss and when to look again; True when found.

    A spill is read only as a regular file inside the transcripts root (lib/safefs.py): a link
    out of it, a FIFO or an unreadable file is a spill not found (its reason kept), never opened.
    """
    row = Spill.objects.filter(pk=pk)
    if folder is None:
        row.update(due_at=None, looks=F("looks") + 1, looked_at=now)
        return False
    try:
        with safefs.open_file(root, folder / name) as fh:
            size = os.fstat(fh.fileno()).st_size
            data = safefs.read_upto(fh, MAX_SPILL_BYTES + 1)
    except safefs.Refused as refused:
        problem = refused.problem.reason
    except OSError:
        problem = ""  # not there (yet)
    else:
        kept = data[:MAX_SPILL_BYTES]
        row.update(
            found=True,
            size=size,
            truncated=len(data) > MAX_SPILL_BYTES,
            sha256=sha256(kept),
            text=secret_rows.spill_text(pk, name, kept.decode("utf-8", "replace").replace("\x00", "\ufffd")),
            problem="",
            due_at=None,
            looks=F("looks") + 1,
            looked_at=now,
        )
        return True
    row.update(problem=problem, due_at=now + wait_after(looks + 1), looks=F("looks") + 1, looked_at=now)
    return False


def wait_after(looks: int) -> timedelta:
    """How long after its `looks`-th miss a spill is looked for again: 30 s, doubling, at most a day."""
    return min(FIRST_WAIT * 2 ** min(looks - 1, 20), LONGEST_WAIT)
