"""agent-ways' decision log imported: every line a record, quarantined with upstream's reason, or
inert; the live file and its archives unioned by line identity; re-reading adds nothing; an
appended line adds itself alone."""

from __future__ import annotations

import gzip

import pytest
from django.conf import settings

from introspect.importer import run
from introspect.models import (
    DecisionCandidate,
    DecisionOutcome,
    DecisionRecord,
    Quarantine,
    RawLine,
    Session,
    SourceFile,
)
from tests.conftest import append, gzip_member, rejected_member
from tests.introspect.rules.decision_log import (
    READER_ARCHIVE,
    READER_LIVE,
    READER_MALFORMED,
    READER_S1,
    READER_S2,
    READER_UNKNOWN_KIND,
    write_log,
)

pytestmark = pytest.mark.django_db

OPTIONS = run.Options(ways=False, transcripts=False)
FULL_SCAN = (
    '{"ts":"2026-10-06T14:03:12Z","kind":"scan","scan_id":"18d9-3e8a","session":"s9","agent":"main",'
    '"epoch":12,"turn_start":true,"token_position":48213,"surface":"prompt","hook_event":"UserPromptSubmit",'
    '"scope":"agent","project":"/home/you/proj","lane":"en","basis":"single","sidecar":true,'
    '"candidates":[{"way":"code/testing","cosine":0.4121,"share":0.6312,"margin":0.0874},'
    '{"way":"delivery/commits","cosine":0.3247,"share":0.2101,"margin":0.0311}],'
    '"outcomes":[{"way":"code/testing","result":"fired","rank":1,"channel":"semantic:late-interaction:en",'
    '"p":0.8123,"p_yes":0.91,"verdict":"pass"},{"way":"delivery/commits","result":"judge_block","rank":2,'
    '"channel":"keyword","p_yes":0.05,"threshold":0.3,"mode":"enforce"},'
    '{"way":"architecture/design","result":"near_miss","prob_en":0.4712,"tau_s":0.5,"shortfall":0.0288}],'
    '"judge":{"status":"judged","engine":"anthropic","model":"claude-haiku-4-5","judge_ms":812}}'
)


def import_once() -> run.PassResult:
    return run.import_pass(settings.WAYSWEB_LOCATIONS, OPTIONS)


def stream() -> list[str]:
    """The imported records' lines in stream order."""
    return list(
        DecisionRecord.objects.order_by(
            "order_rank", "order_generation", "order_offset", "order_index"
        ).values_list("raw", flat=True)
    )


def outcomes() -> dict[str, int]:
    counts: dict[str, int] = {}
    for outcome in RawLine.objects.values_list("outcome", flat=True):
        counts[outcome] = counts.get(outcome, 0) + 1
    return counts


def test_a_scan_is_a_record_with_its_candidates_outcomes_and_judge(home):
    append(home.state / "decisions.jsonl", FULL_SCAN.encode() + b"\n")
    import_once()
    record = DecisionRecord.objects.get()
    assert (record.kind, record.scan_id, record.agent, record.epoch, record.turn_start) == (
        "scan",
        "18d9-3e8a",
        "main",
        12,
        True,
    )
    assert (record.judge_status, record.judge_model, record.judge_ms) == ("judged", "claude-haiku-4-5", 812)
    assert record.session == Session.objects.get(sid="s9")
    assert record.raw == FULL_SCAN
    assert list(record.candidates.order_by("position").values_list("way", "share")) == [
        ("code/testing", 0.6312),
        ("delivery/commits", 0.2101),
    ]
    assert list(
        record.outcomes.order_by("position").values_list("result", "p_yes", "threshold", "shortfall")
    ) == [
        ("fired", 0.91, None, None),
        ("judge_block", 0.05, 0.3, None),
        ("near_miss", None, None, 0.0288),
    ]


