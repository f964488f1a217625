"""The order a pass reads its sources in: newest first, one session's files together."""

from __future__ import annotations

import os
from pathlib import Path

from introspect.importer import discovery
from introspect.importer.discovery import LEGACY_RANK, LIVE_RANK, Source, newest_first
from lib import locations


def written(root: Path, rel: str, at: int, *, kind: str = "", rank: int = 0, **keys: str) -> Source:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"{}\n")
    os.utime(path, (at, at))
    kind = kind or ("subagent_transcript" if "agent-" in rel else "transcript")
    return Source(kind, root, rel, rank, keys.get("session", ""), keys.get("agent", ""))


def test_it_reads_the_most_recently_written_files_first(tmp_path, monkeypatch):
    monkeypatch.setattr(discovery, "LEAD_BYTES", 0)  # only the newest session ahead of the logs
    archive = written(tmp_path, "events-2026-10-01.jsonl.gz", 1_000, kind="events_archive", rank=20261001)
    live = written(tmp_path, "events.jsonl", 9_000, kind="events", rank=LIVE_RANK)
    old = written(tmp_path, "p/old.jsonl", 2_000, session="old")
    older = written(tmp_path, "p/older.jsonl", 500, session="older")
    new = written(tmp_path, "p/new.jsonl", 8_000, session="new")
    assert newest_first([archive, live, older, old, new]) == [new, live, old, archive, older]


def test_the_newest_transcripts_come_before_even_the_live_log_up_to_a_budget(tmp_path, monkeypatch):
    # Today's conversation shows within seconds; the live log (weeks of events) lands behind it.
    monkeypatch.setattr(discovery, "LEAD_BYTES", 6)  # two files of 3 bytes
    live = written(tmp_path, "events.jsonl", 9_000, kind="events", rank=LIVE_RANK)
    new = written(tmp_path, "p/new.jsonl", 8_000, session="new")
    old = written(tmp_path, "p/old.jsonl", 7_000, session="old")
    oldest = written(tmp_path, "p/oldest.jsonl", 6_000, session="oldest")
    assert newest_first([live, oldest, old, new]) == [new, old, live, oldest]


def test_the_decision_log_comes_after_the_event_logs_in_its_listed_order_never_in_the_lead(
    tmp_path, monkeypatch
):
    # Written on every prompt, it is often the newest file: today's conversation still comes first.
    monkeypatch.setattr(discovery, "LEAD_BYTES", 0)  # only the newest session ahead of the logs
    live = written(tmp_path, "events.jsonl", 5_000, kind="events", rank=LIVE_RANK)
    decisions = written(tmp_path, "decisions.jsonl", 9_000, kind="decisions", rank=LIVE_RANK)
    archive = written(tmp_path, "decisions-2026-10-01.jsonl.gz", 100, kind="decisions_archive", rank=20261001)
    new = written(tmp_path, "p/new.jsonl", 8_000, session="new")
    old = written(tmp_path, "p/old.jsonl", 1_000, session="old")
    assert newest_first([decisions, archive, old, new, live]) == [new, live, decisions, archive, old]


def test_the_decision_sources_are_the_live_file_then_the_archives_newest_day_first(tmp_path):
    for name in ("decisions.jsonl", "decisions-2026-10-01.jsonl.gz", "decisions-2026-10-02.jsonl.gz",
                 "decisions-2026-13-01.jsonl.gz", "decisions.compact.lock"):  # fmt: skip
        (tmp_path / name).write_bytes(b"")
    found = discovery.decision_sources(locations.resolve({"HOME": str(tmp_path)}), state_dir=tmp_path)
    assert [(source.kind, source.rel_path, source.rank) for source in found] == [
        ("decisions", "decisions.jsonl", LIVE_RANK),
        ("decisions_archive", "decisions-2026-10-02.jsonl.gz", 20261002),
        ("decisions_archive", "decisions-2026-10-01.jsonl.gz", 20261001),
    ]


