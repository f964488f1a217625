"""Upstream's decision-log fixtures, verbatim, and a decision-log directory written and read as upstream does.

`READER_*` are `tools/ways-core/src/decisions.rs` (@8e1a61ba) `mod fixture`; `STATS_*` are
`tools/ways-cli/src/cmd/stats/decisions.rs` (@906894e9) `mod tests`. An archive is a gzip file
(`event_archive::append` writes one member per removal) dated by the day of the removal.
"""

from __future__ import annotations

import gzip
from pathlib import Path

from introspect.rules.decision_reader import source_order

READER_S1 = [
    '{"ts":"2026-09-01T10:00:00Z","kind":"scan","scan_id":"a1","session":"s1","agent":"main","epoch":3,"turn_start":true,"surface":"prompt","project":"/p","outcomes":[{"way":"d/a","result":"fired","rank":1,"channel":"keyword","p_yes":0.9,"verdict":"pass"},{"way":"d/n","result":"near_miss","shortfall":0.04}],"judge":{"status":"judged","engine":"anthropic"},"future_field":1}',
    '{"ts":"2026-09-01T10:00:05Z","kind":"scan","scan_id":"a2","session":"s1","agent":"main","epoch":4,"turn_start":false,"surface":"task","project":"/p","outcomes":[{"way":"d/t","result":"stashed","rank":1}]}',
    '{"ts":"2026-09-01T10:01:00Z","kind":"pull","session":"s1","agent":"main","epoch":5,"way":"d/a","window":"refire","out_of_band":false,"stamped":true,"scan_id":"a1"}',
    '{"ts":"2026-09-01T10:02:00Z","kind":"pull","session":"s1","agent":"main","epoch":5,"way":"d/x","window":"suppressed","out_of_band":true,"stamped":true,"scan_id":"a2"}',
    '{"ts":"2026-09-01T11:00:00Z","kind":"scan","scan_id":"a3","session":"s1","agent":"main","epoch":3,"turn_start":true,"surface":"prompt","project":"/p","outcomes":[{"way":"d/b","result":"held_refire","rank":1}],"judge":{"status":"fallback","reason":"deadline","capped":["d/z"]}}',
]
READER_S2 = [
    '{"ts":"2026-09-01T10:00:30Z","kind":"scan","scan_id":"b1","session":"s2","agent":"main","epoch":1,"turn_start":true,"surface":"prompt","project":"/q","outcomes":[{"way":"d/a","result":"judge_block","p_yes":0.05,"threshold":0.3},{"way":"d/n","result":"near_miss","shortfall":0.02}],"judge":{"status":"judged"}}',
    '{"ts":"2026-09-02T09:00:00Z","kind":"pull","session":"s2","agent":"main","epoch":1,"way":"d/c","window":"first_fire","out_of_band":false,"stamped":true,"scan_id":null}',
    '{"ts":"2026-09-02T09:00:10Z","kind":"pull","session":"s2","agent":"main","epoch":1,"way":"d/a","window":"first_fire","out_of_band":false,"stamped":true,"scan_id":"b1"}',
]
READER_MALFORMED = '{"ts":"2026-09-01T10:00:40Z","kind":"scan","scan_id":'
READER_UNKNOWN_KIND = '{"ts":"2026-09-01T10:00:41Z","kind":"verdict","session":"s1"}'
# split(): the archive holds the first day's records up to the malformed line, the live file the rest.
READER_ARCHIVE = [
    READER_S1[0],
    READER_S2[0],
    READER_MALFORMED,
    READER_S1[1],
    READER_S1[2],
    READER_UNKNOWN_KIND,
]
READER_LIVE = [READER_S1[3], READER_S1[4], READER_S2[1], READER_S2[2]]

