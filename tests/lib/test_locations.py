"""Locations follow agent-ways' rules: unset, empty or relative XDG variables fall back to HOME."""

from __future__ import annotations

from pathlib import Path

from lib import locations


def test_it_uses_home_defaults():
    locs = locations.resolve({"HOME": "/h"})
    assert locs.state_dir == Path("/h/.local/state/agent-ways")
    assert locs.live_events == Path("/h/.local/state/agent-ways/events.jsonl")
    assert locs.legacy_events == Path("/h/.claude/stats/events.jsonl")
    assert locs.user_ways == Path("/h/.config/agent-ways/ways")
    assert locs.core_ways == Path("/h/.local/share/agent-ways/hooks/ways")
    assert locs.data_dir == Path("/h/.local/share/waysweb")


def test_it_honours_absolute_xdg_variables_and_claude_config_dir():
    locs = locations.resolve(
        {
            "HOME": "/h",
            "XDG_STATE_HOME": "/s",
            "XDG_CONFIG_HOME": "/c",
            "XDG_DATA_HOME": "/d",
            "CLAUDE_CONFIG_DIR": "/cc",
        }
    )
    assert locs.state_dir == Path("/s/agent-ways")
    assert locs.user_ways == Path("/c/agent-ways/ways")
    assert locs.claude_dir == Path("/cc") and locs.legacy_events == Path("/cc/stats/events.jsonl")
    assert locs.data_dir == Path("/d/waysweb")


def test_it_treats_empty_or_relative_xdg_values_as_unset():
    for value in ("", "relative/state"):
        assert locations.resolve({"HOME": "/h", "XDG_STATE_HOME": value}).state_dir == Path(
            "/h/.local/state/agent-ways"
        )


def test_it_lets_waysweb_variables_override_each_location():
    locs = locations.resolve(
        {
            "HOME": "/h",
            "WAYSWEB_STATE_DIR": "/events",
            "WAYSWEB_CLAUDE_DIR": "/claude",
            "WAYSWEB_DATA_DIR": "/data",
            "WAYSWEB_REPOS": "/r1:/r2",
        }
    )
    assert (locs.state_dir, locs.claude_dir, locs.data_dir) == (
        Path("/events"),
        Path("/claude"),
        Path("/data"),
    )
    assert locs.repos == (Path("/r1"), Path("/r2"))


def test_it_prefers_the_core_projection_when_it_is_a_directory(tmp_path):
    (tmp_path / ".claude" / "hooks" / "ways").mkdir(parents=True)
    assert locations.resolve({"HOME": str(tmp_path)}).core_ways == tmp_path / ".claude" / "hooks" / "ways"


def test_it_points_the_demo_at_the_bundled_sample_but_keeps_the_data_dir():
    locs = locations.resolve({"HOME": "/h", "XDG_STATE_HOME": "/s"}, demo=True)
    assert locs.home == locations.SAMPLE_HOME and locs.demo
    assert locs.state_dir == locations.SAMPLE_HOME / ".local/state/agent-ways"
    assert locs.data_dir == Path("/h/.local/share/waysweb")


def test_it_knows_when_there_is_no_agent_ways_data(tmp_path):
    locs = locations.resolve({"HOME": str(tmp_path)})
    assert not locs.has_agent_ways_data()
    locs.state_dir.mkdir(parents=True)
    (locs.state_dir / "events-2026-01-01.jsonl.gz").write_bytes(b"")
    assert locs.has_agent_ways_data()


def test_claude_code_transcripts_alone_are_the_users_data(tmp_path):
    locs = locations.resolve({"HOME": str(tmp_path)})
    assert not locs.has_transcripts() and not locs.has_user_data()
    project = locs.projects_dir / "-home-dev-app"
    (project / "s1" / "subagents").mkdir(parents=True)  # a session folder is not a transcript
    (project / "notes.txt").write_text("")
    assert not locs.has_transcripts()
    (project / "s1.jsonl").write_bytes(b"")
    assert locs.has_transcripts() and locs.has_user_data() and not locs.has_agent_ways_data()


