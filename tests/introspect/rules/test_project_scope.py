"""A recorded project is in a `--project` scope as agent-ways' `util::in_project` decides."""

from __future__ import annotations

from introspect.rules.project_scope import in_project


def test_it_takes_the_same_path_and_paths_under_it_trailing_separators_aside():
    assert in_project("/a/proj", "/a/proj")
    assert in_project("/a/proj/", "/a/proj")
    assert in_project("/a/proj/.claude/worktrees/x", "/a/proj//")
    assert in_project("C:\\a\\proj\\sub", "C:\\a\\proj")


def test_it_refuses_a_sibling_whose_name_only_begins_the_same_and_an_empty_scope():
    assert not in_project("/a/proj-2", "/a/proj")
    assert not in_project("/a", "/a/proj")
    assert not in_project("/a/proj", "")


def test_the_root_holds_every_absolute_path():
    assert in_project("/p", "/")
    assert not in_project("p", "/")
