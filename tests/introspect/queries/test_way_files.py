"""One way's files in precedence order (formats-agent-ways.md §10.1) and its front matter as
criteria, gone fields marked (§10.3) (introspect/queries/way_files.py)."""

from __future__ import annotations

import pytest

from introspect.models import Project, Way
from introspect.queries import way_files as way_queries
from tests.introspect.ways_home import way_file

pytestmark = pytest.mark.django_db


def test_the_files_of_a_way_come_in_precedence_order_and_say_where_each_is_read():
    alpha = Project.objects.create(path="/src/alpha", name="alpha")
    core = way_file("d/w", Way.RootKind.CORE, "/core")
    gone = way_file("d/w", Way.RootKind.USER, "/old-user", present=False)
    user = way_file("d/w", Way.RootKind.USER, "/user")
    project = way_file("d/w", Way.RootKind.PROJECT, "/src/alpha/.claude/ways", project=alpha)
    files, primary = way_queries.way_files("d/w")
    assert [(row.way, row.note, row.resolves) for row in files] == [
        (project, "read only in alpha and shadows the user/core way there", True),
        (user, "resolves outside projects that carry their own", True),
        (core, "shadowed by the user way", False),
        (gone, "file gone: no longer under this root (last read shown)", False),
    ]
    assert primary == user  # the text shown is the one read outside projects


def test_a_way_only_a_project_carries_shows_that_projects_file():
    alpha = Project.objects.create(path="/src/alpha", name="alpha")
    project = way_file("d/w", Way.RootKind.PROJECT, "/src/alpha/.claude/ways", project=alpha)
    files, primary = way_queries.way_files("d/w")
    assert [(row.note, row.resolves) for row in files] == [("read only in alpha", True)]
    assert primary == project


def test_criteria_are_the_front_matter_as_read_today_gone_fields_marked():
    way = Way(frontmatter={"description": "commits", "pattern": "commit", "refire": 0.2, "curve": "steep"})
    assert [(c.key, c.text, c.fire_bearing, bool(c.gone_note)) for c in way_queries.criteria_rows(way)] == [
        ("description", "commits", True, False),
        ("pattern", "commit", True, False),
        ("refire", "0.2", False, False),
        ("curve", "steep", False, True),
    ]


def test_a_front_matter_value_is_shown_as_written_or_as_json():
    assert way_queries.field_text("a|b") == "a|b"
    assert way_queries.field_text(True) == "true"
    assert way_queries.field_text(["git commit", 2, 0.5]) == "git commit, 2, 0.5"
    assert way_queries.field_text({"k": ["é"]}) == '{"k": ["é"]}'
    assert way_queries.field_text([{"nested": 1}]) == '[{"nested": 1}]'
