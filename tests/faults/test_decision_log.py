"""The fault cases of agent-ways' decision log and findings ledger (importer-reliability.md §14 for
`decisions.jsonl`, its `decisions-YYYY-MM-DD.jsonl.gz` archives and `findings.jsonl`): a torn last
line, a damaged and a bomb archive member, unknown kinds, hostile values. Each asserts that nothing
is lost (every complete line a record, quarantined with its reason, or inert), that reading again
adds nothing, and that the rows equal those of a clean import of the same files in one pass; and,
where upstream reads the same files, that `introspect stats` says what upstream's reader says.
The trim of the live file while a follower runs is in test_decision_trim.py (subprocesses).
"""

from __future__ import annotations

import orjson
import pytest

from introspect.documents.decisions import stats_document
from introspect.importer import gzip_tail
from introspect.models import DecisionRecord, Finding, Quarantine, RawLine, SourceFile
from introspect.rules import decision_stats
from tests.conftest import append, gzip_member, rejected_member
from tests.faults.conftest import assert_counters_add_up, ingest, sha
from tests.introspect.rules.decision_log import source_lines
from tests.introspect.rules.test_finding_records import ROW

pytestmark = pytest.mark.django_db

NOW = 1_800_000_000  # a fixed clock for the stats document (no --days: it only ends a calendar)


def scan(n: int, *, session: str = "s1", start: bool | None = None, **fields) -> bytes:
    """A scan with a candidate and two outcomes; every third one opens a turn."""
    record = {
        "ts": f"2026-10-30T10:{n // 60 % 60:02d}:{n % 60:02d}Z",
        "kind": "scan",
        "scan_id": f"scan-{n}",
        "session": session,
        "agent": "main",
        "epoch": n,
        "turn_start": n % 3 == 0 if start is None else start,
        "project": "/p",
        "candidates": [{"way": "d/a", "cosine": 0.41, "share": 0.6, "margin": 0.08}],
        "outcomes": [
            {"way": "d/a", "result": "fired", "rank": 1},
            {"way": "d/n", "result": "near_miss", "shortfall": 0.03},
        ],
        **fields,
    }
    return orjson.dumps(record) + b"\n"


def pull(n: int, way: str = "d/a", scan_id: str | None = "scan-0") -> bytes:
    return (
        orjson.dumps(
            {
                "ts": f"2026-10-30T11:00:{n % 60:02d}Z",
                "kind": "pull",
                "session": "s1",
                "agent": "main",
                "epoch": n,
                "way": way,
                "window": "refire",
                "out_of_band": n % 2 == 0,
                "stamped": True,
                "scan_id": scan_id,
            }
        )
        + b"\n"
    )


def finding(control: str, assembled_at: str = "2026-07-02T00:00:00Z", **fields) -> bytes:
    return orjson.dumps({**ROW, "control": control, "assembled_at": assembled_at, **fields}) + b"\n"


def rows() -> dict[str, list]:
    """Every row the decision log and the ledger became, by content and stream place (never by key)."""
    return {
        "decisions": sorted(
            DecisionRecord.objects.values_list(
                "sha256", "kind", "order_rank", "scan_id", "flags", "epoch", "way"
            ).order_by("sha256")
        ),
        "outcomes": sorted(
            DecisionRecord.objects.values_list("sha256", "outcomes__position", "outcomes__result").order_by()
        ),
        "candidates": sorted(
            DecisionRecord.objects.values_list("sha256", "candidates__position", "candidates__way").order_by()
        ),
        "findings": sorted(Finding.objects.values_list("sha256", "control", "evidence_total", "flags")),
        "quarantine": sorted(Quarantine.objects.values_list("source__rel_path", "reason", "sha256")),
        "raw": sorted(RawLine.objects.values_list("source__rel_path", "sha256", "outcome")),
    }


def clean_import() -> dict[str, list]:
    """The rows of one pass over the same files into an empty database, as a fresh importer reads them."""
    DecisionRecord.objects.all().delete()
    Finding.objects.all().delete()
    Quarantine.objects.all().delete()
    RawLine.objects.all().delete()
    SourceFile.objects.all().delete()
    ingest()
    return rows()


def assert_as_upstream_reads(home) -> None:
    """`introspect stats --json` equals upstream's stats over the very files (no line in two places)."""
    upstream = decision_stats.report(
        source_lines(home.state), window=decision_stats.days_window(None, NOW)[0]
    )
    assert stats_document(now=NOW)["decisions"] == decision_stats.json_value(upstream)


