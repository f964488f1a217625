"""Confined file access: nothing outside a root is read, nothing non-regular is opened, writes
never follow a link on the way, and a replaced file keeps its mode."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from lib import safefs
from tests.privileges import WITHOUT_DAC


@pytest.fixture
def tree(tmp_path):
    root = tmp_path / "root"
    (root / "sub").mkdir(parents=True)
    (root / "sub" / "a.md").write_text("inside")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("TOP-SECRET")
    return root, outside


def test_it_reads_a_regular_file_inside_its_root(tree):
    root, _ = tree
    assert safefs.read_capped(root, root / "sub" / "a.md", 100) == b"inside"


def test_it_follows_a_link_that_stays_inside_the_root(tree):
    root, _ = tree
    (root / "alias.md").symlink_to("sub/a.md")
    assert safefs.read_capped(root, root / "alias.md", 100) == b"inside"


def test_it_refuses_a_link_that_leaves_the_root(tree):
    root, outside = tree
    (root / "sub" / "leak.md").symlink_to(outside / "secret.md")
    with pytest.raises(safefs.Refused) as refused:
        safefs.read_capped(root, root / "sub" / "leak.md", 100)
    assert refused.value.problem.reason == safefs.LEAVES_ROOT
    assert str(outside / "secret.md") in refused.value.problem.detail


def test_it_refuses_a_directory_link_that_leaves_the_root(tree):
    root, outside = tree
    (root / "escape").symlink_to(outside)
    with pytest.raises(safefs.Refused):
        safefs.open_fd(root, root / "escape" / "secret.md")


def test_it_refuses_a_fifo_without_blocking(tree):
    root, _ = tree
    os.mkfifo(root / "events.jsonl")
    with pytest.raises(safefs.Refused) as refused:
        safefs.open_fd(root, root / "events.jsonl")
    assert refused.value.problem.reason == safefs.NOT_REGULAR
    assert refused.value.problem.detail == "a FIFO"


def test_it_refuses_a_device_even_through_a_link_inside(tree):
    root, _ = tree
    (root / "zero.md").symlink_to("/dev/zero")
    with pytest.raises(safefs.Refused):
        safefs.read_capped(root, root / "zero.md", 100)


def test_a_missing_file_is_not_found_not_a_problem(tree):
    root, _ = tree
    with pytest.raises(FileNotFoundError):
        safefs.open_fd(root, root / "nope.md")


def test_it_caps_a_read_while_reading(tree):
    root, _ = tree
    (root / "big.md").write_bytes(b"x" * 5000)
    assert safefs.read_capped(root, root / "big.md", 1000) == b"x" * 1001


# Run in a child without the capabilities that let root read every file (tests/privileges.py).
OPEN_IN_A_CHILD = """
import sys
from pathlib import Path
from lib import safefs
from tests.privileges import WITHOUT_DAC
try:
    safefs.open_fd(Path(sys.argv[1]), Path(sys.argv[2]))
except safefs.Refused as refused:
    print(refused.problem.reason)
else:
    print("opened")
