"""The ADR-112 session ledger (knowledge-and-records.md §2): the entries the sample sessions' Stop and
PreCompact hooks wrote, timed by the sessions' own turns; their bodies are sample/texts/ledger/*.md."""

from __future__ import annotations

import hashlib
import uuid

from sample import formats, texts
from sample.state import Home
from sample.timeline import PROJECTS, T, sec

CONTEXT_WINDOW = 200_000
# S11 is a teammate of "api-refactor-team"; its team lead ran in a second terminal on the same
# project. That session is not in the sample (no transcript, no events): only its ledger entry is.
LEAD_SID = str(
    uuid.UUID(bytes=hashlib.sha256(b"waysweb-sample:api-refactor-team-lead").digest()[:16], version=4)
)

# (session key, phase, when): the body is texts/ledger/<NN>-<key>-<phase>.md, NN counting from 1 in this
# order. when: prompt index (entry written by the Stop hook at the end of that turn), ("compact", n)
# (handoff at the n-th PreCompact), or an explicit datetime.
# Entries of the short sessions were nudged by meta/attend/reflection-overdue, below the nominal
# 30/50/70 % thresholds; S07 crosses them for real.
LEDGER_ENTRIES: list[tuple] = [
    ("S03", "orientation", 2),
    ("S03", "handoff", ("compact", 0)),
    ("S07", "orientation", 1),
    ("S07", "progress", 8),
    ("S07", "consolidation", 15),
    ("S07", "handoff", ("compact", 0)),
    ("S07", "progress", 26),
    ("S07", "consolidation", 31),
    ("S07", "handoff", ("compact", 1)),
    ("S07", "progress", 38),
    ("LEAD", "orientation", T(7, 11, 5, 59)),
    ("S11", "orientation", 2),
    ("S11", "progress", 10),
    ("S04", "orientation", 2),
    ("S08", "orientation", 4),
    ("S08", "handoff", ("compact", 0)),
    ("S12", "progress", 2),
    ("S06", "orientation", 6),
    ("S09", "progress", 3),
]
MALFORMED_ENTRY = "S12"  # its front matter has an unterminated quote (a hook bug), on purpose
CONCURRENT_ENTRY = ("S11", 2)  # written while the lead's entry was being written: same epoch


def ledger_entries(h: Home) -> None:
    by_key = {s.key: s for s in h.sessions}
    rows = []
    for n, (key, phase, when) in enumerate(LEDGER_ENTRIES, 1):
        body = texts.text(f"ledger/{n:02d}-{key}-{phase}.md")
        if key == "LEAD":
            project, sid, ts, pct = PROJECTS["api"], LEAD_SID, when, 41
        else:
            s = by_key[key]
            project, sid = s.project, s.sid
            if isinstance(when, tuple):
                ts, tokens = s.compaction_starts[when[1]]
            else:
                ts, tokens = s.turn_ends[when]
            pct = round(100 * tokens / CONTEXT_WINDOW)
            if key == "S07" and phase != "handoff":  # the long session crosses the real thresholds
                assert pct >= 30, (key, phase, when, pct)
        rows.append(
            dict(key=key, when=when, project=project, sid=sid, ts=ts, pct=pct, phase=phase, body=body.strip())
        )
    for project in sorted({r["project"] for r in rows}):
        stream = sorted((r for r in rows if r["project"] == project), key=lambda r: r["ts"])
        for n, r in enumerate(stream):
            # epoch = entries already in the directory; the concurrent writer counted before the lead's file landed
            epoch = n - 1 if (r["key"], r["when"]) == CONCURRENT_ENTRY else n
            transcript = "~/" + formats.transcript_path(project, r["sid"])
            if r["key"] == MALFORMED_ENTRY:
                transcript = '"' + transcript
            entry = formats.ledger_entry(
                session=r["sid"],
                transcript=transcript,
                epoch=epoch,
                context_pct=r["pct"],
                timestamp=sec(r["ts"]),
                phase=r["phase"],
                body=r["body"],
            )
            name = formats.ledger_entry_name(r["ts"], epoch)
            h.put_text(f"{formats.LEDGER_DIR}/{formats.project_slug(project)}/{name}", entry)
