"""Which files changed, as inotify tells it: what a follower's next pass reads (run.Options.only).

A follower that polls stats every source on every poll (a 1,233-file tree: ~50 ms a poll, and an
append waits out the rest of the interval before it is read). Watching, it sleeps until the kernel
says that a file under a watched directory changed, then reads that file alone. The directories
watched are the event logs' folders (their log names only: agent-ways writes other files beside
them) and every Claude directory's `projects/` with everything below it, those that exist when a whole pass
starts; one created later (projects/ on a first Claude Code run) is watched from the next one.

inotify is not the whole truth: it misses changes made on another machine to a network
filesystem, and drops events when its queue overflows on a burst (watchfiles hides that: its Rust
side ignores notify's "rescan" event). So a whole pass still runs every `WHOLE_PASS_SECS`, and when
watching cannot start or fails (the `max_user_watches` limit, an unsupported filesystem, an error
from the notifier) the follower goes back to polling, saying so once on stderr. `--poll` asks for
polling from the start.
"""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from introspect.importer import discovery
from introspect.importer.errors import one_line
from introspect.importer.run import Options, PassResult, absolute, projects_dirs
from lib import safefs
from lib.locations import Locations

# The Rust backend watchfiles documents and its `watch()` generator wraps: two of them are waited
# on in turns here, each call with its own timeout, which the generator cannot do. Imported when
# the first watcher starts (notify_class): a single pass (`ingest` without --follow) watches nothing
# and skips watchfiles and anyio (tests/waysweb/management/test_ingest_start.py).
RustNotify = None

# watchfiles' own defaults (`watch()`: step 50 ms, debounce 1,600 ms) are for reloading a dev
# server, where waiting to group a save's many events is the point. Here every millisecond between
# an append and its pass is latency (issue 15: committed within 50 ms), and a pass takes few ms:
# - STEP_MS: how long the notifier sleeps between looks at what it collected; a change is reported
#   once a look finds nothing new since the last, so 1–2 steps after the write;
# - DEBOUNCE_MS: the longest a stream of changes (a writer appending without a pause) is grouped
#   before it is reported anyway.
STEP_MS = 5
DEBOUNCE_MS = 20
# The safety net: a whole pass this often, whatever the watcher says.
WHOLE_PASS_SECS = 30.0
LIVE_NAME = "events.jsonl"


class Unavailable(Exception):
    """Watching cannot start or stopped working; the message says why, in one line."""


@dataclass(frozen=True)
class Folder:
    """An event log's folder, watched for the names of the logs it can hold."""

    path: Path
    names: frozenset[str]
    archives: bool = False  # the state directory: `events-YYYY-MM-DD.jsonl.gz` too
    # agent-ways' and Claude Code's own small folders (found, not named on the command line) are
    # watched with the trees, in one notifier, whose wait is shorter than two taking turns; a
    # folder a log was named in may be $HOME, whose tree is not for watching.
    own: bool = False

    def holds(self, name: str) -> bool:
        return name in self.names or (
            self.archives
            and (discovery.archive_day(name) is not None or discovery.decision_archive_day(name) is not None)
        )


@dataclass(frozen=True)
class Roots:
    """What is watched, absolute: trees with everything below them, folders for their logs' names."""

    trees: tuple[Path, ...] = ()
    folders: tuple[Folder, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.trees or self.folders)

    def wanted(self, path: Path) -> bool:
        """Whether a change at `path` can concern a source: a transcript, a folder that may hold
        some, something deleted (it may have been either); never a tool output spilled beside them
        nor agent-ways' locks and markers."""
        if any(path.is_relative_to(tree) for tree in self.trees):
            return path.name.endswith(".jsonl") or not regular_file(path)
        return any(path.parent == folder.path and folder.holds(path.name) for folder in self.folders)


def regular_file(path: Path) -> bool:
    try:
        return stat.S_ISREG(os.stat(path, follow_symlinks=False).st_mode)
    except OSError:
        return False


