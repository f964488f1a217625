"""The way page's decision log and findings: outcomes week by week by result, near misses with their
shortfall, recall misses and out-of-band reads classified as upstream classifies them, the claimed
controls as their latest snapshot; each with an honest empty state, in a bounded number of queries."""

from __future__ import annotations

import math
from io import StringIO

import orjson
import pytest
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from introspect.queries.way_decisions import way_decisions
from introspect.queries.way_findings import way_findings
from tests.conftest import append, line
from tests.introspect.rules.decision_log import READER_ARCHIVE, READER_LIVE, write_log
from tests.introspect.rules.test_finding_records import ROW

pytestmark = pytest.mark.django_db


def findings(*rows: dict) -> bytes:
    return b"".join(orjson.dumps({**ROW, **row}) + b"\n" for row in rows)


def imported(home, *, decisions: bool = True, ledger: bytes = b"") -> None:
    append(home.live, line(ts="2026-09-01T09:59:00Z", event="session_start", project="/p", session="s1"))
    append(home.live, line(ts="2026-09-01T10:00:00Z", event="way_fired", way="d/a", session="s1"))
    if decisions:
        write_log(home.state, READER_ARCHIVE, READER_LIVE)
    if ledger:
        append(home.state / "findings.jsonl", ledger)
    call_command("ingest", "--no-ways", stdout=StringIO())


def page(client, way: str) -> str:
    response = client.get(f"/ways/{way}/")
    assert response.status_code == 200
    return response.content.decode()


def test_outcomes_are_counted_by_result_and_iso_week(home):
    imported(home)
    found = way_decisions("d/a", present=True)
    assert found.totals == {"fired": 1, "judge_block": 1}
    assert [(week.start.isoformat(), week.counts) for week in found.weeks] == [("2026-08-31", (1, 1))]


def test_near_misses_carry_their_shortfall_and_its_mean(client, home):
    imported(home)
    found = way_decisions("d/n", present=True)
    assert (found.near_miss_total, round(found.mean_shortfall, 6)) == (2, 0.03)
    assert [(miss.scan_id, miss.shortfall) for miss in found.near_misses] == [("b1", 0.02), ("a1", 0.04)]
    assert "mean shortfall 0.03<" in page(client, "d/n")


def test_the_mean_shortfall_does_not_depend_on_the_order_the_rows_were_read(home):
    home.state.mkdir(parents=True)
    # Added left to right, 0.1 + 0.2 + 0.3 and 0.3 + 0.2 + 0.1 are two different floats: a mean
    # summed in row order would differ between the two ways (and print differently on a boundary).
    shortfalls = {"d/up": (0.1, 0.2, 0.3), "d/down": (0.3, 0.2, 0.1)}
    for way, values in shortfalls.items():
        for n, value in enumerate(values):
            append(
                home.state / "decisions.jsonl",
                (
                    f'{{"ts":"2026-09-01T10:00:0{n}Z","kind":"scan","scan_id":"{way}{n}","session":"s{n}",'
                    f'"agent":"main","turn_start":true,"outcomes":[{{"way":"{way}","result":"near_miss",'
                    f'"shortfall":{value}}}]}}\n'
                ).encode(),
            )
    call_command("ingest", "--no-ways", stdout=StringIO())
    up, down = (way_decisions(way, present=True) for way in shortfalls)
    assert (up.near_miss_total, down.near_miss_total) == (3, 3)
    assert up.mean_shortfall == down.mean_shortfall == math.fsum(shortfalls["d/up"]) / 3


def test_pulls_are_classified_as_upstream_classifies_them(client, home):
    imported(home)
    # d/a: s1 pulled it after a1 fired it (delivered); s2 named b1, whose judge blocked it (a recall miss).
    found = way_decisions("d/a", present=True)
    assert [(pull.sid, pull.join) for pull in found.pulls] == [("s2", "recall_miss"), ("s1", "delivered")]
    assert [pull.sid for pull in found.recall_misses] == ["s2"]
    # d/x is only ever pulled: out of band, and a recall miss (a2 stashed d/t, not d/x).
    html = page(client, "d/x")
    assert "1 recall_miss" in html and "out of band</span>" in html
    assert "No out-of-band read." not in html


def test_a_refused_pull_is_counted_apart_and_never_classified(home):
    home.state.mkdir(parents=True)
    append(
        home.state / "decisions.jsonl",
        b'{"ts":"2026-09-01T10:00:00Z","kind":"pull","session":"s1","agent":"main","way":"d/q",'
        b'"window":"none","stamped":false,"reason":"not found","scan_id":null}\n',
    )
    call_command("ingest", "--no-ways", stdout=StringIO())
    found = way_decisions("d/q", present=True)
    assert (found.pull_total, found.refused, found.pulls) == (1, 1, [])


