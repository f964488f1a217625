"""Durable writes: a reader sees the old file or the new one, never half of either."""

from __future__ import annotations

import os

import pytest

from ledger import files


def test_it_replaces_a_file_whole(tmp_path):
    path = tmp_path / "curated" / "r.md"
    files.write_atomic(tmp_path, path, b"first\n")
    files.write_atomic(tmp_path, path, b"second\n")
    assert path.read_bytes() == b"second\n"
    assert [p.name for p in path.parent.iterdir()] == ["r.md"]


def test_it_leaves_the_old_file_and_no_temp_file_when_the_rename_fails(tmp_path, monkeypatch):
    path = tmp_path / "records" / "r.md"
    path.parent.mkdir()
    path.write_bytes(b"old\n")

    def failing_replace(src, dst, **dir_fds):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", failing_replace)
    with pytest.raises(OSError):
        files.write_atomic(tmp_path, path, b"new\n")
    assert path.read_bytes() == b"old\n"
    assert [p.name for p in path.parent.iterdir()] == ["r.md"]