def roots(locs: Locations, options: Options) -> Roots:
    """The directories to watch for the sources a pass with `options` reads, those that exist now
    (named as discovery.event_sources and transcript_sources name the files inside them)."""
    folders: dict[Path, Folder] = {}

    def add(directory: Path, name: str, *, archives: bool = False, own: bool = False) -> None:
        directory = absolute(directory)
        if not safefs.is_dir(directory):
            return
        had = folders.get(directory, Folder(directory, frozenset(), own=True))
        folders[directory] = Folder(directory, had.names | {name}, had.archives or archives, had.own and own)

    add(options.state_dir or locs.state_dir, LIVE_NAME, archives=True, own=options.state_dir is None)
    add(
        options.state_dir or locs.state_dir,
        discovery.DECISIONS_LIVE,
        archives=True,
        own=options.state_dir is None,
    )
    add(options.state_dir or locs.state_dir, discovery.FINDINGS_LIVE, own=options.state_dir is None)
    if options.legacy is not None:
        legacy = safefs.real(options.legacy)
        add(legacy.parent, legacy.name, own=False)
    else:
        for _, log in locs.legacy_logs:
            add(log.parent, log.name, own=True)
    for path in options.extra:
        named = safefs.real(path)
        add(named.parent, named.name)
    trees: tuple[Path, ...] = ()
    if options.transcripts:
        every = (absolute(projects) for projects in projects_dirs(locs, options))
        trees = tuple(projects for projects in every if safefs.is_dir(projects))
    return Roots(trees, tuple(folders.values()))


def reason(exc: BaseException) -> str:
    """Why watching failed, in a line: notify's message without the debug dump RustNotify adds
    (`… (Error { kind: MaxFilesWatch, paths: [...] })`), and the remedy for the watch limit."""
    text = one_line(exc).split(" (Error {", 1)[0]
    if "watch limit" in text:
        text += "; `sysctl fs.inotify.max_user_watches` raises it"
    return text


class StopEvent:
    """What RustNotify asks on every step (its `stop_event`): whether the follower is stopping."""

    def __init__(self, stop: Callable[[], bool]):
        self.stop = stop

    def is_set(self) -> bool:
        return self.stop()


def notify_class():
    """watchfiles' RustNotify, imported on first use (or the stand-in a test put in its place)."""
    global RustNotify
    if RustNotify is None:
        from watchfiles._rust_notify import RustNotify
    return RustNotify


class Watcher:
    """inotify on `roots` through watchfiles' RustNotify (the Rust `notify` crate); `Unavailable`
    when it cannot start. Changes are collected from the start, between calls of `changed` too."""

    def __init__(self, roots: Roots):
        self.roots = roots
        self.notifiers: list = []  # RustNotify
        # The trees and our own folders recursively, the folders of logs named on the command line
        # not. ignore_permission_denied: an unreadable folder below projects/ is left out (the
        # passes report it as not read), not a reason to stop watching the rest.
        below = [str(tree) for tree in roots.trees] + [str(f.path) for f in roots.folders if f.own]
        wanted = [(below, True), ([str(f.path) for f in roots.folders if not f.own], False)]
        notify = notify_class()
        try:
            for paths, recursive in wanted:
                if paths:
                    self.notifiers.append(notify(paths, False, False, 0, recursive, True))
        except (OSError, RuntimeError) as exc:  # the watch limit, a folder gone since, notify's own
            self.close()
            raise Unavailable(reason(exc)) from exc
        # Without inotify (ENOSYS) RustNotify quietly stats the whole tree on a timer instead:
        # polling as `--poll` does (its listings cached) is cheaper.
        if any(repr(notifier).startswith("RustNotify(Poll") for notifier in self.notifiers):
            self.close()
            raise Unavailable("inotify is not available on this system")

    def changed(self, timeout: float, stop: Callable[[], bool]) -> frozenset[Path]:
        """The paths that changed (`Roots.wanted`), waiting up to `timeout` s for the first; empty
        after the timeout or once `stop()` is true (asked every step, signal handlers run meanwhile)."""
        deadline = time.monotonic() + timeout
        event = StopEvent(stop)
        found: set[Path] = set()
        while True:
            left_ms = max(1, int((deadline - time.monotonic()) * 1000))
            for notifier in self.notifiers:
                # One notifier waits out the whole timeout; two take turns, a step each.
                wait_ms = left_ms if len(self.notifiers) == 1 else STEP_MS
                try:
                    got = notifier.watch(DEBOUNCE_MS, STEP_MS, wait_ms, event)
                except RuntimeError as exc:  # WatchfilesRustInternalError: the notifier failed
                    raise Unavailable(reason(exc)) from exc
                if got == "signal":  # a signal handler raised (Ctrl-C without ingest's handler)
                    raise KeyboardInterrupt
                if isinstance(got, set):
                    found.update(path for _, raw in got if self.roots.wanted(path := Path(raw)))
            if not self.notifiers:  # nothing exists to watch yet: look at stop() now and then
                time.sleep(min(left_ms / 1000, 0.1))
            if found or stop() or time.monotonic() >= deadline:
                return frozenset(found)

    def close(self) -> None:
        for notifier in self.notifiers:
            notifier.close()
        self.notifiers = []


