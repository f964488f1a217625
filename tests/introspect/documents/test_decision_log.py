"""The imported decision log handed back to the rules: each record rebuilt from its typed columns is
the record the rules parse from its line (candidates aside), a record flagged for a value its column
could not hold comes back as its line, and the skipped lines follow, once each."""

from __future__ import annotations

import dataclasses

import pytest
from django.conf import settings

from introspect.documents.decision_log import stream_records
from introspect.importer import run
from introspect.models import DecisionRecord
from introspect.rules.decision_records import Pull, Scan, parse_line
from tests.conftest import append
from tests.introspect.importer.test_decision_rows import FULL_SCAN
from tests.introspect.rules.decision_log import (
    READER_ARCHIVE,
    READER_LIVE,
    STATS_ARCHIVE,
    STATS_LIVE,
    write_log,
)

pytestmark = pytest.mark.django_db


def without_candidates(record: Scan | Pull) -> Scan | Pull:
    return dataclasses.replace(record, candidates=[]) if isinstance(record, Scan) else record


@pytest.mark.parametrize(("archive", "live"), [(READER_ARCHIVE, READER_LIVE), (STATS_ARCHIVE, STATS_LIVE)])
def test_each_record_from_its_columns_is_the_record_its_line_parses_to(home, archive, live):
    write_log(home.state, archive, live)
    append(home.state / "decisions.jsonl", FULL_SCAN.encode() + b"\n")
    run.import_pass(settings.WAYSWEB_LOCATIONS, run.Options(ways=False, transcripts=False))
    raws = DecisionRecord.objects.order_by(
        "order_rank", "order_generation", "order_offset", "order_index"
    ).values_list("raw", flat=True)
    streamed = list(stream_records())
    typed = [item for item in streamed if isinstance(item, Scan | Pull)]
    assert typed == [without_candidates(parse_line(raw)) for raw in raws]
    skipped = [line.encode() for line in archive if not isinstance(parse_line(line), Scan | Pull)]
    assert streamed[len(typed) :] == skipped


def test_a_record_with_a_value_its_column_could_not_hold_comes_back_as_its_line(home):
    overlong = '{"ts":"2026-09-01T10:00:00Z","kind":"scan","scan_id":"x","agent":"' + "a" * 600 + '"}'
    past_i64 = '{"ts":"2026-09-01T10:00:01Z","kind":"pull","epoch":9223372036854775808}'
    append(home.state / "decisions.jsonl", f"{overlong}\n{past_i64}\n".encode())
    run.import_pass(settings.WAYSWEB_LOCATIONS, run.Options(ways=False, transcripts=False))
    assert list(stream_records()) == [overlong, past_i64]