def test_it_looks_into_a_bounded_number_of_project_folders(tmp_path):
    locs = locations.resolve({"HOME": str(tmp_path)})
    for n in range(5):
        (locs.projects_dir / f"-p{n}").mkdir(parents=True)
    (locs.projects_dir / "-p4" / "s.jsonl").write_bytes(b"")
    assert locs.has_transcripts(max_folders=5) and not locs.has_transcripts(max_folders=4)


def test_claude_config_dir_may_list_several_directories_separated_by_commas():
    locs = locations.resolve({"HOME": "/h", "CLAUDE_CONFIG_DIR": "/work/claude, /home/me/.claude,,"})
    assert locs.claude_dir == Path("/work/claude")  # hooks and the ledger: the first one named
    assert locs.projects_dirs == (Path("/work/claude/projects"), Path("/home/me/.claude/projects"))
    assert locs.legacy_logs == (
        (Path("/work/claude"), Path("/work/claude/stats/events.jsonl")),
        (Path("/home/me/.claude"), Path("/home/me/.claude/stats/events.jsonl")),
    )


def test_unset_it_reads_the_claude_folder_and_the_newer_config_claude_folder():
    assert locations.resolve({"HOME": "/h"}).projects_dirs == (
        Path("/h/.claude/projects"),
        Path("/h/.config/claude/projects"),
    )
    assert locations.resolve({"HOME": "/h", "XDG_CONFIG_HOME": "/c"}).projects_dirs == (
        Path("/h/.claude/projects"),
        Path("/c/claude/projects"),
    )


def test_waysweb_claude_dir_names_exactly_one_directory():
    locs = locations.resolve({"HOME": "/h", "WAYSWEB_CLAUDE_DIR": "/claude", "CLAUDE_CONFIG_DIR": "/a,/b"})
    assert locs.projects_dirs == (Path("/claude/projects"),)


def test_a_directory_named_twice_or_linked_to_another_is_read_once(tmp_path):
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".config").mkdir()
    (tmp_path / ".config" / "claude").symlink_to(tmp_path / ".claude")
    assert locations.resolve({"HOME": str(tmp_path)}).projects_dirs == (tmp_path / ".claude" / "projects",)
    twice = locations.resolve({"HOME": "/h", "CLAUDE_CONFIG_DIR": "/a,/b,/a/"})
    assert twice.projects_dirs == (Path("/a/projects"), Path("/b/projects"))


def test_transcripts_or_a_legacy_log_in_any_claude_directory_are_the_users_data(tmp_path):
    first, second = tmp_path / "first", tmp_path / "second"
    locs = locations.resolve({"HOME": str(tmp_path), "CLAUDE_CONFIG_DIR": f"{first},{second}"})
    assert not locs.has_user_data()
    (second / "projects" / "-home-dev-app").mkdir(parents=True)
    (second / "projects" / "-home-dev-app" / "s1.jsonl").write_bytes(b"")
    assert locs.has_transcripts()
    legacy_only = locations.resolve({"HOME": str(tmp_path), "CLAUDE_CONFIG_DIR": f"{tmp_path / 'x'},{first}"})
    (first / "stats").mkdir(parents=True)
    (first / "stats" / "events.jsonl").write_bytes(b"")
    assert legacy_only.has_agent_ways_data()


def test_newer_claude_codes_config_claude_projects_is_read_when_it_exists(tmp_path):
    locs = locations.resolve({"HOME": str(tmp_path)})
    (tmp_path / ".config" / "claude" / "projects" / "-p").mkdir(parents=True)
    (tmp_path / ".config" / "claude" / "projects" / "-p" / "s.jsonl").write_bytes(b"")
    assert locs.has_transcripts() and not (tmp_path / ".claude").exists()
