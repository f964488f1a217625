"""An event's row built straight from its line's keys is the row the general reading gives; an
event's key is its digest, and a line whose digest another line's event holds loses nothing."""

from __future__ import annotations

import gzip
import json
import random
from datetime import UTC
from pathlib import Path
from types import SimpleNamespace

import orjson
import pytest
from django.db import connection

from introspect.importer import event_prep, event_rows, loader, parser, tailer
from introspect.importer.discovery import LIVE_RANK, Source
from introspect.models import PhysicalLine, SecretFinding, WaysEvent
from introspect.rules import event_fields, timestamps
from lib import bulk, hashing
from tests.conftest import append, line
from tests.introspect.importer.test_parser import ODD_VALUES

ROOT = Path(__file__).resolve().parents[3]
SOURCE = SimpleNamespace(pk=7, rank=3, generation=2)


def both(data: bytes, *, nul_prefix: int = 0) -> tuple[str, str]:
    """The direct row and the general reading's values in the row's order, as text (NaN equals itself)."""
    record = parser.parse_line(data).records[0]
    line = tailer.Line(offset=120, data=data, length=len(data), index=4, nul_prefix=nul_prefix)
    direct = event_rows.event_row(SOURCE, line, record, "f" * 64, event_prep.Stamps())
    general = event_rows.event_values(SOURCE, line, record, "f" * 64)
    return repr(direct), repr([general[name] for name in event_rows.EVENT_NAMES])


def dumps(obj: dict) -> bytes:
    return json.dumps(obj).encode()  # integers past 64 bits too, as a log may hold them


def test_every_sample_event_line_gets_the_same_row_either_way():
    lines = []
    for path in sorted((ROOT / "sample" / "home").rglob("events*.jsonl*")):
        opener = gzip.open if path.suffix == ".gz" else open
        with opener(path, "rb") as fh:
            lines.extend(line.rstrip(b"\n") for line in fh if line.strip())
    assert len(lines) > 100
    for data in lines:
        if parser.parse_line(data).records:
            direct, general = both(data)
            assert direct == general, data


def test_odd_values_overlong_texts_and_odd_stamps_get_the_same_row_either_way():
    rng = random.Random(29)
    names = [*event_fields.FIELDS, "unknown_key"]
    odd = [
        *ODD_VALUES,
        "s" * 65,
        "s" * 513,
        "2026-01-01T00:00:00.5Z",
        "0001-01-01T00:00:00Z",
        "9999-12-31T23:59:59Z",
    ]
    for name in names:
        for value in odd:
            obj = {"event": "way_nearmiss", "ts": "2026-01-01T00:00:00Z", name: value}
            direct, general = both(dumps(obj))
            assert direct == general, obj
    for _ in range(2000):  # several odd fields at once
        obj = {name: rng.choice(odd) for name in rng.sample(names, 5)}
        direct, general = both(dumps(obj), nul_prefix=rng.choice((0, 0, 3)))
        assert direct == general, obj


def test_a_batchs_stamp_cache_gives_the_stamp_read_afresh():
    stamps = event_prep.Stamps()
    for ts in ("2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z", "bad", "bad"):
        data = dumps({"event": "way_fired", "ts": ts})
        record = parser.parse_line(data).records[0]
        line = tailer.Line(offset=0, data=data, length=len(data))
        row = event_rows.event_row(SOURCE, line, record, "0" * 64, stamps)
        assert row == event_rows.event_row(SOURCE, line, record, "0" * 64)


def stored_either_way(data: bytes) -> tuple[list, list]:
    """The direct row built as SQLite stores it (event_prep.Stamps(as_text=True)), and the general
    reading's values converted by Django's own fields for this database (what the ORM would send)."""
    record = parser.parse_line(data).records[0]
    line = tailer.Line(offset=120, data=data, length=len(data), index=4)
    direct = event_rows.event_row(SOURCE, line, record, "f" * 64, event_prep.Stamps(as_text=True))
    general = event_rows.event_values(SOURCE, line, record, "f" * 64)
    for name in event_prep.STORED:
        field = WaysEvent._meta.get_field(name)
        if general[name] is not None:
            general[name] = field.get_db_prep_save(general[name], connection)
    # UNSET is how the direct row sends SQLite a NULL (what the general reading's None stores).
    direct = [None if value is event_prep.UNSET else value for value in direct]
    return direct, [general[name] for name in event_rows.EVENT_NAMES]


