"""The peer comparison's plumbing (bench/peers.py): each tool run on the same transcripts as a child,
its whole process tree's memory counted, what it left on disk measured, a missing tool reported while
the others are still measured. No figure is asserted here: timings belong to the bench's own run."""

from __future__ import annotations

import sys

import pytest

from bench import corpus, peers

MB = 1_000_000


def test_the_peak_rss_is_the_whole_process_tree_summed_not_its_largest_process():
    # A parent holding 60 MB starts a child holding 60 MB; both wait until both hold theirs.
    child = "import time; b = bytearray(60_000_000); b[::4096] = b'x' * len(b[::4096]); time.sleep(1.5)"
    parent = (
        "import subprocess, sys, time; b = bytearray(60_000_000); b[::4096] = b'x' * len(b[::4096]); "
        f"p = subprocess.Popen([sys.executable, '-c', {child!r}]); p.wait()"
    )
    seconds, rss_mb, status, _, _ = peers.run_tree([sys.executable, "-c", parent], {})
    assert status == 0 and seconds > 1.5
    assert rss_mb > 120  # more than either process alone ever held


def test_a_failing_tool_is_reported_with_its_own_last_words():
    _, _, status, tail, _ = peers.run_tree(
        [sys.executable, "-c", "import sys; print('halfway'); sys.exit('no projects found')"], {}
    )
    assert status == 1
    measure = peers.failed(peers.Measure("tool"), status, tail)
    assert "exit status 1" in measure.missing and "no projects found" in measure.missing


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> corpus.CorpusInfo:
    return corpus.one_session(tmp_path_factory.mktemp("home"), 1)


def test_peers_missing_are_named_and_waysweb_is_still_measured(tiny, tmp_path, monkeypatch):
    monkeypatch.setattr(peers, "tool_path", lambda name: None)
    monkeypatch.setattr(peers.shutil, "which", lambda name: None)  # no npm to install ccusage with
    result = peers.compare(
        tiny.home, tiny.transcript_files, tmp_path / "scratch", ccusage_dir=tmp_path / "no-ccusage"
    )
    rows = {row["tool"]: row for row in result["rows"]}
    assert list(rows) == [
        "read + orjson parse",
        "ccusage 20 (no database)",
        "agentsview sync",
        "waysweb ingest",
        "claude-code-log convert",
    ]
    for tool in ("ccusage 20 (no database)", "agentsview sync", "claude-code-log convert"):
        assert rows[tool]["missing"].startswith("not installed"), rows[tool]
        assert rows[tool]["seconds"] is None and rows[tool]["ratios_to_waysweb"]["seconds"] is None
    ours = rows["waysweb ingest"]
    assert not ours["missing"], ours
    # It read every line of the transcripts into a database of its own.
    assert f"{tiny.transcript_lines:,} lines" in ours["notes"]["said"]
    assert ours["disk_mb"] > ours["notes"]["empty_schema_mb"]
    assert ours["ratios_to_waysweb"] == {"seconds": 1.0, "peak_rss_mb": 1.0, "disk_mb": 1.0}
    assert ours["disk_to_source"] == pytest.approx(
        ours["disk_mb"] * MB / sum(p.stat().st_size for p in tiny.transcript_files), rel=1e-2
    )
    assert rows["read + orjson parse"]["notes"]["lines"] == tiny.transcript_lines
    text = peers.table(result, "tiny")
    assert "agentsview sync" in text and "not measured: not installed" in text
    assert not (tmp_path / "scratch" / "waysweb").exists()  # scratch outputs removed unless kept
