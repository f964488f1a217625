"""Spilled output: the full text behind a `<persisted-output>` stub (formats-claude-code.md §9.4).

The stub names a path; that path is data and never opened as given. Only its file name is used,
looked up in the `tool-results/` folder of the transcript's own session directory, which the
importer discovered under the configured Claude directory (importer-reliability.md §13.2).
Spills are read by the import pass for the trunk files it read, after their lines are committed:
never inside a derive transaction.
"""

from __future__ import annotations

import os
import re
from pathlib import Path, PurePosixPath

from introspect.models import SourceFile, Spill, TranscriptEntry
from lib import safefs
from lib.hashing import sha256

MAX_SPILL_BYTES = 8 << 20
STUB = re.compile(r"<persisted-output>.*?Full output saved to:\s*(\S+)", re.S)
SAFE_NAME = re.compile(r"^[A-Za-z0-9._-]+$")


def named_spills(text: str) -> list[str]:
    """File names the stubs in `text` point at (only plain names survive)."""
    names = []
    for path in STUB.findall(text or ""):
        name = PurePosixPath(path).name
        if SAFE_NAME.match(name) and name not in names:
            names.append(name)
    return names


def spill_folder(source: SourceFile) -> Path | None:
    """`<projects>/<slug>/<session>/tool-results/` for a trunk file; None for other files."""
    if source.kind != SourceFile.Kind.TRANSCRIPT:
        return None
    return (Path(source.root) / source.rel_path).with_suffix("") / "tool-results"


def import_spills(entries: list[TranscriptEntry], source: SourceFile) -> int:
    """Read the spill files the session's stubs name; returns how many were found.

    A spill is read only as a regular file inside the transcripts root (lib/safefs.py): a link
    out of it, a FIFO or an unreadable file is a spill not found, never opened.
    """
    folder = spill_folder(source)
    root = Path(source.root)
    found = 0
    for entry in entries:
        if "<persisted-output>" not in (entry.text or ""):
            continue
        for name in named_spills(entry.text):
            spill, _ = Spill.objects.get_or_create(entry=entry, name=name)
            if folder is None:
                continue
            try:
                with safefs.open_file(root, folder / name) as fh:
                    size = os.fstat(fh.fileno()).st_size
                    data = safefs.read_upto(fh, MAX_SPILL_BYTES + 1)
            except OSError:
                continue
            spill.found, spill.size = True, size
            spill.truncated = len(data) > MAX_SPILL_BYTES
            spill.sha256 = sha256(data[:MAX_SPILL_BYTES])
            spill.text = data[:MAX_SPILL_BYTES].decode("utf-8", "replace").replace("\x00", "\ufffd")
            spill.save()
            found += 1
    return found


def import_for_sources(sources: list[SourceFile], *, since_id: int) -> int:
    """The spills of the stub lines these trunk files gained (entry id above `since_id`), and of
    stubs whose spill was not found before (Claude Code may write it after the stub); returns how
    many were found. Only rows of this pass are scanned, so a poll stays cheap on a long session."""
    trunks = [source for source in sources if source.kind == SourceFile.Kind.TRANSCRIPT]
    if not trunks:
        return 0
    new = TranscriptEntry.objects.filter(
        source__in=trunks, pk__gt=since_id, text__contains="<persisted-output>"
    )
    missing = Spill.objects.filter(entry__source__in=trunks, found=False).values_list("entry_id", flat=True)
    entries = list((new | TranscriptEntry.objects.filter(pk__in=list(missing))).defer("raw").order_by("pk"))
    by_source = {source.pk: source for source in trunks}
    found = 0
    for source_id in sorted({entry.source_id for entry in entries}):
        found += import_spills(
            [entry for entry in entries if entry.source_id == source_id], by_source[source_id]
        )
    return found
