"""A ruling or a fork's resolution written into the record: exactly one line added, read back by the parser."""

from __future__ import annotations

import difflib

import pytest

from ledger.records import questions, rule
from tests.ledger.records.samples import (
    Q_AGENTWAYS_V1,
    Q_MADR_OPEN,
    Q_MADR_RULED,
    Q_MAJORDOMUS,
    Q_NYGARD,
)


def added_lines(before: bytes, after: bytes) -> list[str]:
    diff = difflib.ndiff(before.decode().split("\n"), after.decode().split("\n"))
    changed = [line for line in diff if line[:1] in "+-"]
    assert all(line.startswith("+ ") for line in changed), changed
    return [line[2:] for line in changed]


def test_it_adds_one_ruled_line_inside_the_bullet_and_reads_it_back():
    after = rule.add_ruling(
        Q_NYGARD,
        fmt="nygard",
        key="R1",
        chosen="A",
        who="rita",
        reason="files travel",
        today="2026-12-01",
    )
    assert added_lines(Q_NYGARD, after) == ['  RULED 2026-12-01 — option A (rita: "files travel")']
    ruling = questions.read(after, fmt="nygard").rulings[0]
    assert (ruling.state, ruling.chosen, ruling.ruled_by, ruling.ruled_at) == (
        "ruled",
        "A",
        "rita",
        "2026-12-01",
    )


def test_it_quotes_a_written_option_and_keeps_a_reason_on_one_line():
    after = rule.add_ruling(
        Q_MAJORDOMUS,
        fmt="majordomus",
        key="R1",
        chosen="ask the operator",
        who="rita",
        reason='say "why"\nbriefly',
        today="2026-12-01",
    )
    assert added_lines(Q_MAJORDOMUS, after) == [
        'RULED 2026-12-01 — option "ask the operator" (rita: "say ”why” briefly")'
    ]
    assert questions.read(after).rulings[0].chosen == "ask the operator"


def test_it_writes_a_madr_ruling_into_the_decision_outcome():
    after = rule.add_ruling(
        Q_MADR_OPEN,
        fmt="madr",
        key="R1",
        chosen="Redis streams",
        who="rita",
        reason="fast",
        today="2026-12-01",
    )
    assert added_lines(Q_MADR_OPEN, after) == ['RULED 2026-12-01 — option "Redis streams" (rita: "fast")']
    assert questions.read(after, fmt="madr").rulings[0].chosen == "Redis streams"


def test_it_keeps_crlf_line_endings():
    crlf = Q_NYGARD.replace(b"\n", b"\r\n")
    after = rule.add_ruling(
        crlf, fmt="nygard", key="R1", chosen="B", who="rita", reason="r", today="2026-12-01"
    )
    assert after.count(b"\n") == crlf.count(b"\n") + 1 and after.count(b"\r\n") == after.count(b"\n")


def test_it_refuses_a_question_already_ruled_or_missing():
    with pytest.raises(rule.NotOpen, match="already ruled"):
        rule.add_ruling(Q_NYGARD, fmt="nygard", key="R2", chosen="A", who="r", reason="x", today="2026-12-01")
    with pytest.raises(rule.NotOpen, match="already ruled"):
        rule.add_ruling(
            Q_MADR_RULED, fmt="madr", key="R1", chosen="x", who="r", reason="x", today="2026-12-01"
        )
    with pytest.raises(rule.NotOpen, match="no question R9"):
        rule.add_ruling(Q_NYGARD, fmt="nygard", key="R9", chosen="A", who="r", reason="x", today="2026-12-01")


def test_it_resolves_an_open_fork_by_a_ruling_and_refuses_a_resolved_one():
    after = rule.resolve_fork(Q_NYGARD, key="F2", ruling="R1", who="rita", reason="moot", today="2026-12-01")
    assert added_lines(Q_NYGARD, after) == ['  RESOLVED 2026-12-01 — by R1 (rita: "moot")']
    assert [(f.key, f.state, f.resolved_by) for f in questions.read(after).forks][1] == (
        "F2",
        "resolved",
        "R1",
    )
    with pytest.raises(rule.NotOpen, match="already resolved"):
        rule.resolve_fork(Q_AGENTWAYS_V1, key="F1", ruling="R2", who="r", reason="x", today="2026-12-01")
