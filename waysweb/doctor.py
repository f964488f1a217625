"""`manage.py doctor`: what is wrong with this installation, and what to do about it.

Each check returns findings — ok, warn or fail — with the fix in the user's words. Checks only
read: the data, the files and the database are left as they were.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.db import DatabaseError, connections
from django.db.migrations.executor import MigrationExecutor
from django.db.models import Count, Max

from introspect.importer import discovery, health, heartbeat
from introspect.models import DeferredIndex, ImportRun, Quarantine, SourceFile, SourceProblem
from lib import safefs
from lib.locations import Locations

OK, WARN, FAIL = "ok", "warn", "fail"


@dataclass(frozen=True)
class Finding:
    level: str
    topic: str
    message: str
    fix: str = ""


def readable_dir(path: Path) -> bool:
    return safefs.is_dir(path) and os.access(path, os.R_OK | os.X_OK)


def check_sources(locs: Locations) -> Iterator[Finding]:
    """Where agent-ways and Claude Code write, and whether this user may read it."""
    events = discovery.event_sources(locs)
    if events:
        yield Finding(
            OK,
            "sources",
            f"{len(events)} agent-ways event logs under {locs.state_dir} and {locs.legacy_events.parent}",
        )
    elif locs.has_transcripts():
        yield Finding(
            OK,
            "sources",
            f"no agent-ways events log at {locs.live_events} or {locs.legacy_events}: "
            "`serve` shows your Claude Code transcripts under "
            f"{' and '.join(str(p) for p in locs.projects_dirs if readable_dir(p))}",
            "install agent-ways to also see which ways fired on each turn",
        )
    else:
        yield Finding(
            WARN,
            "sources",
            f"no agent-ways events log at {locs.live_events} or {locs.legacy_events}, "
            f"and no Claude Code transcripts under {locs.projects_dir}",
            "install agent-ways and run a Claude Code session, or point WAYSWEB_STATE_DIR at the "
            "directory holding events.jsonl",
        )
    readable = [projects for projects in locs.projects_dirs if readable_dir(projects)]
    for projects in readable:
        yield Finding(
            OK,
            "sources",
            f"{len(discovery.transcript_sources(projects))} Claude Code transcripts under {projects}",
        )
    if not readable:
        yield Finding(
            WARN,
            "sources",
            f"no readable Claude Code transcripts folder at {' or '.join(map(str, locs.projects_dirs))}",
            "set CLAUDE_CONFIG_DIR (several, comma-separated) or WAYSWEB_CLAUDE_DIR to the folder that "
            "holds projects/",
        )
    unreadable = [source.path for source in events if not os.access(source.path, os.R_OK)]
    for path in unreadable[:5]:
        yield Finding(
            FAIL,
            "permissions",
            f"cannot read {path}",
            f"give this user read access: chmod u+r {path} (or run waysweb as the file's owner)",
        )
    for repo in locs.repos:
        if not readable_dir(repo):
            yield Finding(
                WARN,
                "sources",
                f"WAYSWEB_REPOS names {repo}, which is not a readable directory",
                "fix or remove that entry of WAYSWEB_REPOS (colon-separated)",
            )


def check_storage(data_dir: Path, alias: str = "default") -> Iterator[Finding]:
    """The data directory and an SQLite database must be writable, its folder too (WAL files)."""
    if not data_dir.is_dir():
        yield Finding(
            FAIL,
            "permissions",
            f"the data directory {data_dir} does not exist",
            f"mkdir -p {data_dir}, or set WAYSWEB_DATA_DIR to a writable directory",
        )
    elif not os.access(data_dir, os.W_OK):
        yield Finding(
            FAIL,
            "permissions",
            f"the data directory {data_dir} is not writable",
            f"chmod u+w {data_dir}, or set WAYSWEB_DATA_DIR to a writable directory",
        )
    else:
        yield Finding(OK, "permissions", f"data directory {data_dir} is writable")
    connection = connections[alias]
    if connection.vendor == "sqlite" and not connection.is_in_memory_db():
        path = Path(connection.settings_dict["NAME"])
        folder = path.parent
        if path.exists() and not os.access(path, os.W_OK):
            yield Finding(
                FAIL,
                "permissions",
                f"the database file {path} is read-only",
                f"chmod u+w {path}; waysweb cannot import or record reviews until it is writable",
            )
        elif not os.access(folder, os.W_OK):
            yield Finding(
                FAIL,
                "permissions",
                f"the database's folder {folder} is not writable (SQLite needs it "
                "for its -wal and -shm files)",
                f"chmod u+w {folder}",
            )


def check_database(alias: str = "default") -> Iterator[Finding]:
    """Reachable, in WAL mode when it is SQLite, and migrated."""
    connection = connections[alias]
    try:
        connection.ensure_connection()
    except DatabaseError as exc:
        message = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        fix = (
            "start PostgreSQL and check WAYSWEB_DATABASE_URL (postgres://user@host:port/db)"
            if connection.vendor == "postgresql"
            else "check WAYSWEB_DATABASE_URL and the file's permissions"
        )
        yield Finding(FAIL, "database", f"cannot connect to the {connection.vendor} database: {message}", fix)
        return
    if connection.vendor == "sqlite" and connection.is_in_memory_db():
        yield Finding(OK, "database", "SQLite in memory (a test run)")
    elif connection.vendor == "sqlite":
        with connection.cursor() as cursor:
            mode = cursor.execute("PRAGMA journal_mode").fetchone()[0]
        if mode.lower() == "wal":
            yield Finding(OK, "database", f"SQLite at {connection.settings_dict['NAME']} in WAL mode")
        else:
            yield Finding(
                WARN,
                "database",
                f"SQLite journal mode is {mode}, not WAL: pages stall while importing",
                "check that the database file is on a local disk (WAL needs shared memory)",
            )
    else:
        version = getattr(connection, "pg_version", 0)
        yield Finding(
            OK,
            "database",
            f"{connection.display_name} {version // 10000}.{version % 10000} at "
            f"{connection.settings_dict['HOST'] or 'the local socket'}, "
            f"database {connection.settings_dict['NAME']}",
        )
    executor = MigrationExecutor(connection)
    pending = executor.migration_plan(executor.loader.graph.leaf_nodes())
    if pending:
        names = ", ".join(f"{migration.app_label}.{migration.name}" for migration, _ in pending[:5])
        yield Finding(
            FAIL,
            "migrations",
            f"{len(pending)} migrations not applied ({names})",
            "run `uv run manage.py migrate` (`serve` does it when it starts)",
        )
    else:
        yield Finding(OK, "migrations", "the database schema is up to date")
        yield from check_indexes()


def check_indexes() -> Iterator[Finding]:
    """Indexes a cold load left out (introspect/importer/deferred_indexes.py): only slower pages, and
    only until an importer builds them."""
    left_out = list(DeferredIndex.objects.values_list("name", flat=True))
    if left_out:
        yield Finding(
            WARN,
            "indexes",
            f"{len(left_out)} of the events' indexes are left out ({', '.join(left_out[:5])}): a cold "
            "`ingest` leaves them out while it loads and builds them after; until then the pages "
            "that read events are slow",
            "if no `ingest` is running, run `uv run manage.py ingest` (or `serve`): an importer "
            "builds them before it reads anything",
        )


def check_import(locs: Locations) -> Iterator[Finding]:
    """Importer lag: bytes on disk not yet imported, files never seen, the last pass's error."""
    found = discovery.event_sources(locs)
    for projects in locs.projects_dirs:
        if readable_dir(projects):
            found += discovery.transcript_sources(projects)
    known = {
        (row.root, row.rel_path): row
        for row in SourceFile.objects.filter(
            status=SourceFile.Status.ACTIVE, host=settings.WAYSWEB_HOST
        ).only("root", "rel_path", "offset")
    }
    never = behind_files = behind_bytes = 0
    for source in found:
        row = known.get((str(source.root), source.rel_path))
        try:
            size = source.path.stat().st_size
        except OSError:
            continue
        if row is None:
            never += 1
            behind_bytes += size
        elif size > row.offset:
            behind_files += 1
            behind_bytes += size - row.offset
    failure = health.last_failure()
    if failure is not None:
        yield Finding(
            FAIL,
            "importer",
            f"the importer stopped: {failure['message']}",
            "fix what it names, then run `uv run manage.py ingest` (or restart `serve`): it resumes "
            "from its checkpoints",
        )
    yield from check_importer(failure)
    last = ImportRun.objects.order_by("-started_at").first()
    if never or behind_files:
        yield Finding(
            WARN,
            "importer",
            f"{never} files never imported and {behind_files} with new lines: "
            f"{behind_bytes / 2**20:,.1f} MiB waiting",
            "run `uv run manage.py ingest` once, or keep `serve` (it follows new lines) running",
        )
    elif found:
        yield Finding(
            OK,
            "importer",
            f"every line of {len(found)} files is imported"
            + (f" (last pass {last.finished_at:%Y-%m-%d %H:%M} UTC)" if last and last.finished_at else ""),
        )
    if last is not None and last.error:
        yield Finding(
            FAIL,
            "importer",
            f"the last import pass failed: {last.error.splitlines()[0]}",
            "run `uv run manage.py ingest` to see the whole error",
        )
    unread = SourceProblem.objects.filter(host=settings.WAYSWEB_HOST)
    by_label = Counter(problem.label for problem in unread.only("reason"))
    if by_label:
        kinds = ", ".join(f"{label} {count:,}" for label, count in by_label.most_common())
        first = unread.order_by("area", "path").first()
        yield Finding(
            WARN,
            "sources",
            f"{sum(by_label.values()):,} paths under the imported roots were not read "
            f"({kinds}); e.g. {first.path}",
            "a link out of its root, a FIFO or device, or a file this user cannot read: fix or remove "
            "it (see Not read on /status/); every other file is imported",
        )
    open_rows = Quarantine.objects.filter(resolution="")
    by_reason = dict(open_rows.values_list("reason").annotate(n=Count("id")).order_by("-n")[:5])
    if by_reason:
        reasons = ", ".join(f"{reason} {count:,}" for reason, count in by_reason.items())
        newest = open_rows.aggregate(newest=Max("created_at"))["newest"]
        yield Finding(
            WARN,
            "quarantine",
            f"{sum(by_reason.values()):,} lines quarantined ({reasons}); newest {newest:%Y-%m-%d %H:%M} UTC",
            "they are kept with their bytes and reason: see /status/ in the dashboard; nothing "
            "else is affected",
        )
    else:
        yield Finding(OK, "quarantine", "no quarantined lines")


