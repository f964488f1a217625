"""A cold load without the events' digest key stores a repeated line's event again and settles those
rows before the key is built (introspect/importer/event_repeats.py): it ends with the rows a load
with the key writes, line for line."""

from __future__ import annotations

from io import StringIO

import orjson
import pytest
from django.conf import settings
from django.core.management import call_command

from introspect.importer import deferred_indexes, event_repeats, tailer
from introspect.importer.run import Options
from introspect.models import ImportRun, PhysicalLine, SecretFinding, SourceFile, WaysEvent
from lib import hashing
from tests.conftest import append, gzip_member
from waysweb import passes

sqlite_only = pytest.mark.skipif(
    not deferred_indexes.supported(), reason="the key is left out on SQLite only"
)


def line(n: int, **fields) -> bytes:
    body = {"ts": f"2026-11-02T10:{n // 60:02d}:{n % 60:02d}Z", "event": "way_fired", "session": f"s{n % 3}"}
    return orjson.dumps(body | {"way": f"d/w{n % 7}", "trigger": "keyword", "n": n} | fields) + b"\n"


LINES = [line(n) for n in range(60)]
# A secret in a line the archive and the live log both hold: found once, in the event kept.
SECRET = line(99, surface="deploy with AKIAQWERTYUIOPASDFGH now")
TWINS = (LINES[50], LINES[51])  # two lines given one digest (a collision, 2**-64 in earnest)


def history(home) -> None:
    """An archive and the live log that overlap, each with lines repeated inside it (in one batch
    and across batches), a repeat that is not its line's whole (a NUL-prefixed line), one that ends
    in CRLF, a line whose digest another line holds, and a secret."""
    archive = [*LINES[:30], SECRET, LINES[5], LINES[51], LINES[51], LINES[12]]
    append(home.archive("2026-10-30"), gzip_member(*archive[:20]), gzip_member(*archive[20:]))
    append(
        home.live,
        *LINES[20:60],
        SECRET,
        LINES[25],
        LINES[25],
        b"\0\0" + LINES[40],
        LINES[33].replace(b"\n", b"\r\n"),  # a repeat one byte longer than the line its event keeps
        LINES[7],
        LINES[51],
    )


def collide(monkeypatch) -> None:
    real = hashing.digest64
    first, second = (hashing.sha256(data.rstrip(b"\n")) for data in TWINS)
    monkeypatch.setattr(hashing, "digest64", lambda sha: real(first) if sha == second else real(sha))


def imported_rows() -> dict:
    """What the import wrote, by content and place (never by id)."""
    path = dict(SourceFile.objects.values_list("pk", "rel_path"))
    events = WaysEvent.objects.values_list(
        "source_id", "sha256", "digest", "occurrences", "order_rank", "order_generation",
        "order_offset", "order_index", "session_key",
    )  # fmt: skip
    return {
        "events": sorted((path[source], sha, digest is None, *rest) for source, sha, digest, *rest in events),
        "lines": sorted(
            (path[source], *rest)
            for source, *rest in PhysicalLine.objects.values_list(
                "source_id", "offset", "index", "sha256", "outcome"
            )
        ),
        "lengths": sorted(  # the RawLine rows (an event's own place has none)
            (path[source], *rest)
            for source, *rest in PhysicalLine.objects.filter(length__isnull=False).values_list(
                "source_id", "offset", "index", "length"
            )
        ),
        "sources": sorted(
            SourceFile.objects.values_list(
                "rel_path", "lines_seen", "imported", "quarantined", "inert", "duplicate"
            )
        ),
        "findings": sorted(
            (path[source], *rest)
            for source, *rest in SecretFinding.objects.values_list(
                "source_id", "offset", "index", "place", "kind", "fingerprint", "session__sid"
            )
        ),
    }


def cold_load(monkeypatch, *, defer: bool) -> tuple[dict, passes.PassResult]:
    call_command("flush", interactive=False, verbosity=0)
    result = passes.sessions_pass(settings.WAYSWEB_LOCATIONS, Options(ways=False), defer_indexes=defer)
    run = ImportRun.objects.get()
    totals = result.totals
    assert (run.lines, run.imported, run.duplicate) == (totals.lines, totals.imported, totals.duplicate)
    return imported_rows(), result


@sqlite_only
@pytest.mark.parametrize(
    ("noted", "part"),
    [(True, event_repeats.PART), (False, event_repeats.PART), (True, 2)],
    ids=["as it ends", "by the next importer", "two digests at a time, the key back once two are noted"],
)
@pytest.mark.django_db(transaction=True)
def test_a_load_without_the_digest_key_ends_with_the_rows_of_one_with_it(
    home, monkeypatch, settings, noted, part
):
    settings.WAYSWEB_PREPARE_WORKER_BYTES = 0  # the collision is this process's
    monkeypatch.setattr(tailer, "BATCH_LINES", 7)  # a file's repeats fall in several batches
    monkeypatch.setattr(event_repeats, "PART", part)
    collide(monkeypatch)
    history(home)

    keyed, with_key = cold_load(monkeypatch, defer=False)
    suspects = []  # how many the load had noted when its key was built
    real = deferred_indexes.restore

    def restore():
        suspects.append(len(event_repeats.SEEN.suspects) if event_repeats.SEEN else None)
        if not noted:
            event_repeats.forget()  # as after a kill: built by a process that did not run the load
        return real()

    monkeypatch.setattr(deferred_indexes, "restore", restore)
    settled, without_key = cold_load(monkeypatch, defer=True)

    assert settled == keyed
    assert without_key.repeats > 0  # the load did store repeats, and settled them
    if part == 2:  # so many repeats that the key came back while the load read on
        assert 2 <= suspects[0] < 10 < without_key.totals.duplicate
    else:
        assert suspects[0] > 10
    assert (without_key.totals.imported, without_key.totals.duplicate) == (
        with_key.totals.imported,
        with_key.totals.duplicate,
    )
    events = settled["events"]
    assert sum(1 for event in events if event[2]) == 1  # the second twin, stored without a digest
    assert len({event[1] for event in events}) == len(events)  # one event per line's bytes
    assert settled["findings"]  # the secret's, once
    assert len(settled["findings"]) == 1


@sqlite_only
@pytest.mark.django_db(transaction=True)
def test_ingest_reports_the_repeats_it_settled_in_its_totals(home, settings):
    settings.WAYSWEB_PREPARE_WORKER_BYTES = 0
    history(home)
    out = StringIO()

    call_command("ingest", "--no-ways", stdout=out, stderr=StringIO())

    text = out.getvalue()
    lines = PhysicalLine.objects.count()
    duplicates = PhysicalLine.objects.filter(outcome="duplicate").count()
    assert f"{lines - duplicates:,} imported" in text and f"{duplicates:,} duplicates" in text, text
    assert "repeated a stored event" in text, text


def test_the_seen_filter_never_misses_a_digest_it_noted():
    seen = event_repeats.Seen()
    digests = [hashing.digest64(hashing.sha256(b"%d" % n)) for n in range(20_000)]
    assert not any(seen.add(digest) for digest in digests[:10_000])  # a false alarm is 1 in ~10**6 here
    assert all(seen.add(digest) for digest in digests[:10_000])
    assert sum(seen.add(digest) for digest in digests[10_000:]) < 10