def test_a_row_built_as_sqlite_stores_it_holds_the_texts_django_would_store():
    if not bulk.stores_utc_text(WaysEvent):
        assert connection.vendor != "sqlite" or connection.timezone != UTC  # PostgreSQL: datetimes
        return
    lines = [
        dumps({"event": "way_fired", "ts": "2026-03-01T10:20:30Z", "surface": ""}),
        dumps({"event": "nope", "ts": "2026-03-01T10:20:30.999Z", "way": "a", "domain": ""}),
        dumps({"event": "way_fired", "ts": "0001-01-01T00:00:00Z", "p_yes": "x"}),  # the general way
        dumps({"event": "way_fired", "ts": "bad"}),
        dumps({"event": "way_fired", "ts": "2026-02-30T00:00:00Z", "reason": "é ü \u2028"}),
        dumps({"event": "gate_capped"}),
    ]
    for path in sorted((ROOT / "sample" / "home").rglob("events*.jsonl")):
        lines.extend(line for line in path.read_bytes().splitlines() if line.strip())
    for data in lines:
        if parser.parse_line(data).records:
            direct, general = stored_either_way(data)
            assert repr(direct) == repr(general), data


def test_a_batchs_stamps_are_utc_seconds_with_their_flag_and_stored_text():
    rng = random.Random(29)
    odd = [
        "2026-01-01T00:00:00Z",
        "2026-02-30T00:00:00Z",
        "0001-01-01T00:00:00Z",
        "2026-01-01T00:00:00.5Z",
        "",
    ]
    for _ in range(2000):  # digits shuffled: valid and invalid dates alike
        odd.append("".join(rng.choice("0123456789") if c.isdigit() else c for c in "2026-01-01T00:00:00Z"))
    for _ in range(2000):  # the seconds of a few hours (read by their hour), some of them no time
        odd.append(f"{rng.choice(HOURS)}:{rng.choice(SIXTY)}:{rng.choice(SIXTY)}Z")
    # One batch's Stamps for every stamp (an hour read once), and a Stamps for each alone.
    batch, batch_text = event_prep.Stamps(), event_prep.Stamps(as_text=True)
    for ts in odd:
        read, flag = event_prep.Stamps()[ts]
        assert read == timestamps.utc_second(ts), ts
        assert (flag == "ts_invalid") == (read is None), ts
        assert (flag == timestamps.OUT_OF_RANGE) == (read is not None and not timestamps.in_range(read)), ts
        assert batch[ts] == (read, flag), ts
        if read is not None:
            assert event_prep.Stamps(as_text=True)[ts][0] == str(read.replace(tzinfo=None))
            assert batch_text[ts] == (str(read.replace(tzinfo=None)), flag), ts
        else:
            assert batch_text[ts] == (None, "ts_invalid"), ts


HOURS = ["2026-10-01T07", "2026-02-29T23", "2024-02-29T00", "0001-12-31T23", "0002-01-01T00", "9998-12-31T23"]
HOURS += ["9999-01-01T00", "2026-10-01T24", "2026-13-01T00", "2026-1٠-01T00"]
SIXTY = ["00", "07", "59", "60", "99", "5", "٣٣", "+1", " 1"]


def test_lines_of_one_plan_read_alike_whatever_came_first_and_in_any_key_order():
    lines = [
        {"event": "way_fired", "ts": "2026-01-01T00:00:00Z", "way": "w", "fire_score": "0.5"},
        {"event": "way_fired", "ts": "2026-01-01T00:00:01Z", "way": None, "fire_score": "x"},  # read_plain
        {"event": "way_fired", "ts": "2026-01-01T00:00:02Z", "way": 3, "fire_score": 1},  # the general way
        {"fire_score": "", "way": "w" * 600, "ts": "2026-01-01T00:00:03Z", "event": "way_fired"},
        {"prob_en": "0.2", "event": "way_nearmiss", "token_position": "12", "session": "s"},
        {"prob_en": "", "event": "way_nearmiss", "token_position": " 12 ", "session": "s", "thr_en": 1},
    ]
    for _ in range(2):  # the second time, every line's plan is known
        for obj in lines:
            direct, general = both(dumps(obj))
            assert direct == general, obj


LINES = [line(ts=f"2026-11-02T10:00:0{i}Z", event="way_fired", way=f"d/{i}", session="s") for i in range(5)]


def live(home) -> Source:
    return Source("events", home.state, "events.jsonl", LIVE_RANK)


def found_by_sha() -> dict[str, str]:
    """Each stored event's way, found as the pages find an event: by its line's sha256."""
    shas = WaysEvent.objects.values_list("sha256", flat=True)
    return {sha: WaysEvent.objects.filter(WaysEvent.with_sha([sha])).get().way for sha in shas}


@pytest.mark.django_db
def test_an_event_is_keyed_by_its_hashs_first_8_bytes(home):
    append(home.live, *LINES)
    loader.import_file(live(home))
    assert {hashing.digest64(sha) for sha in WaysEvent.objects.values_list("sha256", flat=True)} == set(
        WaysEvent.objects.values_list("digest", flat=True)
    )


