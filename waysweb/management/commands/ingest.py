"""`manage.py ingest`: import agent-ways events and way files, once or following new lines."""

from __future__ import annotations

import contextlib
import dataclasses
import signal
import time
from collections.abc import Iterator
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.db import DatabaseError, OperationalError, connection

from introspect.derive import sessions
from introspect.importer import batch, deferred_indexes, discovery, health, heartbeat, loader, watch
from introspect.importer.errors import caused_by_content, described, explain, is_locked, one_line, printable
from introspect.importer.lock import ImporterBusy, importer_lock
from introspect.importer.progress import Snapshot
from introspect.importer.run import FAILED, Options, PassResult
from lib import safefs, streams
from lib.locations import Locations
from waysweb import passes
from waysweb.progress_bar import Bar, clock, mib

PROGRESS_EVERY_SECS = 1.0
LOCKED_RETRIES = 3  # a single pass waits out another writer this many times (each after the busy timeout)
RETRY_SECS = 2.0
SHOW_PROBLEMS = 10
WAYS_EVERY_SECS = 30.0


class Command(BaseCommand):
    help = (
        "Import agent-ways events (live log, archives, legacy log), Claude Code transcripts and way files "
        "into the database."
    )
    # No system checks (`serve` and `migrate` run them): Django's SQLite JSON probe opens a write
    # transaction (transaction_mode IMMEDIATE), so while another writer held the database past the
    # busy timeout, the importer died at start with a false "SQLite does not support JSONFields".
    requires_system_checks = ()

    def add_arguments(self, parser):
        parser.add_argument(
            "--follow",
            action="store_true",
            help="keep following: told of changed files by inotify, new lines land within tens of ms",
        )
        parser.add_argument(
            "--interval",
            type=float,
            default=0.5,
            help="seconds to sleep when a pass found nothing while polling (--poll, or where inotify "
            "cannot watch)",
        )
        parser.add_argument(
            "--poll",
            action="store_true",
            help="with --follow, stat every file on each poll instead of being told of changes by "
            "inotify (which misses what another machine writes to a network filesystem; a whole pass "
            "every 30 s catches that too, later)",
        )
        parser.add_argument(
            "--state-dir", type=Path, help="agent-ways state directory (events.jsonl + archives)"
        )
        parser.add_argument(
            "--legacy", type=Path, help="legacy events log (default ~/.claude/stats/events.jsonl)"
        )
        parser.add_argument(
            "--events",
            type=Path,
            action="append",
            default=[],
            help="an extra events log to import (repeatable)",
        )
        parser.add_argument(
            "--claude-dir", type=Path, help="Claude Code directory holding projects/ (default ~/.claude)"
        )
        parser.add_argument("--no-transcripts", action="store_true", help="skip Claude Code transcripts")
        parser.add_argument(
            "--user-ways", type=Path, help="user way root (default ~/.config/agent-ways/ways)"
        )
        parser.add_argument("--core-ways", type=Path, help="core way root (default ~/.claude/hooks/ways)")
        parser.add_argument("--no-ways", action="store_true", help="skip the way catalog")
        parser.add_argument(
            "--ignore-checkpoints",
            action="store_true",
            help="re-read every file from the start (writes no new rows)",
        )
        parser.add_argument(
            "--verify",
            action="store_true",
            help="hash every imported line again: a file rewritten in place without changing "
            "its size is read again as a new generation",
        )

    def handle(self, *args, follow: bool, interval: float, poll: bool, **options) -> None:
        if interval <= 0:
            raise CommandError("--interval must be positive")
        # `ingest | head`, or `serve | head -1` (its importer writes to the same pipe): with the
        # reader gone every report raised, and each pass failed on it.
        streams.outlive_reader(self.stdout)
        streams.outlive_reader(self.stderr)
        self.stopping = False
        self.verbosity = options["verbosity"]
        self.last_progress = 0.0
        self.reported: set = set()
        self.bar: Bar | None = None
        self.bar_started = 0.0
        opts = pass_options(options, follow=follow)
        locs = settings.WAYSWEB_LOCATIONS
        # Which files each pass of a follower reads: those inotify says changed (watch.py), or all.
        changes = watch.Follow(
            lambda: watch.roots(locs, opts),
            interval=interval,
            poll=poll,
            stop=lambda: self.stopping,
            notice=self.stderr.write,
        )
        handlers = {}
        if follow:
            handlers = {sig: signal.signal(sig, self.on_signal) for sig in (signal.SIGTERM, signal.SIGINT)}
        try:
            with self.importer_run(follow=follow) as beat:
                self.describe(locs, opts, follow)
                follower = Follower(self, locs, opts, changes, beat, follow=follow)
                while True:
                    follower.run_once()
                    if follower.over:
                        break
                    follower.wait()
                    if self.stopping:
                        break
        finally:
            changes.close()
            self.close_bar()  # Ctrl-C in a single pass too: the terminal gets its cursor back
            for sig, handler in handlers.items():  # a caller's own (a test's, a shell's) again
                signal.signal(sig, handler)

    @contextlib.contextmanager
    def importer_run(self, *, follow: bool) -> Iterator[heartbeat.Heartbeat]:
        """The importer lock held and the heartbeat kept for the run inside; an error that ends it
        said on the Import status page and as a CommandError."""
        beat = None
        try:
            self.check_database()
            with importer_lock():
                # Only once the lock is ours: a second importer refused must not speak for the first.
                beat = heartbeat.Heartbeat(follow=follow)
                beat.started()
                # Indexes a cold load left out and a kill kept it from building (deferred_indexes.py).
                deferred_indexes.restore()
                yield beat
        except ImporterBusy as exc:
            raise CommandError(
                f"{exc}. Only one importer runs at a time; stop the other one "
                "(or let `manage.py serve` do the importing)."
            ) from exc
        except (DatabaseError, batch.CheckpointMoved, OSError) as exc:
            message = explain(exc)
            health.record(message)
            if beat is not None:
                beat.stopped(message)
            raise CommandError(message) from exc
        except Exception as exc:
            if beat is not None:
                beat.stopped(f"{type(exc).__name__}: {one_line(exc)}")  # a crash: the page says so
            raise
        finally:
            if beat is not None:
                beat.stopped()  # a clean end (or Ctrl-C); an error above has already said so

    def check_database(self) -> None:
        """Refuse a SQLite database file that is not there: connecting would create an empty one."""
        if connection.vendor != "sqlite" or connection.is_in_memory_db():
            return
        path = Path(connection.settings_dict["NAME"])
        if not path.exists():
            raise CommandError(
                f"there is no database at {path} (deleted, or never created): run "
                "`manage.py migrate` (or `manage.py serve`, which migrates) to create it, then "
                "ingest again; every file is read again from its start."
            )

    def on_signal(self, signum, frame) -> None:
        self.stopping = True

    def describe(self, locs, opts: Options, follow: bool) -> None:
        if self.verbosity < 1 or (follow and self.verbosity < 2):
            return
        state = opts.state_dir or locs.state_dir
        self.stdout.write(
            f"Reading agent-ways events from {state} and "
            f"{opts.legacy or ' and '.join(str(log) for _, log in locs.legacy_logs)}"
            + (" (bundled sample)" if locs.demo else "")
        )

    def say(self, text: str) -> None:
        """A line of output, printed above the progress bar while one is drawn."""
        if self.bar is not None:
            self.bar.say(text)
        else:
            self.stdout.write(text)

    def draw_progress(self, snap: Snapshot) -> None:
        """A bar for a long pass, on a terminal only: a file or a pipe keeps the plain lines."""
        if self.verbosity < 1 or not self.stdout.isatty():
            return
        if snap.deriving:
            self.draw_deriving(snap)
            return
        files = f"{snap.files_done:,}/{snap.files_total:,} files"
        if self.bar is None and not snap.finished:
            # The stream under the command's OutputWrapper (which would end every write with a
            # newline and break the bar's redraws), not sys.stdout: tests and `serve` pass their own.
            self.bar = Bar(self.stdout._out, "Importing")
        if self.bar is None:
            return
        self.bar.update(
            snap.fraction,
            f"{snap.percent:3d}%",
            f"{mib(snap.bytes_done)}/{mib(snap.bytes_total)} MiB",
            f"{mib(snap.rate)} MiB/s",
            files,
            clock(snap.seconds_left),
        )
        if snap.finished:
            self.close_bar()

    def draw_deriving(self, snap: Snapshot) -> None:
        """The sessions a long pass puts together after reading: a bar of its own, closed at the end."""
        if self.bar is None:
            self.bar = Bar(self.stdout._out, "Putting sessions together")
            self.bar_started = time.monotonic()
        done, total = snap.sessions_done, snap.sessions_total
        spent = time.monotonic() - self.bar_started
        left = spent * (total - done) / done if done else None
        self.bar.update(done / total if total else 1.0, f"{done:,}/{total:,}", clock(left))
        if done >= total:
            self.close_bar()

    def close_bar(self) -> None:
        if self.bar is not None:
            self.bar.stop()
            self.bar = None

    def report_file(self, file: loader.FileResult) -> None:
        c = file.counts
        if self.verbosity < 1 or (file.status == "unchanged" and self.verbosity < 2):
            return
        name = printable(str(file.source.path))
        if file.status == "gone":
            self.say(f"  {file.source.kind} {name}: gone upstream; its rows are kept")
            return
        if file.status in ("skipped", FAILED) and file.problem is not None:
            if file.status == FAILED:
                if file.problem in self.reported:
                    return  # read again on every pass while it fails: said once per run
                self.reported.add(file.problem)
            detail = f" ({printable(file.problem.detail)})" if file.problem.detail else ""
            self.stderr.write(
                f"  {file.source.kind} {name}: {file.problem.label}{detail}; the other files go on"
            )
            return
        note = " (new generation: truncated or replaced)" if file.status == "new generation" else ""
        self.say(
            f"  {file.source.kind} {name}: +{c.imported} rows, {c.quarantined} quarantined, "
            f"{c.inert} inert, {c.duplicate} dup{note}"
        )

    def report_progress(self, file: loader.FileResult, offset: int, size: int) -> None:
        now = time.monotonic()
        if self.verbosity < 1 or now - self.last_progress < PROGRESS_EVERY_SECS or offset >= size:
            return
        if self.bar is not None:
            return  # the bar says it
        self.last_progress = now
        self.stdout.write(
            f"  … {printable(file.source.rel_path)}: {offset / 2**20:.1f} of {size / 2**20:.1f} MiB, "
            f"{file.counts.lines:,} lines"
        )

    def report_ledger(self, ledger) -> None:
        if self.verbosity < 1:
            return
        e, k = ledger.entries, ledger.knowledge
        failed = [event for event in ledger.derived if event.kind == "derive.failed"]
        self.stdout.write(
            f"Ledger: {e.files} entries (+{e.added} new, {e.changed} changed, {e.quarantined} quarantined); "
            f"majordomus ledger +{ledger.mj_lines} lines; knowledge: {k.files} records (+{k.added} new, "
            f"{k.changed} changed); decision records: {ledger.adrs.files} files (+{ledger.adrs.added} new, "
            f"{ledger.adrs.changed} changed); derived at {len(ledger.derived)} episode boundaries"
            + (f", {len(failed)} FAILED (see the Knowledge page)" if failed else "")
        )
        self.report_problems(ledger.problems)

    def report_pass(self, result: PassResult) -> None:
        if self.verbosity < 1:
            return
        t = result.totals
        ways = ""
        if result.catalog is not None:
            c = result.catalog
            ways = f"; ways: {c.files} files in {c.roots} roots (+{c.added} new, {c.changed} changed, {c.gone} gone)"
        self.stdout.write(
            self.style.SUCCESS(
                f"Imported {len(result.files)} files: {t.lines:,} lines, {t.imported:,} imported, "
                f"{t.quarantined:,} quarantined, {t.inert:,} inert, {t.duplicate:,} duplicates, "
                f"{len(result.sessions)} sessions updated in {result.seconds:.2f} s{ways}"
            )
        )
        if result.prepared is not None:
            ahead = result.prepared
            self.stdout.write(
                f"  prepared by a second process: {ahead.taken:,} batches, {ahead.cpu:.1f} CPU s; "
                f"the writer waited for it {ahead.waited:.1f} s"
                + (f" and derived settled sessions {ahead.idled:.1f} s meanwhile" if ahead.idled else "")
            )
        if result.indexes_built:
            self.stdout.write(
                f"  the events' indexes, left out while the table filled, built in {result.indexes_built:.1f} s"
                + (
                    f"; {result.repeats:,} of its lines repeated a stored event and are counted duplicates"
                    if result.repeats
                    else ""
                )
            )
        if result.planned is not None:
            count, cpu, waited = result.planned
            self.stdout.write(
                f"  planned by a second process: the derived rows of {count:,} session{pluralize(count)}, "
                f"{cpu:.1f} CPU s; the writer waited for it {waited:.1f} s"
            )
        if result.failed:
            self.stderr.write(
                self.style.WARNING(
                    f"  {len(result.failed)} file{pluralize(len(result.failed))} could not be imported (each named "
                    "above, and under Not read on the Import status page): every other file was; the pass goes on"
                )
            )
        self.report_underived(result.underived)
        unread = [problem for problem in result.problems if problem.reason != safefs.IMPORT_FAILED]
        if result.catalog is not None:
            unread += result.catalog.problems
        self.report_problems(unread)

    def report_underived(self, failed: dict[str, str]) -> None:
        """Sessions whose rows could not be derived: each named once per run, with why."""
        fresh = {sid: why for sid, why in failed.items() if ("derive", sid, why) not in self.reported}
        self.reported.update(("derive", sid, why) for sid, why in fresh.items())
        for sid, why in list(fresh.items())[:SHOW_PROBLEMS]:
            self.stderr.write(
                f"  session {printable(sid)} could not be derived ({printable(why)}); its rows are imported"
            )
        if len(fresh) > SHOW_PROBLEMS:
            self.stderr.write(
                f"  … and {len(fresh) - SHOW_PROBLEMS:,} more sessions: see Not read on the Import status page"
            )

    def report_problems(self, found: list) -> None:
        """Paths not read, each once per run (a --follow loop would repeat them every poll)."""
        fresh = [problem for problem in found if problem not in self.reported]
        self.reported.update(fresh)
        for problem in fresh[:SHOW_PROBLEMS]:
            detail = f" ({printable(problem.detail)})" if problem.detail else ""
            self.stderr.write(f"  not read: {printable(problem.path)}: {problem.label}{detail}")
        if len(fresh) > SHOW_PROBLEMS:
            self.stderr.write(
                f"  … and {len(fresh) - SHOW_PROBLEMS:,} more paths not read: see the Import status page"
            )


