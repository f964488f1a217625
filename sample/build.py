#!/usr/bin/env python3
"""Build the waysweb sample HOME: agent-ways logs, way files, Claude Code transcripts, ledgers, knowledge, ADRs.

    uv run python sample/build.py [--out DIR]

Deterministic: one ``random.Random(SEED)``, fixed timestamps, gzip members written with mtime 0
and a fixed file name. The default output, ``sample/home``, is wiped and rewritten. What the sample
holds is described in sample/README.md. This file plays the story in order and writes the files out;
each part has its module:

    sample/story/sNN_*.py  the eighteen sessions, each a `play(h)`, in the order STORY lists them
    sample/sessions.py     a session's steps: prompts, tool calls, subagents, compactions, hook events
    sample/event_rows.py   an event spec (sample/specs.py) rendered as the row a hook logs
    sample/ledger.py       ADR-112 session-ledger entries
    sample/majordomus.py   the majordomus repository's ledger.jsonl and its episodes
    sample/knowledge.py    its knowledge: policy, candidates, curated records
    sample/adrs.py         the ADR collections
    sample/event_logs.py   the live, archived and legacy event logs
    sample/decision_log.py the decision log (decisions.jsonl and its archive), told from the events
    sample/findings.py     the findings ledger (findings.jsonl), two assembler runs over the events
    sample/labels.py       two people's relevance labels of a dozen fires, as waysweb exports them
    sample/ways.py         the way files
    sample/texts/          the prose the modules above read (sample/texts.py)

Every line and file is serialised by sample/formats.py and every transcript is written by
sample/transcript.py, both shared with bench/corpus.py (formats-agent-ways.md, formats-claude-code.md and
knowledge-and-records.md).
"""

from __future__ import annotations

import argparse
import importlib
import shutil
import sys
from pathlib import Path

# `uv run python sample/build.py` puts sample/ first on sys.path; the modules are imported as a package
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sample.adrs import adr_collections
from sample.decision_log import decision_log
from sample.event_logs import extra_events, fix_plus00, write_logs
from sample.findings import findings_ledger
from sample.knowledge import knowledge_records
from sample.labels import sample_labels
from sample.ledger import ledger_entries
from sample.majordomus import majordomus_repo
from sample.state import Home
from sample.ways import WAYS

DEFAULT_OUT = Path(__file__).resolve().parent / "home"
# in the order they are played: each draws from the one random stream where the one before stopped
STORY = tuple(
    importlib.import_module(f"sample.story.{name}")
    for name in (
        "s01_pre1",
        "s02_split",
        "s03_old_compacted",
        "s04_old_web",
        "s05_notes_overlap",
        "s06_no_transcript",
        "s07_long",
        "s08_web",
        "s09_infra",
        "s10_notes",
        "s11_judge",
        "s12_numbers",
        "s13_unknown_channel",
        "s14_transcript_only",
        "s15_refill_skew",
        "s16_checkout_postcode",
        "s17_webhooks",
        "s18_release",
    )
)


def build(out: Path) -> Home:
    h = Home()
    for session in STORY:
        session.play(h)
    extra_events(h)
    fix_plus00(h)
    ledger_entries(h)
    episodes = majordomus_repo(h)
    knowledge_records(h, episodes)
    adr_collections(h, episodes.by_session)
    write_logs(h)
    decision_log(h)
    findings_ledger(h)
    sample_labels(h)
    for root, rel, text in WAYS:
        h.put_text(f"{root}/{rel}", text)

    out = Path(out)
    if out.exists():
        extra = sorted(
            p.name for p in out.iterdir() if p.name not in (".claude", ".local", ".config", "repos")
        )
        if extra:
            sys.exit(f"refusing to wipe {out}: it holds {extra[:3]} (not a sample home)")
        shutil.rmtree(out)
    for rel in sorted(h.files):
        path = out / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(h.files[rel])
    return h


def turns_of(h: Home, sid: str) -> int:
    rows = []
    for e in h.events:
        d = e["d"]
        if d.get("session") != sid or not str(d.get("ts", "")).endswith("Z"):
            continue
        if d["event"] in ("way_fired", "way_redisclosed", "way_keyword_gated", "way_suppressed") or (
            d["event"] == "way_judged" and d.get("verdict") == "block"
        ):
            rows.append(e["dt"])
    rows.sort()
    n, last = 0, None
    for dt in rows:
        if last is None or (dt - last).total_seconds() > 3:
            n += 1
        last = dt
    return n


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args(argv)
    h = build(args.out)
    if args.quiet:
        return
    total = sum(len(b) for b in h.files.values())
    print(f"wrote {len(h.files)} files, {total} bytes, to {args.out}")
    header = "key  session                               project                    prompts event-turns"
    print(f"{header} compactions transcript")
    for s in h.sessions:
        print(
            f"{s.key}  {s.sid}  {s.project:<26} {s.prompts:>7} {turns_of(h, s.sid) if s.gen else '-':>11} "
            f"{s.compactions:>11} {'yes' if s.write_transcript else 'no':>10}  {s.note}"
        )


if __name__ == "__main__":
    main()
