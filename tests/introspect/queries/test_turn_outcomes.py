"""A turn's stored outcome becomes its marks: only the signals it has, trouble first, each with its
definition and linked to the entries behind it (the first by its label, the others by number)."""

from __future__ import annotations

from decimal import Decimal

from introspect.models import TurnOutcome
from introspect.queries.turn_outcomes import entry_link, signals_of
from introspect.rules import outcome_signals as signals


def test_a_quiet_turn_has_no_marks_but_its_measures():
    found = signals_of(TurnOutcome(number=3, tokens=1200, cost_usd=Decimal("0.01"), duration_secs=4.0))
    assert found.marks == []
    assert (found.tokens, found.cost_usd, found.duration_secs) == (1200, Decimal("0.01"), 4.0)
    assert found.tokens_title == signals.DEFINITIONS[signals.TOKENS]


def test_each_signal_links_its_causes_and_says_what_it_counts():
    row = TurnOutcome(
        number=2,
        tool_errors=3,
        interrupts=1,
        retries=1,
        correction_cue="fault",
        causes={
            signals.TOOL_ERRORS: ["r1", "r2", "r3"],
            signals.INTERRUPTS: ["i1"],
            signals.RETRIES: ["c2"],
            signals.CORRECTION: ["p3"],
        },
    )
    marks = signals_of(row).marks
    assert [m.name for m in marks] == [
        signals.TOOL_ERRORS,
        signals.CORRECTION,
        signals.INTERRUPTS,
        signals.RETRIES,
    ]
    errors, correction, interrupt, retry = marks
    assert (errors.label, errors.href) == ("3 tool errors", "?u=r1")
    assert [(c.number, c.href) for c in errors.more] == [(2, "?u=r2"), (3, "?u=r3")]
    assert errors.title == signals.DEFINITIONS[signals.TOOL_ERRORS]
    assert (correction.label, correction.href) == ("corrected", "?u=p3")
    assert (
        correction.title.startswith(signals.DEFINITIONS[signals.CORRECTION]) and "fault" in correction.title
    )
    assert "precision 6 of 6, recall 6 of 7" in correction.title
    assert (interrupt.label, retry.label) == ("interrupted", "1 retry")


def test_a_link_carries_any_uuid_as_data():
    assert entry_link("a b/c") == "?u=a%20b%2Fc"
