"""A trim of the decision log while an importer follows it (decisions-and-effectiveness.md §1.8):
agent-ways archives the oldest turns (a gzip member appended to `decisions-<day>.jsonl.gz`), then
rewrites the live file in place with the turns it keeps and whatever was appended meanwhile. The
follower sees the archive appear, the live file shrink to nothing, refill, and grow again; no record
is lost or doubled, nothing is quarantined, and the rows equal a clean import's and the stats
upstream's over the same files. The findings ledger is appended to meanwhile, as a run of
`ways-audit assemble --write` would.
"""

from __future__ import annotations

import pytest

from introspect.models import DecisionRecord, Finding, Quarantine, SourceFile
from tests.conftest import append, gzip_member
from tests.faults.conftest import assert_counters_add_up, sha
from tests.faults.test_decision_log import assert_as_upstream_reads, clean_import, finding, pull, rows, scan
from tests.waysweb.management.test_ingest import Following

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("truncate_first", [True, False], ids=["seen empty", "rewritten at once"])
def test_a_trim_while_following_loses_and_doubles_nothing(home, monkeypatch, truncate_first):
    live, ledger = home.state / "decisions.jsonl", home.state / "findings.jsonl"
    archive = home.state / "decisions-2026-10-31.jsonl.gz"
    oldest = [scan(n) for n in range(30)]  # ten turns: every third scan opens one
    kept = [scan(n) for n in range(30, 45)] + [pull(45, scan_id="scan-33")]
    meanwhile = [scan(n) for n in range(46, 52)]  # appended while the trim ran: carried over
    later = [scan(n) for n in range(52, 58)] + [pull(58, scan_id="scan-3")]  # names an archived scan
    append(live, *oldest, *kept)
    append(ledger, finding("NIST CM-3"))

    def trim_in_place(content: bytes) -> None:
        with open(live, "r+b") as rewrite:  # the same inode, as upstream's rewrite keeps it
            rewrite.truncate(0)
            rewrite.write(content)

    steps = [
        lambda: append(live, *meanwhile),
        lambda: append(archive, gzip_member(*oldest)),  # archived first, durably
        (lambda: trim_in_place(b"")) if truncate_first else (lambda: None),
        lambda: trim_in_place(b"".join([*kept, *meanwhile])),
        lambda: (append(live, *later), append(ledger, finding("NIST CM-3", "2026-08-01T00:00:00Z"))),
    ]
    everything = {sha(text) for text in [*oldest, *kept, *meanwhile, *later]}

    def react(n: int) -> bool:
        if n <= len(steps):
            steps[n - 1]()
            return False
        return DecisionRecord.objects.count() >= len(everything) and Finding.objects.count() == 2

    follower = Following(monkeypatch, react, most_passes=30)
    follower.run("--interval", "0.05")
    monkeypatch.undo()  # the imports below are not the follower's

    assert set(DecisionRecord.objects.values_list("sha256", flat=True)) == everything
    assert DecisionRecord.objects.count() == len(everything)
    assert not Quarantine.objects.exists()
    assert Finding.objects.count() == 2
    # The archived turns are placed in the archive (stream order: archives before the live file).
    archived = SourceFile.objects.get(kind="decisions_archive")
    placed = set(DecisionRecord.objects.filter(order_rank=archived.rank).values_list("sha256", flat=True))
    assert placed == {sha(text) for text in oldest}
    assert SourceFile.objects.filter(kind="decisions").count() >= 2  # the rewrite: a new generation
    assert_counters_add_up()
    assert_as_upstream_reads(home)
    after = rows()
    assert after["decisions"] == clean_import()["decisions"]