STATS_ARCHIVE = [
    '{"ts":"2026-09-01T10:00:00Z","kind":"scan","scan_id":"a1","session":"s1","agent":"main","epoch":3,"turn_start":true,"surface":"prompt","project":"/p","outcomes":[{"way":"d/a","result":"fired","verdict":"pass","p_yes":0.9},{"way":"d/n","result":"near_miss","shortfall":0.04},{"way":"d/k","result":"keyword_gated"},{"way":"d/h","result":"held_context_cap"}],"judge":{"status":"judged"}}',
    '{"ts":"2026-09-01T10:00:30Z","kind":"scan","scan_id":"b1","session":"s2","agent":"main","epoch":1,"turn_start":true,"surface":"prompt","project":"/q","outcomes":[{"way":"d/a","result":"judge_block","p_yes":0.05},{"way":"d/n","result":"near_miss","shortfall":0.02},{"way":"d/a/c","result":"ancestor_block","ancestor":"d/a"},{"way":"d/w","result":"fired","verdict":"would_block"}],"judge":{"status":"judged"}}',
    '{"ts":"2026-09-01T10:00:40Z","kind":"scan","scan_id":',
    '{"ts":"2026-09-01T10:00:50Z","kind":"scan","scan_id":"a2","session":"s1","agent":"main","epoch":4,"turn_start":false,"surface":"task","project":"/p","outcomes":[{"way":"d/t","result":"stashed"},{"way":"d/p/c","result":"withheld_for_parent"}],"judge":{"status":"fallback","reason":"deadline","capped":["d/z"]}}',
    '{"ts":"2026-09-01T10:01:00Z","kind":"pull","session":"s1","agent":"main","epoch":5,"way":"d/a","window":"refire","out_of_band":false,"stamped":true,"scan_id":"a1"}',
]
STATS_LIVE = [
    '{"ts":"2026-09-01T10:02:00Z","kind":"pull","session":"s1","agent":"main","epoch":6,"way":"d/x","window":"suppressed","out_of_band":true,"stamped":true,"scan_id":"a2"}',
    '{"ts":"2026-09-01T11:00:00Z","kind":"scan","scan_id":"a3","session":"s1","agent":"main","epoch":3,"turn_start":true,"surface":"prompt","project":"/p","outcomes":[{"way":"d/b","result":"redisclosed"},{"way":"d/r","result":"held_refire"},{"way":"d/n","result":"near_miss","shortfall":0.06}]}',
    '{"ts":"2026-09-02T09:00:00Z","kind":"pull","session":"s2","agent":"main","epoch":2,"way":"d/c","window":"first_fire","out_of_band":false,"stamped":true,"scan_id":null}',
    '{"ts":"2026-09-02T09:00:10Z","kind":"pull","session":"s2","agent":"main","epoch":2,"way":"d/a","window":"first_fire","out_of_band":false,"stamped":true,"scan_id":"b1"}',
    '{"ts":"2026-09-03T08:00:00Z","kind":"scan","scan_id":"b2","session":"s2","agent":"main","epoch":1,"turn_start":true,"surface":"prompt","project":"/q","outcomes":[]}',
    '{"ts":"2026-09-03T08:00:20Z","kind":"pull","session":"s2","agent":"main","epoch":2,"way":"d/bad",'
    '"window":"none","out_of_band":false,"stamped":false,"reason":"not found","scan_id":"b2"}',
]

# The archive day `fixture::write` uses: parse_utc_iso("2026-09-01T23:00:00Z").
ARCHIVE_NAME = "decisions-2026-09-01.jsonl.gz"


def write_log(directory: Path, archive: list[str], live: list[str]) -> Path:
    """A gzip archive and a live file, each its lines joined by newlines plus a final newline."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / ARCHIVE_NAME).write_bytes(gzip.compress(("\n".join(archive) + "\n").encode()))
    (directory / "decisions.jsonl").write_text("\n".join(live) + "\n")
    return directory


def source_lines(directory: Path):
    """Every source's lines in `sources_in` order, as the importer will hand them to the rules."""
    for name in source_order(path.name for path in directory.iterdir()):
        path = directory / name
        data = gzip.decompress(path.read_bytes()) if name.endswith(".gz") else path.read_bytes()
        # Upstream splits on b"\n" only (`read_until`), so a lone \r stays inside its line.
        yield from data.split(b"\n")


def scan(ts: str, scan_id: str, agent: str, start: bool, outcomes: list[tuple[str, str]] = ()) -> str:
    """The reader tests' `fn scan`: session `s`, project `/p`."""
    listed = ",".join(f'{{"way":"{way}","result":"{result}"}}' for way, result in outcomes)
    return (
        f'{{"ts":"{ts}","kind":"scan","scan_id":"{scan_id}","session":"s","agent":"{agent}",'
        f'"turn_start":{"true" if start else "false"},"project":"/p","outcomes":[{listed}]}}'
    )


def pull(ts: str, agent: str, way: str, scan_id: str) -> str:
    """The reader tests' `fn pull`: session `s`, stamped."""
    return (
        f'{{"ts":"{ts}","kind":"pull","session":"s","agent":"{agent}","way":"{way}",'
        f'"stamped":true,"scan_id":"{scan_id}"}}'
    )