class Follow:
    """What each pass of `ingest --follow` reads: the paths that changed while watching, every
    source (None) on the first pass, every `WHOLE_PASS_SECS` and whenever watching is not possible."""

    def __init__(
        self,
        find_roots: Callable[[], Roots],
        *,
        interval: float,
        poll: bool,
        stop: Callable[[], bool],
        notice: Callable[[str], None],
    ):
        self.find_roots = find_roots
        self.interval = interval
        self.poll = poll  # --poll: never watch
        self.stop = stop
        self.notice = notice
        self.watcher: Watcher | None = None
        self.failed: Roots | None = None  # the roots watching failed on: polling until they change
        self.due = 0.0  # when the next whole pass is (time.monotonic)

    @property
    def watching(self) -> bool:
        return self.watcher is not None

    def before_whole_pass(self) -> None:
        """Watch the roots that exist now before the pass lists them: a change made while it reads
        is told after it, and a root created since the last whole pass (projects/) is watched."""
        self.due = time.monotonic() + WHOLE_PASS_SECS
        if self.poll:
            return
        found = self.find_roots()
        if (self.watcher is not None and self.watcher.roots == found) or found == self.failed:
            return
        self.close()
        try:
            self.watcher = Watcher(found)
        except Unavailable as exc:
            self.fall_back(found, str(exc))

    def next_pass(self, result: PassResult) -> frozenset[Path] | None:
        """Wait for what the next pass reads: the paths that changed, or None for a whole pass.

        Polling, that is after `interval` when the last pass found nothing, at once otherwise.
        Watching, it is as soon as a source changes, or at the next whole pass; the wait ends
        (returning None) within a step of `stop()` turning true."""
        if result.whole:
            self.due = time.monotonic() + WHOLE_PASS_SECS  # a restricted pass that read everything
        if self.watcher is None:
            if not result.found:
                time.sleep(self.interval)
            return None
        while not self.stop():
            left = self.due - time.monotonic()
            if left <= 0:
                return None
            try:
                changed = self.watcher.changed(min(self.interval, left), self.stop)
            except Unavailable as exc:
                self.fall_back(self.watcher.roots, str(exc))
                return None  # what it had not told yet is read by a whole pass
            if changed:
                return changed
        return None

    def fall_back(self, roots: Roots, why: str) -> None:
        self.close()
        self.failed = roots
        self.notice(f"not watching for changes ({why}); polling every {self.interval:g} s instead")

    def close(self) -> None:
        if self.watcher is not None:
            self.watcher.close()
            self.watcher = None