def test_the_latest_snapshot_of_each_control_is_shown_with_criterion_and_evidence(client, home):
    older = {"assembled_at": "2026-07-01T00:00:00Z", "criterion": "old wording"}
    newer = {"assembled_at": "2026-08-01T00:00:00Z", "way": "d/a"}
    process = {"way": "d/a", "control": "SOC 2 CC8.1", "criterion": None, "tier": "process"}
    imported(home, ledger=findings({**older, "way": "d/a"}, newer, process, {"way": "d/other"}))
    controls = way_findings("d/a", present=True).controls
    assert [(row.control, row.assembled_at, row.criterion, row.snapshots) for row in controls] == [
        ("NIST CM-3", "2026-08-01T00:00:00Z", "commits follow conventional format", 2),
        ("SOC 2 CC8.1", "2026-07-02T00:00:00Z", None, 1),
    ]
    html = page(client, "d/a")
    assert "commits follow conventional format" in html and "old wording" not in html
    assert "none (not yet assessable)" in html and "not determined" in html


def test_empty_states_say_which_source_is_missing(client, home):
    imported(home, decisions=False)
    html = page(client, "d/a")
    assert "No decision log imported" in html and "No findings ledger imported" in html
    home.state.joinpath("findings.jsonl").write_bytes(findings({"way": "d/other"}))
    write_log(home.state, READER_ARCHIVE, READER_LIVE)
    call_command("ingest", "--no-ways", stdout=StringIO())
    html = page(client, "d/c")  # only pulled, with no scan named
    assert "No scan logged an outcome for this way." in html
    assert "No finding claims a control for this way." in html


def test_a_way_known_only_from_the_decision_log_or_the_findings_has_a_page(client, home):
    imported(home, ledger=findings({"way": "d/claimed"}))
    assert client.get("/ways/d/t/").status_code == 200  # stashed by a scan, in no event
    assert client.get("/ways/d/claimed/").status_code == 200
    assert client.get("/ways/d/never/").status_code == 404


def test_the_sections_cost_a_bounded_number_of_queries(client, home):
    imported(home, decisions=False)
    with CaptureQueriesContext(connection) as without:
        page(client, "d/a")
    write_log(home.state, READER_ARCHIVE, READER_LIVE)
    append(home.state / "findings.jsonl", findings({"way": "d/a"}))
    call_command("ingest", "--no-ways", stdout=StringIO())
    with CaptureQueriesContext(connection) as few:
        page(client, "d/a")
    for n in range(40):  # more sessions, pulls, outcomes and snapshots: no more queries
        append(
            home.state / "decisions.jsonl",
            (
                f'{{"ts":"2026-09-0{n % 9 + 1}T10:00:00Z","kind":"scan","scan_id":"m{n}","session":"m{n}",'
                f'"agent":"main","turn_start":true,"outcomes":[{{"way":"d/a","result":"near_miss","shortfall":0.1}}]}}\n'
                f'{{"ts":"2026-09-0{n % 9 + 1}T10:00:01Z","kind":"pull","session":"m{n}","agent":"main",'
                f'"way":"d/a","out_of_band":true,"stamped":true,"scan_id":"m{n}"}}\n'
            ).encode(),
        )
        append(home.state / "findings.jsonl", findings({"way": "d/a", "control": f"C-{n}"}))
    call_command("ingest", "--no-ways", stdout=StringIO())
    with CaptureQueriesContext(connection) as many:
        html = page(client, "d/a")
    assert "41 recall_miss" in html
    assert len(many) == len(few) <= len(without) + 7


def test_import_status_lists_the_findings_ledger_with_its_counts(client, home):
    imported(home, decisions=False, ledger=findings({"way": "d/a"}) + b'{"way":"d/a"}\n')
    status = client.get("/status/").content.decode()
    assert "findings.jsonl" in status and "missing_field" in status


def test_the_sample_shows_each_claimed_control_at_its_latest_snapshot(client, sample):
    """The bundled sample's ledger holds two assembler runs; the way page shows the second's evidence."""
    text = page(client, "softwaredev/delivery/commits")
    assert "NIST CM-3" in text and "NIST CM-5" in text
    assert "commits follow conventional format" in text
    assert "2026-11-09" in text  # the latest run's snapshot, not the first's
    assert "No findings ledger imported" not in text
    found = way_findings("softwaredev/delivery/commits", present=True).controls
    assert {r.snapshots for r in found} == {2}
    rows = {(r.control, r.evidence_total) for r in found}
    latest = [
        orjson.loads(raw)
        for raw in (sample / ".local/state/agent-ways/findings.jsonl").read_bytes().splitlines()
        if b'"softwaredev/delivery/commits"' in raw and b"2026-11-09" in raw
    ]
    assert rows == {(f["control"], f["evidence"]["total"]) for f in latest}
    assert all(total > 0 for _, total in rows)
