"""agent-ways' findings ledger imported: every snapshot row kept once, a line upstream refuses
quarantined with its reason, a blank line inert, reading again adds nothing, an appended snapshot
adds itself alone, hostile values flagged and kept in the raw line."""

from __future__ import annotations

import orjson
import pytest
from django.conf import settings

from introspect.importer import run
from introspect.models import Finding, Quarantine, RawLine, SourceFile
from tests.conftest import append
from tests.introspect.rules.test_finding_records import ROW

pytestmark = pytest.mark.django_db

OPTIONS = run.Options(ways=False, transcripts=False)


def snapshot(assembled_at: str, *rows: dict) -> bytes:
    """One `ways-audit assemble --write` run: its rows, one compact line each."""
    return b"".join(orjson.dumps({**ROW, **row, "assembled_at": assembled_at}) + b"\n" for row in rows)


def import_once(**options) -> run.PassResult:
    return run.import_pass(settings.WAYSWEB_LOCATIONS, run.Options(ways=False, transcripts=False, **options))


def test_each_snapshot_row_is_a_finding_with_its_criterion_and_evidence(home):
    append(
        home.state / "findings.jsonl",
        snapshot(
            "2026-07-02T00:00:00Z", {}, {"control": "SOC 2 CC8.1", "criterion": None, "tier": "process"}
        ),
    )
    result = import_once()
    assert result.totals.imported == 2
    first = Finding.objects.get(control="NIST CM-3")
    assert (first.way, first.criterion, first.tier, first.evidence_total) == (
        "sd/commits",
        "commits follow conventional format",
        "outcome",
        3,
    )
    assert (first.evidence_sessions, first.first_seen, first.last_seen) == (
        ["s1", "s2"],
        "2026-05-30T10:00:00Z",
        "2026-06-02T10:00:00Z",
    )
    assert (first.determination, first.assembled_at, first.assembled_by) == (
        None,
        "2026-07-02T00:00:00Z",
        "ways-audit",
    )
    assert Finding.objects.get(control="SOC 2 CC8.1").criterion is None
    assert SourceFile.objects.get().kind == "findings"


def test_every_line_is_imported_quarantined_with_its_reason_or_inert(home):
    append(
        home.state / "findings.jsonl",
        snapshot("2026-07-02T00:00:00Z", {}),
        b"\n",
        b'{"way":"sd/commits"}\n',
        b'{"way":\n',
        orjson.dumps({**ROW, "tier": "proof"}) + b"\n",
    )
    result = import_once()
    assert (result.totals.imported, result.totals.quarantined, result.totals.inert) == (1, 3, 1)
    assert sorted(Quarantine.objects.values_list("reason", flat=True)) == [
        "bad_field",
        "malformed",
        "missing_field",
    ]
    assert all(detail for detail in Quarantine.objects.values_list("detail", flat=True))


@pytest.mark.parametrize("ignore_checkpoints", [False, True], ids=["next pass", "from the start"])
def test_reading_again_adds_nothing(home, ignore_checkpoints):
    append(home.state / "findings.jsonl", snapshot("2026-07-02T00:00:00Z", {}), b"{bad\n")
    import_once()
    before = (Finding.objects.count(), Quarantine.objects.count(), RawLine.objects.count())
    again = import_once(ignore_checkpoints=ignore_checkpoints)
    assert again.totals.imported == 0
    assert (Finding.objects.count(), Quarantine.objects.count(), RawLine.objects.count()) == before


def test_an_appended_snapshot_is_read_alone_and_the_same_line_twice_is_one_row(home):
    ledger = home.state / "findings.jsonl"
    append(ledger, snapshot("2026-07-02T00:00:00Z", {}))
    import_once()
    append(ledger, snapshot("2026-08-01T00:00:00Z", {}), snapshot("2026-07-02T00:00:00Z", {}))
    result = import_once()
    assert (result.totals.lines, result.totals.imported, result.totals.duplicate) == (2, 1, 1)
    assert sorted(Finding.objects.values_list("assembled_at", flat=True)) == [
        "2026-07-02T00:00:00Z",
        "2026-08-01T00:00:00Z",
    ]


def test_hostile_values_are_kept_in_the_raw_line_and_flagged(home):
    text = (
        orjson.dumps(
            {**ROW, "way": "w" * 600, "basis": "b\u0000", "evidence": {**ROW["evidence"], "total": 0}}
        )
        .decode()
        .replace('"total":0', '"total":18446744073709551615')
    )
    append(home.state / "findings.jsonl", text.encode() + b"\n")
    import_once()
    finding = Finding.objects.get()
    assert finding.raw == text
    assert (finding.way, finding.evidence_total, finding.basis) == ("", None, "b\ufffd")
    assert {"overlong:way", "overflow:evidence_total", "nul_replaced:basis"} <= set(finding.flags)