def test_every_line_is_imported_quarantined_with_upstreams_reason_or_inert(home):
    write_log(home.state, READER_ARCHIVE, READER_LIVE)
    append(home.state / "decisions.jsonl", b"\n")
    result = import_once()
    assert (result.totals.imported, result.totals.quarantined, result.totals.inert) == (8, 2, 1)
    assert sorted(Quarantine.objects.values_list("reason", flat=True)) == ["malformed", "unknown_kind"]
    assert bytes(Quarantine.objects.get(reason="unknown_kind").raw) == READER_UNKNOWN_KIND.encode()
    assert bytes(Quarantine.objects.get(reason="malformed").raw) == READER_MALFORMED.encode()
    # Stream order: the archive (older) first, then the live file, each in file order.
    assert stream() == [READER_S1[0], READER_S2[0], READER_S1[1], READER_S1[2], *READER_LIVE]
    assert DecisionOutcome.objects.filter(record__scan_id="a1").count() == 2
    assert set(SourceFile.objects.values_list("kind", flat=True)) == {"decisions", "decisions_archive"}


@pytest.mark.parametrize("ignore_checkpoints", [False, True], ids=["next pass", "from the start"])
def test_reading_again_adds_nothing(home, ignore_checkpoints):
    write_log(home.state, READER_ARCHIVE, READER_LIVE)
    import_once()

    def counts() -> tuple[int, ...]:
        tables = (DecisionRecord, DecisionCandidate, DecisionOutcome, Quarantine, RawLine)
        return tuple(model.objects.count() for model in tables)

    before = counts()
    again = run.import_pass(
        settings.WAYSWEB_LOCATIONS,
        run.Options(ways=False, transcripts=False, ignore_checkpoints=ignore_checkpoints),
    )
    assert again.totals.imported == 0
    assert counts() == before


def test_an_appended_line_is_read_alone(home):
    live = home.state / "decisions.jsonl"
    append(live, *(f"{text}\n".encode() for text in READER_S1[:2]))
    import_once()
    append(live, f"{READER_S1[2]}\n".encode())
    result = import_once()
    assert (result.totals.lines, result.totals.imported) == (1, 1)
    assert stream() == READER_S1[:3]


def test_a_torn_last_line_waits_for_its_end(home):
    live = home.state / "decisions.jsonl"
    whole, torn = READER_S1[0].encode() + b"\n", READER_S1[1].encode()
    append(live, whole, torn[:40])
    import_once()
    assert (DecisionRecord.objects.count(), Quarantine.objects.count()) == (1, 0)
    append(live, torn[40:] + b"\n")
    import_once()
    assert stream() == READER_S1[:2]
    assert Quarantine.objects.count() == 0


def test_a_line_in_an_archive_and_the_live_file_is_one_record_placed_in_the_archive(home):
    # A crash between archiving and trimming leaves the oldest turn in both (§1.8): counted once.
    (home.state).mkdir(parents=True)
    (home.state / "decisions-2026-09-02.jsonl.gz").write_bytes(
        gzip.compress(f"{READER_S1[0]}\n".encode()) + gzip.compress(f"{READER_S1[1]}\n".encode())
    )
    append(home.state / "decisions.jsonl", *(f"{text}\n".encode() for text in READER_S1[:3]))
    result = import_once()
    assert (result.totals.imported, result.totals.duplicate) == (3, 2)
    assert stream() == READER_S1[:3]
    archive = SourceFile.objects.get(kind="decisions_archive")
    placed = DecisionRecord.objects.filter(order_rank=archive.rank).values_list("scan_id", flat=True)
    assert set(placed) == {"a1", "a2"}