def test_a_torn_last_line_of_each_file_waits_for_its_end_and_is_one_row(home):
    decisions, ledger = home.state / "decisions.jsonl", home.state / "findings.jsonl"
    torn_scan, torn_finding = scan(1), finding("NIST CM-3")
    append(decisions, scan(0), torn_scan[:57])
    append(ledger, finding("SOC 2 CC8.1"), torn_finding[:33])
    ingest()
    assert (DecisionRecord.objects.count(), Finding.objects.count(), Quarantine.objects.count()) == (1, 1, 0)
    ingest()  # still torn: nothing read twice, nothing quarantined
    assert (DecisionRecord.objects.count(), Finding.objects.count(), Quarantine.objects.count()) == (1, 1, 0)
    append(decisions, torn_scan[57:], scan(2))
    append(ledger, torn_finding[33:])
    ingest()
    assert set(DecisionRecord.objects.values_list("sha256", flat=True)) == {sha(scan(n)) for n in range(3)}
    assert DecisionRecord.objects.get(scan_id="scan-1").outcomes.count() == 2
    assert set(Finding.objects.values_list("control", flat=True)) == {"SOC 2 CC8.1", "NIST CM-3"}
    assert not Quarantine.objects.exists()
    assert_counters_add_up()
    assert_as_upstream_reads(home)
    assert rows() == clean_import()


def test_a_line_torn_for_ever_is_never_a_record(home):
    append(home.state / "decisions.jsonl", scan(0), scan(1)[:40])
    for _ in range(3):
        ingest()
    assert list(DecisionRecord.objects.values_list("scan_id", flat=True)) == ["scan-0"]
    assert not Quarantine.objects.exists()
    assert SourceFile.objects.get().offset == len(scan(0))  # the tail is retried, never skipped


def test_a_damaged_archive_member_keeps_what_it_decoded_and_the_next_member_and_live_file(home):
    first = [scan(n) for n in range(3)]
    before = [scan(n) for n in range(3, 300)]
    torn = scan(300)[:40]  # the damage falls inside this line
    damaged = rejected_member(b"".join(before) + torn, b"".join(scan(n) for n in range(301, 400)))
    assert damaged.find(gzip_tail.GZIP_MAGIC, 1) < 0
    third = [scan(n) for n in range(400, 403)]
    m1 = gzip_member(*first)
    append(home.state / "decisions-2026-10-31.jsonl.gz", m1, damaged, gzip_member(*third))
    live = [scan(500), pull(501)]
    append(home.state / "decisions.jsonl", *live)
    ingest()
    kept = [*first, *before, *third, *live]
    assert set(DecisionRecord.objects.values_list("sha256", flat=True)) == {sha(text) for text in kept}
    damage = Quarantine.objects.get()
    assert (damage.reason, damage.offset, bytes(damage.raw)) == ("gzip_corrupt", len(m1), torn)
    assert_counters_add_up()
    ingest()
    assert DecisionRecord.objects.count() == len(kept)
    # Upstream's reader recovers from the damaged member without counting a line: the stats agree.
    assert stats_document(now=NOW)["decisions"]["skipped_lines"] == 0
    assert rows() == clean_import()


def test_a_decompression_bomb_member_is_cut_at_the_cap_and_what_follows_is_imported(home):
    first = [scan(n) for n in range(3)]
    bomb = gzip_member(b"\n" * 2_000_000)
    third = [scan(n) for n in range(3, 6)]
    m1 = gzip_member(*first)
    append(home.state / "decisions-2026-10-31.jsonl.gz", m1, bomb, gzip_member(*third))
    append(home.state / "decisions.jsonl", scan(10))
    ingest()
    assert DecisionRecord.objects.count() == 7
    damage = Quarantine.objects.get()
    assert (damage.reason, damage.offset) == ("gzip_corrupt", len(m1))
    assert "decompression bomb" in damage.detail
    archive = SourceFile.objects.get(kind="decisions_archive")
    assert (archive.imported, archive.inert) == (6, gzip_tail.BOMB_FLOOR)
    assert_counters_add_up()
    assert rows() == clean_import()


UNKNOWN = [
    (b'{"ts":"2026-10-30T10:00:00Z","kind":"verdict","session":"s1"}\n', "unknown_kind"),
    (b'{"ts":"2026-10-30T10:00:00Z","kind":"scan_v2","session":"s1"}\n', "unknown_kind"),
    (b'{"ts":"2026-10-30T10:00:00Z","kind":7}\n', "unknown_kind"),
    (b'{"ts":"2026-10-30T10:00:00Z","kind":null}\n', "unknown_kind"),
    (b'{"ts":"2026-10-30T10:00:00Z","session":"s1"}\n', "missing_kind"),
    (b'"scan"\n', "malformed"),
    (b'["verdict",1]\n', "unknown_kind"),
]


def test_unknown_kinds_are_quarantined_with_their_reason_and_counted_as_upstream_skips_them(home):
    lines = [scan(0)]
    for text, _ in UNKNOWN:
        lines += [text, scan(len(lines))]
    append(home.state / "decisions.jsonl", *lines)
    ingest()
    assert sorted(Quarantine.objects.values_list("reason", flat=True)) == sorted(r for _, r in UNKNOWN)
    assert {bytes(q.raw) for q in Quarantine.objects.all()} == {text.rstrip(b"\n") for text, _ in UNKNOWN}
    assert all(Quarantine.objects.values_list("detail", flat=True))
    assert DecisionRecord.objects.count() == len(lines) - len(UNKNOWN)
    assert stats_document(now=NOW)["decisions"]["skipped_lines"] == len(UNKNOWN)
    assert_counters_add_up()
    assert_as_upstream_reads(home)
    assert rows() == clean_import()