def check_importer(failure: dict | None) -> Iterator[Finding]:
    """What the importer's heartbeat says beyond the last failure: stopped by an error (a crash,
    restarted by `serve` or not), gone without a word, or going on past files it could not import."""
    reading = heartbeat.current()
    when = f" at {reading.beat_at:%Y-%m-%d %H:%M} UTC" if reading.beat_at else ""
    said = failure["message"] if failure is not None else None  # already reported by check_import
    if reading.state == heartbeat.STOPPED and reading.error and reading.error != said:
        wait = reading.restart_in
        yield Finding(
            FAIL,
            "importer",
            f"the importer stopped{when}: {reading.error}"
            + (f"; `serve` restarts it in {wait} s" if wait is not None else ""),
            "fix what it names (see the Import status page), then restart `serve` or run `uv run manage.py "
            "ingest`: it resumes from its checkpoints",
        )
    elif reading.vanished and reading.follow:
        yield Finding(
            WARN,
            "importer",
            f"the importer (ingest --follow) is gone{when} without saying why (killed? out of memory?)",
            "start `serve` again (it restarts its importer) or `uv run manage.py ingest --follow`",
        )
    if reading.left:
        yield Finding(
            WARN,
            "importer",
            f"the importer's last pass went on past what it could not do: {reading.left}",
            "see Not read on /status/ for each one and why; it is tried again on every pass",
        )