def test_a_damaged_archive_member_is_quarantined_and_the_next_member_read(home):
    home.state.mkdir(parents=True)
    first = gzip_member(f"{READER_S1[0]}\n".encode())
    damaged = rejected_member(f"{READER_S1[1]}\n".encode(), b"lost\n")
    last = gzip_member(f"{READER_S1[4]}\n".encode())
    (home.state / "decisions-2026-09-02.jsonl.gz").write_bytes(first + damaged + last)
    import_once()
    assert set(DecisionRecord.objects.values_list("scan_id", flat=True)) >= {"a1", "a3"}
    assert list(Quarantine.objects.values_list("reason", "offset")) == [("gzip_corrupt", len(first))]


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ('{"ts":"2026-09-01T10:00:41Z","kind":"verdict"}', "unknown_kind"),
        ('{"ts":"2026-09-01T10:00:41Z","session":"s1"}', "missing_kind"),
        ('{"kind":"scan","epoch":-1}', "bad_field"),
        ('{"kind":"scan","epoch":1.5}', "bad_field"),
        ('{"kind":"scan","scan_id":"a","scan_id":"b"}', "bad_field"),
        ('{"kind":"pull","way":null}', "bad_field"),
        ('{"kind":"scan","outcomes":[{"way":"a","rank":4294967296}]}', "bad_field"),
        ('{"kind":"scan","ts":NaN}', "malformed"),
        ("[1,2", "malformed"),
    ],
)
def test_a_line_upstream_skips_is_quarantined_with_its_reason(home, text, reason):
    append(home.state / "decisions.jsonl", text.encode() + b"\n")
    import_once()
    assert list(Quarantine.objects.values_list("reason", flat=True)) == [reason]
    assert not DecisionRecord.objects.exists()
    assert outcomes() == {"quarantined": 1}


def test_hostile_values_are_kept_in_the_raw_line_and_flagged(home):
    long_agent = "a" * 600
    text = (
        '{"kind":"scan","scan_id":"h\\u0000x","session":"s1","agent":"' + long_agent + '",'
        '"epoch":18446744073709551615,"token_position":9223372036854775808,'
        '"outcomes":[{"way":"' + "w" * 600 + '","result":"fired","p":1e308}],'
        '"judge":{"status":"off","capped":["c\\u0000"]}}'
    )
    append(home.state / "decisions.jsonl", text.encode() + b"\n")
    import_once()
    record = DecisionRecord.objects.get()
    assert record.raw == text
    assert (record.epoch, record.token_position, record.agent) == (None, None, "")
    assert record.scan_id == "h\ufffdx"
    assert record.judge_capped == ["c\ufffd"]
    assert {"overflow:epoch", "overflow:token_position", "overlong:agent", "nul_replaced:scan_id"} <= set(
        record.flags
    )
    outcome = record.outcomes.get()
    assert (outcome.way, outcome.p) == ("", 1e308)
    assert "overlong:outcomes.way" in record.flags


def test_an_array_record_and_invalid_utf8_are_read_as_upstream_reads_them(home):
    # serde reads a struct from an array too; upstream reads a line with from_utf8_lossy.
    append(
        home.state / "decisions.jsonl",
        b'["pull","2026-09-01T10:00:00Z","s1","main",1]\n',
        b'{"kind":"pull","session":"s1","way":"d/\xff"}\n',
    )
    import_once()
    assert list(DecisionRecord.objects.order_by("order_offset").values_list("kind", "ts_raw", "way")) == [
        ("pull", "2026-09-01T10:00:00Z", ""),
        ("pull", "", "d/\ufffd"),
    ]


def test_a_trim_moves_the_oldest_turns_to_an_archive_and_loses_or_doubles_nothing(home):
    # trim_to_turns (§1.8): the oldest turns are archived first, then the live file is rewritten in
    # place with the rest and whatever was appended meanwhile: a new generation of the live file.
    live = home.state / "decisions.jsonl"
    append(live, *(f"{text}\n".encode() for text in READER_S1[:4]))
    import_once()
    (home.state / "decisions-2026-09-02.jsonl.gz").write_bytes(
        gzip.compress("".join(f"{text}\n" for text in READER_S1[:2]).encode())
    )
    rewritten = live.with_name("decisions.jsonl.tmp")
    rewritten.write_bytes("".join(f"{text}\n" for text in [*READER_S1[2:], *READER_S2]).encode())
    rewritten.replace(live)
    import_once()
    assert stream() == [*READER_S1, *READER_S2]
    assert DecisionRecord.objects.count() == len(READER_S1) + len(READER_S2)
    assert SourceFile.objects.filter(kind="decisions").count() == 2  # the rewrite: a new generation