HOSTILE_SCANS = [
    # (line, what becomes of it: the flags it is imported with, or the reason it is quarantined)
    (scan(900, epoch=2**64 - 1), {"overflow:epoch"}),
    (scan(901, token_position=2**63), {"overflow:token_position"}),
    (scan(902).replace(b'"epoch":902', b'"epoch":18446744073709551616'), "bad_field"),  # past u64
    (scan(903).replace(b'"epoch":903', b'"epoch":1e400'), "malformed"),
    (scan(904, epoch=-1), "bad_field"),
    (scan(905, epoch="905"), "bad_field"),
    (scan(906, turn_start=1), "bad_field"),
    (scan(907, outcomes={"way": "d/a"}), "bad_field"),
    (scan(908, outcomes=[{"way": "d/a", "result": "fired", "rank": 2**32}]), "bad_field"),
    (scan(909, candidates=[{"way": "d/a", "cosine": "high"}]), "bad_field"),
    (scan(910, judge={"status": "judged", "judge_ms": -5}), "bad_field"),
    (scan(911, judge={"status": "off", "capped": [["nested"]]}), "bad_field"),
    (scan(912, outcomes=[{"way": "d/a", "result": "fired", "p": 1.7976931348623157e308}]), set()),
    (scan(913, agent="a" * 5000, surface="s" * 100_000), {"overlong:agent"}),
    (scan(914, future={"deep": [[[[[[[[[[1]]]]]]]]]]}), set()),  # an unknown field, nested: ignored
    (b'{"kind":"scan","x":' + b"[" * 126 + b"]" * 126 + b"}\n", set()),  # serde's deepest
    (b'{"kind":"scan","x":' + b"[" * 127 + b"]" * 127 + b"}\n", "malformed"),  # one deeper
    (b'{"kind":"scan","x":' + b"[" * 5000 + b"]" * 5000 + b"}\n", "malformed"),
    (b'{"kind":"scan","scan_id":"a\\ud800"}\n', "malformed"),  # a lone surrogate
    (b'{"kind":"scan","scan_id":"n\\u0000l"}\n', {"nul_replaced:scan_id"}),
]
HOSTILE_FINDINGS = [
    (finding("C-1", evidence={**ROW["evidence"], "total": 2**64 - 1}), {"overflow:evidence_total"}),
    (finding("C-2").replace(b'"total":3', b'"total":18446744073709551616'), "bad_field"),
    (finding("C-3", evidence={**ROW["evidence"], "total": "3"}), "bad_field"),
    (finding("C-4", evidence={**ROW["evidence"], "sessions": [{"id": "s1"}]}), "bad_field"),
    (finding("C-5", tier=["outcome"]), "bad_field"),
    (finding("C-6", criterion="c" * 200_000, way="w" * 600), {"overlong:way"}),
    (finding("C-7", future=[[[[[[[[[[[1]]]]]]]]]]]), set()),
    (b'{"way":"x","control":' + b"[" * 5000 + b"]" * 5000 + b"}\n", "malformed"),
    (finding("C-8", assembled_at=None), "bad_field"),
    (b"{}\n", "missing_field"),
]


def test_hostile_values_are_imported_flagged_or_quarantined_with_a_reason_and_stop_nothing(home):
    decisions, ledger = home.state / "decisions.jsonl", home.state / "findings.jsonl"
    append(decisions, scan(0), *(text for text, _ in HOSTILE_SCANS), scan(1))
    append(ledger, finding("C-0"), *(text for text, _ in HOSTILE_FINDINGS), finding("C-9"))
    ingest()
    for cases, model in ((HOSTILE_SCANS, DecisionRecord), (HOSTILE_FINDINGS, Finding)):
        for text, fate in cases:
            digest = sha(text)
            if isinstance(fate, str):
                assert list(Quarantine.objects.filter(sha256=digest).values_list("reason", flat=True)) == [
                    fate
                ]
            else:
                stored = model.objects.get(sha256=digest)
                assert fate <= set(stored.flags), (text[:80], stored.flags)
                assert stored.raw.encode() == text.rstrip(b"\n")  # the whole line kept
    assert {"scan-0", "scan-1"} <= set(DecisionRecord.objects.values_list("scan_id", flat=True))
    assert {"C-0", "C-9"} <= set(Finding.objects.values_list("control", flat=True))
    assert_counters_add_up()
    before = rows()
    ingest("--ignore-checkpoints")
    assert rows() == before
    assert_as_upstream_reads(home)
    assert rows() == clean_import()