"""


def test_an_unreadable_file_is_a_problem(tree):
    root, _ = tree
    path = root / "sub" / "a.md"
    path.chmod(0)
    done = subprocess.run(
        [*WITHOUT_DAC, sys.executable, "-c", OPEN_IN_A_CHILD, str(root), str(path)],
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parents[2],  # where `lib` imports from
        check=True,
    )
    assert done.stdout.strip() == safefs.UNREADABLE, done.stderr


def test_the_walk_lists_wanted_files_and_reports_what_it_did_not_follow(tree):
    root, outside = tree
    (root / "sub" / "b.md").write_text("b")
    (root / "sub" / "notes.txt").write_text("n")
    (root / "out").symlink_to(outside)
    (root / "loop").symlink_to(".")
    os.mkfifo(root / "sub" / "pipe.md")
    listing = safefs.walk(root, want=lambda name: name.endswith(".md"))
    assert listing.files == [root / "sub" / "a.md", root / "sub" / "b.md"]
    reasons = {(problem.path, problem.reason) for problem in listing.problems}
    assert (str(root / "out"), safefs.LEAVES_ROOT) in reasons
    assert (str(root / "sub" / "pipe.md"), safefs.NOT_REGULAR) in reasons


def test_the_walk_stops_at_its_file_cap_and_says_so(tree):
    root, _ = tree
    for n in range(10):
        (root / f"w{n}.md").write_text("x")
    listing = safefs.walk(root, want=lambda name: name.endswith(".md"), max_files=5)
    assert len(listing.files) == 5
    assert [problem.reason for problem in listing.problems] == [safefs.TOO_MANY_FILES]


def test_is_dir_never_raises(tmp_path):
    assert safefs.is_dir(tmp_path / ("x" * 5000)) is False
    assert safefs.is_dir(tmp_path) is True


def test_a_write_replaces_the_file_and_keeps_its_mode(tree):
    root, _ = tree
    path = root / "sub" / "a.md"
    path.chmod(0o640)
    safefs.write_atomic(root, path, b"new")
    assert path.read_bytes() == b"new"
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert sorted(p.name for p in path.parent.iterdir()) == ["a.md"]


def test_a_new_file_gets_the_umask_mode_and_its_folders_are_created(tree):
    root, _ = tree
    old = os.umask(0o022)
    try:
        safefs.write_atomic(root, root / "new" / "deeper" / "r.md", b"r")
    finally:
        os.umask(old)
    assert stat.S_IMODE((root / "new" / "deeper" / "r.md").stat().st_mode) == 0o644


def test_a_write_through_a_symlinked_folder_is_refused(tree):
    root, outside = tree
    (root / "curated").symlink_to(outside)
    with pytest.raises(safefs.Refused) as refused:
        safefs.write_atomic(root, root / "curated" / "deploy.md", b"planted")
    assert refused.value.problem.reason == safefs.LEAVES_ROOT
    assert sorted(p.name for p in outside.iterdir()) == ["secret.md"]


def test_a_write_over_a_symlinked_file_is_refused(tree):
    root, outside = tree
    (root / "sub" / "x.md").symlink_to(outside / "secret.md")
    with pytest.raises(safefs.Refused):
        safefs.write_atomic(root, root / "sub" / "x.md", b"planted")
    assert (outside / "secret.md").read_text() == "TOP-SECRET"


def test_a_write_outside_the_root_is_refused(tree):
    root, outside = tree
    with pytest.raises(safefs.Refused):
        safefs.write_atomic(root, root / ".." / "outside" / "secret.md", b"planted")
    with pytest.raises(safefs.Refused):
        safefs.write_atomic(root, outside / "secret.md", b"planted")
    assert (outside / "secret.md").read_text() == "TOP-SECRET"


def test_many_writes_replace_each_file_keep_its_mode_and_leave_no_temp_file(tree):
    root, _ = tree
    (root / "sub" / "a.md").chmod(0o640)
    writes = [
        (root / "sub" / "a.md", b"new a"),
        (root / "sub" / "b.md", b"b"),
        (root / "other" / "c.md", b"c"),
    ]
    assert safefs.write_many(root, writes) == {}
    assert [path.read_bytes() for path, _ in writes] == [b"new a", b"b", b"c"]
    assert stat.S_IMODE((root / "sub" / "a.md").stat().st_mode) == 0o640
    assert sorted(p.name for p in (root / "sub").iterdir()) == ["a.md", "b.md"]
    assert sorted(p.name for p in (root / "other").iterdir()) == ["c.md"]


def test_many_writes_refuse_each_unsafe_one_and_make_the_others(tree):
    root, outside = tree
    (root / "curated").symlink_to(outside)
    (root / "sub" / "x.md").symlink_to(outside / "secret.md")
    (root / "sub" / "fifo.md").unlink(missing_ok=True)
    os.mkfifo(root / "sub" / "fifo.md")
    writes = [
        (root / "curated" / "deploy.md", b"planted"),
        (root / "sub" / "x.md", b"planted"),
        (root / ".." / "outside" / "secret.md", b"planted"),
        (outside / "other.md", b"planted"),
        (root / "sub" / "fifo.md", b"planted"),
        (root / "sub" / "ok.md", b"ok"),
    ]
    failed = safefs.write_many(root, writes)
    assert sorted(failed) == [0, 1, 2, 3, 4] and all(isinstance(e, safefs.Refused) for e in failed.values())
    assert failed[4].problem.reason == safefs.NOT_REGULAR
    assert sorted(p.name for p in outside.iterdir()) == ["secret.md"]
    assert (outside / "secret.md").read_text() == "TOP-SECRET"
    assert (root / "sub" / "ok.md").read_bytes() == b"ok"
    assert sorted(p.name for p in (root / "sub").iterdir()) == ["a.md", "fifo.md", "ok.md", "x.md"]


def test_many_writes_flush_the_disk_once_not_per_file(tree, monkeypatch):
    root, _ = tree
    flushed, fsynced = [], []
    monkeypatch.setattr(safefs, "_flush_file_system", flushed.append)
    real_fsync = os.fsync
    monkeypatch.setattr(safefs.os, "fsync", lambda fd: fsynced.append(fd) or real_fsync(fd))
    writes = [(root / "sub" / f"{n}.md", b"x") for n in range(50)] + [(root / "new" / "n.md", b"y")]
    assert safefs.write_many(root, writes) == {}
    assert len(flushed) == (1 if safefs._SYNCFS is not None else 0)
    # One per directory touched; without syncfs, one per file besides.
    assert len(fsynced) == (2 if safefs._SYNCFS is not None else 53)


def test_many_writes_flush_each_file_system_they_wrote_to(tree, monkeypatch):
    """A folder under the root may be another mount: its files are flushed with their own file system."""
    root, _ = tree
    if safefs._SYNCFS is None:
        pytest.skip("no syncfs here: every file is fsynced by itself")
    flushed = []
    monkeypatch.setattr(safefs, "_flush_file_system", flushed.append)
    real_fstat = os.fstat

    def fstat(fd):  # the folder "mounted" reports a device of its own
        st = real_fstat(fd)
        if os.readlink(f"/proc/self/fd/{fd}").endswith("/mounted"):
            values = list(st)
            values[stat.ST_DEV] = st.st_dev + 1
            return os.stat_result(values)
        return st

    monkeypatch.setattr(safefs.os, "fstat", fstat)
    writes = [
        (root / "sub" / "a.md", b"a"),
        (root / "other" / "b.md", b"b"),
        (root / "mounted" / "c.md", b"c"),
    ]
    assert safefs.write_many(root, writes) == {}
    assert len(flushed) == 2
    assert [path.read_bytes() for path, _ in writes] == [b"a", b"b", b"c"]


def test_many_writes_sweep_the_temp_files_a_killed_writer_left_and_keep_a_live_ones(tree):
    root, _ = tree
    dead = subprocess.Popen(["true"])
    dead.wait()  # its pid is no process now
    left = root / "sub" / f".tmp.a.md.{dead.pid}.0badf00d"
    live = root / "sub" / f".tmp.b.md.{os.getpid()}.0badf00d"
    for temp in (left, live):
        temp.write_bytes(b"half")
    assert safefs.write_many(root, [(root / "sub" / "c.md", b"c")]) == {}
    assert not left.exists()
    assert live.read_bytes() == b"half"  # a writer still running may yet rename it


def test_remove_takes_away_a_link_never_its_target(tree):
    root, outside = tree
    (root / "link.md").symlink_to(outside / "secret.md")
    safefs.remove(root, root / "link.md")
    assert not (root / "link.md").is_symlink()
    assert (outside / "secret.md").exists()


def test_reading_for_an_edit_refuses_a_link_on_the_way(tree):
    root, outside = tree
    (root / "adr").symlink_to(outside)
    with pytest.raises(safefs.Refused):
        safefs.read_for_edit(root, root / "adr" / "secret.md", 100)
    assert safefs.read_for_edit(root, root / "sub" / "a.md", 100) == b"inside"
