"""The way catalog: every way file under the project, user and core roots is a `Way` row keyed by
(root, id), a `WayVersion` per content it has had, and a way gone from disk is marked absent,
never deleted (introspect/importer/catalog.py)."""

from __future__ import annotations

import os

import pytest
from django.conf import settings

from introspect.importer import catalog
from introspect.models import Project, SourceProblem, Way, WayVersion
from lib import safefs

pytestmark = pytest.mark.django_db


def scan() -> catalog.CatalogResult:
    """Import the user and core roots the settings name (no project roots)."""
    return catalog.import_roots(catalog.way_roots(settings.WAYSWEB_LOCATIONS, projects=[]))


def counts(result: catalog.CatalogResult) -> tuple[int, int, int, int, int]:
    return result.roots, result.files, result.added, result.changed, result.gone


def test_the_roots_are_each_projects_then_the_users_then_the_core(home, tmp_path):
    first = Project.objects.create(path=str(tmp_path / "a"), name="a")
    second = Project.objects.create(path=str(tmp_path / "b"), name="b")
    roots = catalog.way_roots(settings.WAYSWEB_LOCATIONS)
    assert [(root.kind, root.path, root.project) for root in roots] == [
        (Way.RootKind.PROJECT, tmp_path / "a" / ".claude" / "ways", first),
        (Way.RootKind.PROJECT, tmp_path / "b" / ".claude" / "ways", second),
        (Way.RootKind.USER, settings.WAYSWEB_LOCATIONS.user_ways, None),
        (Way.RootKind.CORE, settings.WAYSWEB_LOCATIONS.core_ways, None),
    ]


def test_a_project_whose_path_is_not_absolute_has_no_root(home):
    relative = Project(path="proj", name="proj")
    empty = Project(path="", name="")
    kinds = [root.kind for root in catalog.way_roots(settings.WAYSWEB_LOCATIONS, projects=[relative, empty])]
    assert kinds == [Way.RootKind.USER, Way.RootKind.CORE]


def test_a_user_or_core_root_given_replaces_the_one_the_locations_name(home, tmp_path):
    roots = catalog.way_roots(
        settings.WAYSWEB_LOCATIONS, user=tmp_path / "u", core=tmp_path / "c", projects=[]
    )
    assert [root.path for root in roots] == [tmp_path / "u", tmp_path / "c"]


def test_a_new_way_is_a_row_with_its_file_as_read_and_its_first_version(home):
    path = home.way(home.user_ways, "softwaredev/commits", "description: commits\npattern: commit")
    assert counts(scan()) == (1, 1, 1, 0, 0)  # the core root does not exist: not counted
    way = Way.objects.get()
    assert (way.way_id, way.domain, way.root, way.root_kind, way.project) == (
        "softwaredev/commits",
        "softwaredev",
        str(home.user_ways),
        Way.RootKind.USER,
        None,
    )
    assert way.path == str(path)
    assert (way.criteria, way.body, way.present) == ({"pattern": "commit"}, "# Way", True)
    assert list(way.versions.values_list("content", flat=True)) == [path.read_text()]


def test_a_second_scan_of_unchanged_files_changes_nothing(home):
    home.way(home.user_ways, "w", "pattern: x")
    scan()
    before = Way.objects.values().get()
    assert counts(scan()) == (1, 1, 0, 0, 0)
    assert Way.objects.values().get() == before  # not even read_at: the row is not written


def test_a_changed_file_is_a_new_version_beside_the_old(home):
    path = home.way(home.user_ways, "w", "pattern: old")
    scan()
    first = Way.objects.get()
    path.write_text("---\npattern: new\n---\n")
    assert counts(scan()) == (1, 1, 0, 1, 0)
    way = Way.objects.get()
    assert way.criteria == {"pattern": "new"} and way.changed_at > first.changed_at
    assert sorted(way.versions.values_list("content", flat=True)) == [
        "---\npattern: new\n---\n",
        "---\npattern: old\n---\n# Way\n",
    ]


def test_a_file_renamed_in_its_folder_moves_the_way_without_changing_it(home):
    path = home.way(home.user_ways, "w", "pattern: x")
    scan()
    first = Way.objects.get()
    path.rename(path.with_name("renamed.md"))
    assert counts(scan()) == (1, 1, 0, 0, 0)
    way = Way.objects.get()
    assert (way.rel_path, way.changed_at) == ("w/renamed.md", first.changed_at)
    assert WayVersion.objects.count() == 1


def test_a_way_gone_from_disk_is_marked_absent_and_kept_and_counts_as_changed_when_back(home):
    path = home.way(home.user_ways, "w", "pattern: x")
    home.way(home.user_ways, "stays", "pattern: y")
    scan()
    content = path.read_bytes()
    path.unlink()
    assert counts(scan()) == (1, 1, 0, 0, 1)
    assert dict(Way.objects.values_list("way_id", "present")) == {"w": False, "stays": True}
    assert Way.objects.get(way_id="w").versions.count() == 1
    assert counts(scan()) == (1, 1, 0, 0, 0)  # gone once, not again on every scan
    path.write_bytes(content)
    assert counts(scan()) == (1, 2, 0, 1, 0)
    assert Way.objects.get(way_id="w").present


def test_one_id_under_two_roots_is_two_ways_the_projects_linked_to_its_project(home, tmp_path):
    project = Project.objects.create(path=str(tmp_path / "proj"), name="proj")
    home.way(tmp_path / "proj" / ".claude" / "ways", "w", "pattern: project")
    home.way(home.user_ways, "w", "pattern: user")
    result = catalog.import_roots(catalog.way_roots(settings.WAYSWEB_LOCATIONS))
    assert counts(result) == (2, 2, 2, 0, 0)
    rows = {way.root_kind: (way.project, way.criteria["pattern"]) for way in Way.objects.all()}
    assert rows == {Way.RootKind.PROJECT: (project, "project"), Way.RootKind.USER: (None, "user")}


def test_what_a_root_refuses_is_recorded_under_ways_until_it_is_gone(home, tmp_path):
    outside = tmp_path / "outside"
    home.way(outside, "escaped", "pattern: x")
    home.way(home.user_ways, "w", "pattern: y")
    os.symlink(outside / "escaped", home.user_ways / "escaped")
    result = scan()
    assert [(problem.path, problem.reason) for problem in result.problems] == [
        (str(home.user_ways / "escaped"), safefs.LEAVES_ROOT)
    ]
    assert list(SourceProblem.objects.filter(area="ways").values_list("path", flat=True)) == [
        str(home.user_ways / "escaped")
    ]
    assert list(Way.objects.values_list("way_id", flat=True)) == ["w"]
    (home.user_ways / "escaped").unlink()
    scan()
    assert not SourceProblem.objects.filter(area="ways").exists()