def check_secrets(alias: str = "default") -> Iterator[Finding]:
    """Which secrets mode is on (settings.WAYSWEB_SECRETS_MASKED_ONLY, WAYSWEB_SECRET_SCAN)."""
    shared = connections[alias].vendor != "sqlite"
    if not settings.WAYSWEB_SECRET_SCAN:
        yield Finding(
            WARN,
            "secrets",
            "detection at import is off: pages and exports still mask secrets, but the search index may hold them",
            "unset WAYSWEB_SECRET_SCAN",
        )
    if settings.WAYSWEB_SECRETS_MASKED_ONLY:
        yield Finding(OK, "secrets", "team mode: lines are stored with secrets masked (none can be revealed)")
    elif shared:
        yield Finding(
            WARN,
            "secrets",
            "local mode on a shared database: secrets are stored as read, masked only when shown",
            "set WAYSWEB_SECRETS_MASKED_ONLY=1 so a secret never leaves the machine that imported it",
        )
    else:
        yield Finding(
            OK, "secrets", "local mode: secrets are stored as read and masked on every page and export"
        )


def run(locs: Locations, data_dir: Path) -> list[Finding]:
    """Every check; the import checks only when the database answers and is migrated."""
    findings: list[Finding] = []
    steps: list[Callable[[], Iterator[Finding]]] = [
        lambda: check_sources(locs),
        lambda: check_storage(data_dir),
        check_database,
        check_secrets,
    ]
    for step in steps:
        findings.extend(step())
    if not any(f.level == FAIL and f.topic in ("database", "migrations") for f in findings):
        findings.extend(check_import(locs))
    return findings
