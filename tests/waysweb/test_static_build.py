"""Static files are collected once per build of them, in a directory of their own, renamed into place."""

from __future__ import annotations

import os

import pytest

from waysweb import static_build


@pytest.fixture
def sources(settings, tmp_path):
    """The project's static files in a folder of the test's own, so that one can change."""
    folder = tmp_path / "static-src"
    (folder / "css").mkdir(parents=True)
    (folder / "css" / "app.css").write_text("body { color: black }\n")
    settings.STATICFILES_DIRS = [folder]
    return folder


def test_it_collects_a_build_into_a_directory_named_for_its_sources(sources, tmp_path):
    root = tmp_path / "static"
    build = static_build.collected(root)
    assert build.parent == root and build.name == f"build-{static_build.build_key()}"
    assert (build / "css" / "app.css").read_text() == "body { color: black }\n"
    assert [p.name for p in root.iterdir()] == [build.name]  # no scratch directory left behind


def test_it_collects_nothing_for_a_build_already_collected(sources, tmp_path, monkeypatch):
    root = tmp_path / "static"
    first = static_build.collected(root)
    monkeypatch.setattr(static_build, "collect_into", lambda directory: pytest.fail("collected again"))
    assert static_build.collected(root) == first


def test_a_changed_source_is_another_build(sources, tmp_path):
    root = tmp_path / "static"
    first = static_build.collected(root)
    (sources / "css" / "app.css").write_text("body { color: navy }\n")
    second = static_build.collected(root)
    assert second != first and (second / "css" / "app.css").read_text() == "body { color: navy }\n"
    assert (first / "css" / "app.css").read_text() == "body { color: black }\n"  # a server on it keeps it


def test_the_first_to_finish_a_build_wins_and_the_other_uses_it(sources, tmp_path, monkeypatch):
    root = tmp_path / "static"
    target = root / f"build-{static_build.build_key()}"
    collect = static_build.collect_into

    def racing(directory):
        collect(directory)
        # Another `serve` renames its finished copy into place while this one collects.
        collect(root / "other")
        (root / "other").rename(target)

    monkeypatch.setattr(static_build, "collect_into", racing)
    assert static_build.collected(root) == target
    assert [p.name for p in root.iterdir()] == [target.name]
    assert (target / "css" / "app.css").exists()


def test_it_keeps_the_build_served_and_the_most_recently_used_others(sources, tmp_path):
    root = tmp_path / "static"
    old = []
    for n, stamp in enumerate([100, 300, 200]):  # older builds, used at these times
        build = root / f"{static_build.PREFIX}{n:016x}"
        build.mkdir(parents=True)
        os.utime(build, (stamp, stamp))
        old.append(build)
    current = static_build.collected(root)
    assert sorted(p.name for p in root.iterdir()) == sorted([current.name, old[1].name, old[2].name])