@pytest.mark.django_db
def test_lines_of_one_batch_sharing_a_digest_are_each_stored_counted_and_found(home, monkeypatch):
    monkeypatch.setattr(hashing, "digest64", lambda sha: 42)  # every line collides
    append(home.live, *LINES)
    result = loader.import_file(live(home))
    assert result.counts.imported == 5
    assert sorted(WaysEvent.objects.values_list("digest", flat=True), key=str) == [42, None, None, None, None]
    assert sorted(found_by_sha().values()) == [f"d/{i}" for i in range(5)]
    assert PhysicalLine.objects.filter(outcome="imported").count() == 5

    assert loader.import_file(live(home)).counts.imported == 0  # a re-run adds nothing
    assert WaysEvent.objects.count() == 5 and set(
        WaysEvent.objects.values_list("occurrences", flat=True)
    ) == {1}


@pytest.mark.django_db
def test_a_line_whose_digest_a_stored_event_holds_is_stored_without_one_and_once(home, monkeypatch):
    append(home.live, *LINES[:2])
    loader.import_file(live(home))
    held = WaysEvent.objects.get(way="d/0").digest
    real, later = hashing.digest64, hashing.sha256(LINES[2].rstrip(b"\n"))
    monkeypatch.setattr(hashing, "digest64", lambda sha: held if sha == later else real(sha))
    append(home.live, LINES[2], LINES[1])  # a new line, and a genuine repeat of a stored one
    counts = loader.import_file(live(home)).counts
    assert (counts.imported, counts.duplicate) == (1, 1)
    assert WaysEvent.objects.get(sha256=later).digest is None
    assert found_by_sha() == {
        hashing.sha256(data.rstrip(b"\n")): f"d/{i}" for i, data in enumerate(LINES[:3])
    }
    assert WaysEvent.objects.get(way="d/1").occurrences == 2

    append(home.live, LINES[3])
    loader.import_file(live(home))
    loader.import_file(live(home))
    assert WaysEvent.objects.count() == 4 and WaysEvent.objects.get(sha256=later).occurrences == 1


def read(data: bytes) -> tuple[tailer.Line, parser.Record]:
    record = parser.parse_line(data.rstrip(b"\n")).records[0]
    return tailer.Line(offset=0, data=record.data, length=len(record.data)), record


@pytest.mark.django_db
def test_the_fields_a_line_lacks_are_stored_null_and_its_own_as_read(home):
    lines = [
        line(ts="2026-11-02T10:00:00Z", event="way_nearmiss", way="d/a", session="s", prob_en=0.25),
        line(ts="2026-11-02T10:00:01Z", event="way_fired", way="d/b", token_position=12, surface="x y"),
        line(event="gate_capped", way="d/c", check="c/1", margin="0.5", threshold="0.5"),
    ]
    append(home.live, *lines)
    loader.import_file(live(home))
    stored = {row["way"]: row for row in WaysEvent.objects.values()}
    events = {event.way: event for event in WaysEvent.objects.all()}
    for data in lines:
        general = event_rows.event_values(SOURCE, *read(data), "f" * 64)
        row = stored[general["way"]]
        for name in event_fields.READ_AS.keys() - event_fields.UNSTORED:
            column = event_prep.COLUMN_OF.get(name, name)
            assert row[column] == general[column], (name, row[column], general[column])
        # The fields the row does not hold: read from its raw line as the importer reads the line.
        fields, _ = event_fields.event_fields(orjson.loads(data))
        for name in event_fields.UNSTORED:
            assert name not in row and name not in general
            attribute = "check_id" if name == "check" else name
            assert getattr(events[general["way"]], attribute) == fields[name], name
    assert events["d/c"].check_id == "c/1" and events["d/c"].margin == 0.5
    assert events["d/b"].surface == "x y" and events["d/a"].schema_gen == "calibrated"

    # SQLite: the row sent held UNSET for a field its line lacks, but where the writer reads it
    if bulk.stores_utc_text(WaysEvent):
        row = event_rows.event_row(SOURCE, *read(lines[2]), "0" * 64, event_prep.Stamps(as_text=True))
        assert row[event_rows.AT["prob_en"]] is event_prep.UNSET and row[event_rows.AT["threshold"]] == 0.5
        assert row[event_rows.SESSION_KEY] is None


@pytest.mark.django_db
@pytest.mark.parametrize("team", [False, True])
def test_a_secret_only_the_raw_line_holds_is_found_there_and_in_team_mode_masked(home, settings, team):
    settings.WAYSWEB_SECRETS_MASKED_ONLY = team
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    held = line(ts="2026-11-02T10:00:00Z", event="way_fired", way="d/w", session="s", note=f"use {token}")
    append(home.live, held, line(ts="2026-11-02T10:00:01Z", event="way_fired", way="d/v", session="s"))
    loader.import_file(live(home))
    [finding] = SecretFinding.objects.values_list("place", "offset", "kind")
    assert finding[:2] == (SecretFinding.Place.EVENT, 0)
    raw = WaysEvent.objects.get(way="d/w").raw
    assert (token in raw) is not team
