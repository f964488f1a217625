"""The parity crawl's own contract: what makes two crawls of one comparison comparable and two
comparisons independent."""

from __future__ import annotations

from tests.parity.crawl import work_dir


def test_it_imports_both_sides_of_a_comparison_at_the_same_paths(tmp_path):
    # The pages print the paths they read: OUTDIR/old and OUTDIR/new must import from one folder.
    assert work_dir(tmp_path / "cmp" / "old") == work_dir(tmp_path / "cmp" / "new")


def test_it_keeps_two_comparisons_apart(tmp_path):
    # Two comparisons at once must not delete each other's data directory (heartbeat, database).
    assert work_dir(tmp_path / "one" / "old") != work_dir(tmp_path / "two" / "old")
    assert work_dir(tmp_path / "one" / "old").parent == (tmp_path / "one")