class Follower:
    """The passes of one run (healthchecks' sendalerts shape): `run_once()` is one pass and says
    whether it found work; `wait()` waits for the next one. A pass that fails is retried in
    --follow mode, and once a locked database was waited out a few times; otherwise the error ends
    the command (nothing is half-written: every batch commits its rows and checkpoint together)."""

    def __init__(
        self,
        command: Command,
        locs: Locations,
        opts: Options,
        changes: watch.Follow,
        beat: heartbeat.Heartbeat,
        *,
        follow: bool,
    ):
        self.command, self.locs, self.opts, self.changes, self.beat = command, locs, opts, changes, beat
        self.follow = follow
        self.first = True
        self.last_ways = -WAYS_EVERY_SECS
        self.only: frozenset[Path] | None = None  # the files the next pass reads; None for all
        self.result: PassResult | None = None  # the last pass's, None when it failed
        self.catch_up = True  # a run killed or failed before its rebuild left sessions behind
        self.retries_left = LOCKED_RETRIES
        self.ledger_error = ""

    @property
    def over(self) -> bool:
        """Asked to stop, or (without --follow) the one pass done."""
        return self.command.stopping or (self.result is not None and not self.follow)

    def run_once(self) -> bool:
        """One pass (of every source, or of the files that changed since the last); True when it
        found work."""
        if self.follow and self.only is None:
            self.changes.before_whole_pass()
        # The way roots change rarely: rescan them on a whole pass every 30 s, not on every poll.
        started = time.monotonic()
        scan_ways = self.opts.ways and self.only is None and started - self.last_ways >= WAYS_EVERY_SECS
        result = self.result = self.import_once(
            dataclasses.replace(self.opts, only=self.only), scan_ways=scan_ways
        )
        failure = health.last_failure() if result is None else None
        self.beat.after_pass(
            found=result is not None and result.found,
            error=failure["message"] if failure is not None else self.ledger_error,
            left=left_behind(result) if result is not None else self.beat.left,
        )
        if result is None:
            self.only = None  # a failed pass, waited out: a whole one resumes from the checkpoints
            return False
        self.last_ways = started if scan_ways else self.last_ways
        self.first = False
        self.opts = dataclasses.replace(self.opts, verify=False)  # once per run, not on every poll
        return result.found

    def wait(self) -> None:
        """Until the next pass is due (watch.Follow says which files it reads); at once after a
        failed pass, which waited already."""
        if self.result is not None:
            self.only = self.changes.next_pass(self.result)

    def import_once(self, opts: Options, *, scan_ways: bool) -> PassResult | None:
        """One pass; None when it failed and is to be retried."""
        command, locs, follow = self.command, self.locs, self.follow
        pass_opts = Options(**{**opts.__dict__, "ways": scan_ways})
        try:
            if self.catch_up:
                command.report_underived(sessions.catch_up().failed)
                self.catch_up = False
            result = passes.sessions_pass(
                locs,
                pass_opts,
                on_file=command.report_file,
                progress=command.report_progress,
                record_only_changes=follow and not self.first,
                on_progress=command.draw_progress,
                stop=lambda: command.stopping,
                defer_indexes=not follow,
                plan_ahead=not follow,
            )
            # The ledger side (documents, derivation over every session) is heavier than a poll: in
            # --follow it runs when sessions changed, and with the way rescan otherwise; not once
            # asked to stop (Ctrl-C during a long first pass).
            wanted = not follow or self.first or result.found or scan_ways
            ledger = self.ledger_pass() if wanted and not command.stopping else None
        except (DatabaseError, OSError, batch.CheckpointMoved) as exc:
            command.close_bar()
            self.catch_up = True  # batches may have committed whose sessions were not rebuilt
            if follow:
                health.record(f"import pass failed ({one_line(exc)}); retrying")
                command.stderr.write(f"import pass failed ({one_line(exc)}); retrying")
            elif isinstance(exc, OperationalError) and is_locked(exc) and self.retries_left:
                self.retries_left -= 1
                command.stderr.write(
                    f"another writer holds the database ({one_line(exc)}); retrying in "
                    f"{RETRY_SECS:.0f} s, the checkpoints are unchanged until a batch commits"
                )
            else:
                raise
            time.sleep(RETRY_SECS)
            return None
        health.clear()
        if result.found or not follow:
            command.report_pass(result)
        if ledger is not None and (ledger.found or not follow):
            command.report_ledger(ledger)
        return result

    def ledger_pass(self):
        """The ledger's documents and knowledge; an error their content raised is reported and the
        pass goes on (the sessions are imported; the ledger is tried again on the next pass)."""
        try:
            ledger = passes.ledger_pass(self.locs)
        except Exception as exc:
            if not caused_by_content(exc):
                raise
            self.ledger_error = (
                f"the ledger pass failed ({described(exc)}); it is tried again on the next pass"
            )
            self.command.stderr.write(f"  {self.ledger_error}")
            return None
        self.ledger_error = ""
        return ledger


def pass_options(options: dict, *, follow: bool) -> Options:
    """What every pass of this run reads, from the command's options."""
    return Options(
        state_dir=options["state_dir"],
        legacy=options["legacy"],
        extra=tuple(options["events"]),
        user_ways=options["user_ways"],
        core_ways=options["core_ways"],
        ways=not options["no_ways"],
        claude_dir=options["claude_dir"],
        transcripts=not options["no_transcripts"],
        ignore_checkpoints=options["ignore_checkpoints"],
        verify=options["verify"],
        max_line=settings.WAYSWEB_MAX_LINE_BYTES,
        # Following, the project folders are listed again only when their directories change.
        listings=discovery.ListingCache() if follow else None,
    )


def pluralize(count: int) -> str:
    return "" if count == 1 else "s"


def left_behind(result: PassResult) -> str:
    """The heartbeat's note of what a pass could not import or derive (empty when it did it all)."""
    parts = []
    if result.failed:
        parts.append(f"{len(result.failed)} file{pluralize(len(result.failed))} could not be imported")
    if result.underived:
        parts.append(
            f"{len(result.underived)} session{pluralize(len(result.underived))} could not be derived"
        )
    return " and ".join(parts)