def test_the_event_logs_keep_one_order_whatever_their_mtimes(tmp_path):
    # Which copy of a line two logs share is imported, and which counted a duplicate, follows the
    # order they are read: live, archives newest day first, legacy, never the mtimes.
    live = written(tmp_path, "events.jsonl", 1_000, kind="events", rank=LIVE_RANK)
    older = written(tmp_path, "events-2026-10-01.jsonl.gz", 9_000, kind="events_archive", rank=20261001)
    newer = written(tmp_path, "events-2026-10-02.jsonl.gz", 5_000, kind="events_archive", rank=20261002)
    legacy = written(tmp_path, "legacy.jsonl", 8_000, kind="events_legacy", rank=LEGACY_RANK)
    transcript = written(tmp_path, "p/s.jsonl", 6_000, session="s")
    assert newest_first([older, newer, live, legacy, transcript]) == [transcript, live, newer, older, legacy]


def test_it_keeps_one_sessions_files_together_in_their_listed_order(tmp_path):
    # A resumed session's second trunk replays the first one's lines: which file holds the copies
    # is decided by the order they are read, so it stays the listed order whatever the mtimes.
    first = written(tmp_path, "a/s.jsonl", 5_000, session="s")
    resumed = written(tmp_path, "b/s.jsonl", 7_000, session="s")
    agent = written(tmp_path, "a/s/subagents/agent-x.jsonl", 6_000, session="s", agent="x")
    other = written(tmp_path, "a/t.jsonl", 6_500, session="t")
    assert newest_first([first, resumed, agent, other]) == [first, resumed, agent, other]


def test_a_file_gone_since_it_was_listed_goes_last(tmp_path):
    gone = Source("transcript", tmp_path, "p/gone.jsonl", 0, "gone")
    here = written(tmp_path, "p/here.jsonl", 1, session="here")
    assert newest_first([gone, here]) == [here, gone]


def test_each_claude_directorys_legacy_log_is_read_inside_it_the_first_at_the_legacy_rank(tmp_path):
    first, second = tmp_path / "first", tmp_path / "second"
    for claude in (first, second):
        (claude / "stats").mkdir(parents=True)
        (claude / "stats" / "events.jsonl").write_bytes(b"")
    locs = locations.resolve({"HOME": str(tmp_path), "CLAUDE_CONFIG_DIR": f"{first},{second}"})
    found = discovery.event_sources(locs)
    assert [(s.path, s.rank, s.read_root) for s in found] == [
        (first / "stats" / "events.jsonl", LEGACY_RANK, first),
        (second / "stats" / "events.jsonl", discovery.MORE_LEGACY_RANK + 1, second),
    ]
    assert discovery.event_read_order(found) == found  # after the live log, in the order they were named


def test_the_findings_source_is_findings_jsonl_alone_and_only_when_it_is_there(tmp_path):
    locs = locations.resolve({"HOME": str(tmp_path)})
    for name in ("events.jsonl", "decisions.jsonl", "findings.jsonl.tmp"):
        (tmp_path / name).write_bytes(b"")
    assert discovery.finding_sources(locs, state_dir=tmp_path) == []
    (tmp_path / "findings.jsonl").write_bytes(b"")
    found = discovery.finding_sources(locs, state_dir=tmp_path)
    assert [(source.kind, source.rel_path) for source in found] == [("findings", "findings.jsonl")]


def test_transcripts_are_named_relative_to_their_projects_folder_linked_folders_included(tmp_path):
    projects = tmp_path / "projects"
    written(projects, "-home-a/s1.jsonl", 1_000)
    written(projects, "-home-a/agent-old.jsonl", 1_000)
    written(projects, "-home-a/s1/subagents/nested/agent-x.jsonl", 1_000)
    (projects / "-home-b").symlink_to(projects / "-home-a")  # a link inside the root is followed
    found = discovery.transcript_sources(projects, [])
    assert sorted((s.rel_path, s.session_key, s.agent_key) for s in found) == [
        ("-home-a/agent-old.jsonl", "", "old"),
        ("-home-a/s1.jsonl", "s1", ""),
        ("-home-a/s1/subagents/nested/agent-x.jsonl", "s1", "x"),
        ("-home-b/agent-old.jsonl", "", "old"),
        ("-home-b/s1.jsonl", "s1", ""),
        ("-home-b/s1/subagents/nested/agent-x.jsonl", "s1", "x"),
    ]


def test_a_path_below_the_filesystem_root_is_named_relative_to_it_too(tmp_path):
    assert discovery.under(tmp_path / "p", tmp_path / "p" / "a" / "b.jsonl") == "a/b.jsonl"
    assert discovery.under(Path("/"), Path("/p/a.jsonl")) == "p/a.jsonl"  # "/" + "/" is no prefix
