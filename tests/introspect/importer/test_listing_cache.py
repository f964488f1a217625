"""A follower lists a project folder again only when one of its directories changed."""

from __future__ import annotations

from introspect.importer import discovery
from lib import safefs


def trunk(folder, sid: str):
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{sid}.jsonl"
    path.write_text("{}\n")
    return path


def listed(projects, cache):
    return sorted(s.rel_path for s in discovery.transcript_sources(projects, cache=cache))


def test_it_reuses_a_folder_listing_until_a_directory_changes(tmp_path, monkeypatch):
    projects = tmp_path / "projects"
    trunk(projects / "-p", "s1")
    trunk(projects / "-q", "s2")
    cache = discovery.ListingCache()
    assert listed(projects, cache) == ["-p/s1.jsonl", "-q/s2.jsonl"]
    calls = []
    real = safefs.entries
    monkeypatch.setattr(safefs, "entries", lambda *a, **k: calls.append(a[1]) or real(*a, **k))

    (projects / "-p" / "s1.jsonl").write_text("{}\n{}\n")  # an append changes no directory
    assert listed(projects, cache) == ["-p/s1.jsonl", "-q/s2.jsonl"] and calls == []

    trunk(projects / "-p", "s3")  # a new trunk: that folder alone is listed again
    assert listed(projects, cache) == ["-p/s1.jsonl", "-p/s3.jsonl", "-q/s2.jsonl"]
    assert calls == [projects / "-p"]


def test_it_sees_a_subagent_file_land_in_a_session_folder_however_deep(tmp_path):
    projects = tmp_path / "projects"
    trunk(projects / "-p", "s1")
    (projects / "-p" / "s1").mkdir()  # a session folder, empty for now
    cache = discovery.ListingCache()
    assert listed(projects, cache) == ["-p/s1.jsonl"]
    nested = projects / "-p" / "s1" / "subagents" / "workflows"
    nested.mkdir(parents=True)
    assert listed(projects, cache) == ["-p/s1.jsonl"]
    (nested / "agent-a1.jsonl").write_text("{}\n")
    assert listed(projects, cache) == ["-p/s1.jsonl", "-p/s1/subagents/workflows/agent-a1.jsonl"]


def test_a_listing_from_the_cache_reports_its_problems_again(tmp_path):
    projects = tmp_path / "projects"
    trunk(projects / "-p", "s1")
    (projects / "-p" / "s2.jsonl").symlink_to(tmp_path / "outside.jsonl")
    (tmp_path / "outside.jsonl").write_text("{}\n")
    cache = discovery.ListingCache()
    for _ in range(2):
        problems: list = []
        discovery.transcript_sources(projects, problems, cache=cache)
        assert [p.path for p in problems] == [str(projects / "-p" / "s2.jsonl")]
