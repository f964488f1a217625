"""`manage.py ingest`: import agent-ways events and way files, once or following new lines."""

from __future__ import annotations

import signal
import time
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.db import OperationalError

from introspect.importer import loader
from introspect.importer.lock import ImporterBusy, importer_lock
from introspect.importer.run import Options, PassResult, import_pass
from ledger.importer.run import import_pass as ledger_pass

PROGRESS_EVERY_SECS = 1.0


class Command(BaseCommand):
    help = ("Import agent-ways events (live log, archives, legacy log), Claude Code transcripts and way files "
            "into the database.")

    def add_arguments(self, parser):
        parser.add_argument("--follow", action="store_true", help="keep tailing; new lines land within a second")
        parser.add_argument("--interval", type=float, default=0.5, help="seconds to sleep when a pass found nothing")
        parser.add_argument("--state-dir", type=Path, help="agent-ways state directory (events.jsonl + archives)")
        parser.add_argument("--legacy", type=Path, help="legacy events log (default ~/.claude/stats/events.jsonl)")
        parser.add_argument("--events", type=Path, action="append", default=[],
                            help="an extra events log to import (repeatable)")
        parser.add_argument("--claude-dir", type=Path, help="Claude Code directory holding projects/ (default ~/.claude)")
        parser.add_argument("--no-transcripts", action="store_true", help="skip Claude Code transcripts")
        parser.add_argument("--user-ways", type=Path, help="user way root (default ~/.config/agent-ways/ways)")
        parser.add_argument("--core-ways", type=Path, help="core way root (default ~/.claude/hooks/ways)")
        parser.add_argument("--no-ways", action="store_true", help="skip the way catalog")
        parser.add_argument("--ignore-checkpoints", action="store_true",
                            help="re-read every file from the start (writes no new rows)")

    def handle(self, *args, follow: bool, interval: float, **options) -> None:
        if interval <= 0:
            raise CommandError("--interval must be positive")
        self.stopping = False
        self.verbosity = options["verbosity"]
        self.last_progress = 0.0
        opts = Options(
            state_dir=options["state_dir"], legacy=options["legacy"], extra=tuple(options["events"]),
            user_ways=options["user_ways"], core_ways=options["core_ways"], ways=not options["no_ways"],
            claude_dir=options["claude_dir"], transcripts=not options["no_transcripts"],
            ignore_checkpoints=options["ignore_checkpoints"], max_line=settings.WAYSWEB_MAX_LINE_BYTES,
        )
        locs = settings.WAYSWEB_LOCATIONS
        if follow:
            signal.signal(signal.SIGTERM, self.on_signal)
            signal.signal(signal.SIGINT, self.on_signal)
        try:
            with importer_lock():
                self.describe(locs, opts, follow)
                first = True
                last_ways = 0.0
                while True:
                    # The way roots change rarely: rescan them every 30 s, not on every poll.
                    scan_ways = opts.ways and (time.monotonic() - last_ways > 30)
                    result = self.import_once(locs, opts, scan_ways=scan_ways, follow=follow, first=first)
                    last_ways = time.monotonic() if scan_ways else last_ways
                    first = False
                    if not follow or self.stopping:
                        break
                    if not result.found:
                        time.sleep(interval)
        except ImporterBusy as exc:
            raise CommandError(f"{exc}. Only one importer runs at a time; stop the other one "
                               "(or let `manage.py serve` do the importing).") from exc

    def on_signal(self, signum, frame) -> None:
        self.stopping = True

    def import_once(self, locs, opts: Options, *, scan_ways: bool, follow: bool, first: bool) -> PassResult:
        """One pass; in --follow mode a locked database is waited out instead of ending the loop."""
        pass_opts = Options(**{**opts.__dict__, "ways": scan_ways})
        try:
            result = import_pass(locs, pass_opts, on_file=self.report_file, progress=self.report_progress,
                                 record_only_changes=follow and not first)
            # The ledger side (documents, derivation over every session) is heavier than a poll: in
            # --follow it runs when sessions changed, and with the way rescan otherwise.
            ledger = ledger_pass(locs) if (not follow or first or result.found or scan_ways) else None
        except (OperationalError, loader.CheckpointMoved) as exc:
            if not follow:
                raise CommandError(f"import failed, nothing half-written: {exc}") from exc
            self.stderr.write(f"import pass failed ({exc}); retrying")
            time.sleep(2)
            return PassResult()
        if result.found or not follow:
            self.report_pass(result)
        if ledger is not None and (ledger.found or not follow):
            self.report_ledger(ledger)
        return result

    def describe(self, locs, opts: Options, follow: bool) -> None:
        if self.verbosity < 1 or (follow and self.verbosity < 2):
            return
        state = opts.state_dir or locs.state_dir
        self.stdout.write(f"Reading agent-ways events from {state} and {opts.legacy or locs.legacy_events}"
                          + (" (bundled sample)" if locs.demo else ""))

    def report_file(self, file: loader.FileResult) -> None:
        c = file.counts
        if self.verbosity < 1 or (file.status == "unchanged" and self.verbosity < 2):
            return
        if file.status == "gone":
            self.stdout.write(f"  {file.source.kind} {file.source.path}: gone upstream; its rows are kept")
            return
        note = " (new generation: truncated or replaced)" if file.status == "new generation" else ""
        self.stdout.write(f"  {file.source.kind} {file.source.path}: +{c.imported} rows, {c.quarantined} quarantined, "
                          f"{c.inert} inert, {c.duplicate} dup{note}")

    def report_progress(self, file: loader.FileResult, offset: int, size: int) -> None:
        now = time.monotonic()
        if self.verbosity < 1 or now - self.last_progress < PROGRESS_EVERY_SECS or offset >= size:
            return
        self.last_progress = now
        self.stdout.write(f"  … {file.source.rel_path}: {offset / 2**20:.1f} of {size / 2**20:.1f} MiB, "
                          f"{file.counts.lines:,} lines")

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
            + (f", {len(failed)} FAILED (see the Knowledge page)" if failed else ""))

    def report_pass(self, result: PassResult) -> None:
        if self.verbosity < 1:
            return
        t = result.totals
        ways = ""
        if result.catalog is not None:
            c = result.catalog
            ways = f"; ways: {c.files} files in {c.roots} roots (+{c.added} new, {c.changed} changed, {c.gone} gone)"
        self.stdout.write(self.style.SUCCESS(
            f"Imported {len(result.files)} files: {t.lines:,} lines, {t.imported:,} imported, "
            f"{t.quarantined:,} quarantined, {t.inert:,} inert, {t.duplicate:,} duplicates, "
            f"{len(result.sessions)} sessions updated in {result.seconds:.2f} s{ways}"
        ))
