"""The way files of one root: a way's id is its folder, its file the first `---` `.md` in it, its
front matter kept as data and its fire-bearing fields as text (introspect/importer/wayfiles.py)."""

from __future__ import annotations

import os
from datetime import date

from introspect.importer import wayfiles
from lib import safefs
from lib.hashing import sha256


def write(path, text: str):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def by_id(root, problems: list[safefs.Problem] | None = None) -> dict[str, wayfiles.WayFile]:
    return {way.way_id: way for way in wayfiles.scan_root(root, problems)}


def test_a_ways_id_is_its_folder_under_the_root_and_its_domain_the_first_part(tmp_path):
    write(
        tmp_path / "softwaredev" / "code" / "testing" / "testing.md", "---\npattern: test\n---\n# Testing\n"
    )
    (way,) = wayfiles.scan_root(tmp_path)
    assert (way.way_id, way.domain, way.rel_path) == (
        "softwaredev/code/testing",
        "softwaredev",
        "softwaredev/code/testing/testing.md",
    )


def test_it_keeps_the_files_content_its_hash_front_matter_criteria_and_body(tmp_path):
    raw = "---\ndescription: commits\npattern: commit|push\nscope: agent\n---\n\n# Commits\n\nSmall ones.\n"
    write(tmp_path / "git" / "commits" / "commits.md", raw)
    (way,) = wayfiles.scan_root(tmp_path)
    assert way.content == raw
    assert way.sha256 == sha256(raw.encode())
    assert way.frontmatter == {"description": "commits", "pattern": "commit|push", "scope": "agent"}
    assert way.criteria == {"pattern": "commit|push", "scope": "agent"}  # description fires nothing
    assert way.body == "# Commits\n\nSmall ones."
    assert way.error == ""


def test_a_file_directly_in_the_root_has_no_id_and_is_no_way(tmp_path):
    write(tmp_path / "README.md", "---\npattern: x\n---\n")
    assert wayfiles.scan_root(tmp_path) == []


def test_a_check_file_and_a_file_not_opening_with_a_fence_are_not_the_ways_file(tmp_path):
    write(tmp_path / "w" / "a.check.md", "---\npattern: check\n---\n")
    write(tmp_path / "w" / "b-notes.md", "Notes, no front matter.\n")
    write(tmp_path / "w" / "c-way.md", "---\npattern: real\n---\n")
    assert by_id(tmp_path)["w"].rel_path == "w/c-way.md"


def test_the_first_way_file_in_path_order_wins_a_folder(tmp_path):
    write(tmp_path / "w" / "b.md", "---\npattern: second\n---\n")
    write(tmp_path / "w" / "a.md", "---\npattern: first\n---\n")
    assert by_id(tmp_path)["w"].criteria == {"pattern": "first"}


def test_a_fence_with_a_windows_line_ending_opens_front_matter(tmp_path):
    write(tmp_path / "w" / "w.md", "---\r\npattern: crlf\r\n---\r\nbody\r\n")
    assert by_id(tmp_path)["w"].criteria == {"pattern": "crlf"}


def test_a_root_that_is_not_a_folder_has_no_ways(tmp_path):
    assert wayfiles.scan_root(tmp_path / "missing") == []
    assert wayfiles.scan_root(write(tmp_path / "file", "---\n")) == []


def test_a_link_leaving_the_root_is_a_problem_never_followed(tmp_path):
    root, outside = tmp_path / "root", tmp_path / "outside"
    write(outside / "escaped" / "escaped.md", "---\npattern: out\n---\n")
    write(root / "inside" / "inside.md", "---\npattern: in\n---\n")
    os.symlink(outside / "escaped", root / "escaped")
    problems: list[safefs.Problem] = []
    assert set(by_id(root, problems)) == {"inside"}
    assert [(problem.path, problem.reason) for problem in problems] == [
        (str(root / "escaped"), safefs.LEAVES_ROOT)
    ]


def test_a_root_that_is_a_link_is_read_where_it_points(tmp_path):
    write(tmp_path / "real" / "w" / "w.md", "---\npattern: x\n---\n")
    os.symlink(tmp_path / "real", tmp_path / "projection")
    assert set(by_id(tmp_path / "projection")) == {"w"}


def test_front_matter_that_is_no_mapping_or_no_yaml_is_an_error_with_no_criteria():
    listed = wayfiles.parse_way("w", "w/w.md", b"---\n- a\n- b\n---\nbody\n")
    assert (listed.error, listed.frontmatter, listed.criteria) == ("front matter is not a mapping", {}, {})
    broken = wayfiles.parse_way("w", "w/w.md", b"---\npattern: [unclosed\n---\n")
    assert broken.error.startswith("invalid YAML") and broken.criteria == {}


def test_a_missing_closing_fence_is_an_error_and_the_file_has_no_body():
    way = wayfiles.parse_way("w", "w/w.md", b"---\npattern: x\nno closing fence\n")
    assert (way.error, way.frontmatter, way.body) == ("no closing --- fence", {}, "")


def test_undecodable_bytes_are_replaced_not_refused():
    way = wayfiles.parse_way("w", "w/w.md", b"---\npattern: caf\xe9\n---\n")
    assert way.criteria == {"pattern": "caf\ufffd"}
    assert way.sha256 == sha256(b"---\npattern: caf\xe9\n---\n")  # the hash is of the bytes as on disk


def test_each_criterion_is_text_converted_on_its_own():
    assert wayfiles.criteria(
        {
            "pattern": "commit",
            "commands": ["git commit", 3, None, True],
            "files": 2.5,
            "trigger": False,
            "vocabulary": {"not": "text"},  # a bad value spoils only itself
            "scope": "",
            "description": "not a criterion",
        }
    ) == {"pattern": "commit", "commands": "git commit, 3, true", "files": "2.5", "trigger": "false"}


def test_front_matter_is_kept_as_json_data_whatever_yaml_gave():
    assert wayfiles.jsonable({1: date(2026, 11, 2), "list": [date(2026, 1, 1), None, 1.5]}) == {
        "1": "2026-11-02",
        "list": ["2026-01-01", None, 1.5],
    }


def test_a_way_file_larger_than_the_cap_is_read_up_to_it(tmp_path):
    head = "---\npattern: big\n---\n"
    write(tmp_path / "w" / "w.md", head + "x" * wayfiles.MAX_WAY_FILE_BYTES)
    (way,) = wayfiles.scan_root(tmp_path)
    assert len(way.content.encode()) == wayfiles.MAX_WAY_FILE_BYTES
    assert way.criteria == {"pattern": "big"}
