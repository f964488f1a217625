"""The watcher tells a follower which logs and transcripts changed, and the follower falls back to
polling, saying so, when inotify cannot watch."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from introspect.importer import watch
from introspect.importer.run import Options, PassResult
from lib import locations
from tests.conftest import append

WAIT = 10.0  # generous: a change is told within milliseconds, a loaded CI machine may take longer


def changed_within(watcher: watch.Watcher, wait: float = WAIT) -> set[Path]:
    """Everything the watcher tells until it has been quiet a moment (one change can come in two
    reports, as the kernel's events arrive)."""
    found: set[Path] = set()
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        got = watcher.changed(0.3 if found else deadline - time.monotonic(), lambda: False)
        if not got and found:
            break
        found |= got
    return found


@pytest.fixture
def layout(home):
    """The folders agent-ways and Claude Code keep, made, and the roots a follower watches in them."""
    home.projects = home.root / ".claude" / "projects"
    (home.projects / "-home-dev-app").mkdir(parents=True)
    home.state.mkdir(parents=True)
    home.legacy.parent.mkdir(parents=True)
    return home


def roots_of(home, **options) -> watch.Roots:
    return watch.roots(locations.resolve({"HOME": str(home.root)}), Options(**options))


@pytest.fixture
def watcher(layout):
    watching = watch.Watcher(roots_of(layout))
    yield watching
    watching.close()


def test_it_tells_of_an_appended_log_and_transcript_and_of_a_created_one(layout, watcher):
    transcript = append(layout.projects / "-home-dev-app" / "s1.jsonl", b"{}\n")
    assert changed_within(watcher) == {transcript}

    append(transcript, b"{}\n")
    append(layout.live, b"{}\n")
    assert changed_within(watcher) == {transcript, layout.live}

    subagent = layout.projects / "-home-dev-app" / "s1" / "subagents" / "agent-a1.jsonl"
    append(subagent, b"{}\n")  # a session folder made, then a file deep inside it
    told = changed_within(watcher)
    assert layout.projects / "-home-dev-app" / "s1" in told  # a new folder: the follower lists again

    archive = layout.state / "events-2026-11-30.jsonl.gz"
    append(archive, b"")
    append(layout.legacy, b"{}\n")
    assert changed_within(watcher) == {archive, layout.legacy}


def test_it_tells_of_a_log_named_on_the_command_line_beside_the_ones_it_found(layout, tmp_path):
    named = tmp_path / "logs" / "more.jsonl"
    named.parent.mkdir()
    watching = watch.Watcher(roots_of(layout, extra=(named,)))
    try:
        append(named, b"{}\n")
        append(named.parent / "other.jsonl", b"{}\n")  # not a log it reads
        assert changed_within(watching) == {named}
        append(layout.live, b"{}\n")
        append(named, b"{}\n")
        assert changed_within(watching) == {named, layout.live}
    finally:
        watching.close()


def test_it_leaves_out_what_agent_ways_and_claude_code_keep_beside_the_logs(layout, watcher):
    for name in ("decisions.compact.lock", "events.compact.lock", "events-preserved-1.jsonl.gz"):
        append(layout.state / name, b"{}\n")
    append(layout.state / "subagent-switch" / "s1", b"x")
    append(layout.legacy.parent / "other.json", b"{}")
    append(layout.projects / "-home-dev-app" / "notes.txt", b"not a transcript")
    append(layout.live, b"{}\n")  # last: once it is told, everything before it was seen
    assert changed_within(watcher) == {layout.live}


def test_it_tells_of_the_decision_log_and_its_archives(layout, watcher):
    live, archive = layout.state / "decisions.jsonl", layout.state / "decisions-2026-11-01.jsonl.gz"
    append(live, b"{}\n")
    append(archive, b"x")
    assert changed_within(watcher) == {live, archive}


def test_a_wait_with_nothing_changed_ends_at_its_timeout_or_as_soon_as_stop_is_asked(watcher):
    started = time.monotonic()
    assert watcher.changed(0.2, lambda: False) == frozenset()
    assert watcher.changed(WAIT, lambda: True) == frozenset()
    assert time.monotonic() - started < WAIT


def test_it_watches_the_folders_that_exist_and_the_logs_named_on_the_command_line(home, tmp_path):
    assert not roots_of(home)  # a HOME with nothing in it yet
    home.state.mkdir(parents=True)
    (home.root / ".claude" / "projects").mkdir(parents=True)
    elsewhere = tmp_path / "logs"
    elsewhere.mkdir()
    (tmp_path / "link").symlink_to(elsewhere)

    found = roots_of(home, extra=(tmp_path / "link" / "more.jsonl",))

    assert found.trees == (home.root / ".claude" / "projects",)
    assert [(folder.path, folder.names, folder.own) for folder in found.folders] == [
        (home.state, {"events.jsonl", "decisions.jsonl", "findings.jsonl"}, True),
        (elsewhere, {"more.jsonl"}, False),  # by its real path, as the importer names the source
    ]
    assert not roots_of(home, transcripts=False).trees


def test_a_follower_watches_a_folder_created_after_it_started_from_its_next_whole_pass(home):
    home.state.mkdir(parents=True)
    follow = watch.Follow(
        lambda: roots_of(home), interval=0.1, poll=False, stop=lambda: False, notice=pytest.fail
    )
    try:
        follow.before_whole_pass()
        assert follow.watcher.roots.trees == ()
        transcript = home.transcript("/home/dev/app", "s1")  # projects/ appears
        follow.before_whole_pass()
        append(transcript, b"{}\n")
        assert follow.next_pass(PassResult()) == {transcript}
    finally:
        follow.close()


def test_a_follower_reads_everything_every_whole_pass_interval_while_watching(layout, monkeypatch):
    monkeypatch.setattr(watch, "WHOLE_PASS_SECS", 0.3)
    follow = watch.Follow(
        lambda: roots_of(layout), interval=0.1, poll=False, stop=lambda: False, notice=pytest.fail
    )
    try:
        follow.before_whole_pass()
        assert follow.next_pass(PassResult()) is None  # nothing changed, yet a whole pass is due
    finally:
        follow.close()


class Refusing:
    """RustNotify when inotify's watches are used up (its message as notify words it)."""

    def __init__(self, paths, *args):
        raise OSError(
            f"OS file watch limit reached. about {paths} (Error {{ kind: MaxFilesWatch, paths: {paths} }})"
        )


def test_a_follower_polls_saying_so_once_when_it_cannot_watch(layout, monkeypatch):
    monkeypatch.setattr(watch, "RustNotify", Refusing)
    notices: list[str] = []
    follow = watch.Follow(
        lambda: roots_of(layout), interval=0.05, poll=False, stop=lambda: False, notice=notices.append
    )
    follow.before_whole_pass()
    follow.before_whole_pass()  # the same roots: not tried again

    assert not follow.watching
    [notice] = notices
    assert notice.startswith("not watching for changes (OS file watch limit reached. about [")
    assert notice.endswith("`sysctl fs.inotify.max_user_watches` raises it); polling every 0.05 s instead")
    append(layout.live, b"{}\n")
    assert follow.next_pass(PassResult()) is None  # a whole pass, after the interval


class Failing:
    """A notifier whose wait raises as RustNotify does when the notify crate reported an error."""

    def __init__(self, notifier):
        self.notifier = notifier

    def watch(self, *args):
        raise RuntimeError("error in underlying watcher: something went wrong")

    def close(self):
        self.notifier.close()


def test_a_follower_polls_when_the_notifier_fails_while_waiting(layout, monkeypatch):
    notices: list[str] = []
    follow = watch.Follow(
        lambda: roots_of(layout), interval=0.1, poll=False, stop=lambda: False, notice=notices.append
    )
    follow.before_whole_pass()

    monkeypatch.setattr(follow.watcher, "notifiers", [Failing(n) for n in follow.watcher.notifiers])
    assert follow.next_pass(PassResult()) is None
    assert not follow.watching and len(notices) == 1 and "something went wrong" in notices[0]


def test_poll_never_watches(layout):
    follow = watch.Follow(
        lambda: roots_of(layout), interval=0.05, poll=True, stop=lambda: False, notice=pytest.fail
    )
    follow.before_whole_pass()
    assert not follow.watching
    assert follow.next_pass(PassResult()) is None


def test_the_paths_it_tells_are_absolute_as_the_follower_knows_its_sources(layout, monkeypatch):
    monkeypatch.chdir(layout.root)
    relative = watch.roots(
        locations.resolve({"HOME": str(layout.root)}), Options(state_dir=Path(".local/state/agent-ways"))
    )
    watching = watch.Watcher(relative)
    try:
        append(layout.live, b"{}\n")
        assert changed_within(watching) == {Path(os.path.abspath(layout.live))}
    finally:
        watching.close()
