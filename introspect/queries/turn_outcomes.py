"""The outcome signals of the conversation turns a page shows (TurnOutcome rows, derive/turn_outcomes.py)
as small marks: each says what it counts, carries its definition (rules/outcome_signals.DEFINITIONS)
and links to the entries that caused it."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import Decimal
from urllib.parse import quote

from introspect.models import Session, TurnOutcome
from introspect.rules import corrections
from introspect.rules import outcome_signals as signals

# The counted signals in the order they are shown, with the words for one and for more.
COUNTED = (
    (signals.TOOL_ERRORS, "tool error", "tool errors"),
    (signals.INTERRUPTS, "interrupted", "interrupts"),
    (signals.RETRIES, "retry", "retries"),
    (signals.CHURN, "churned edit", "churned edits"),
    (signals.COMPACTIONS, "compacted", "compactions"),
)

SHOWN_ORDER = signals.TURN_SIGNALS


@dataclass(frozen=True)
class Cause:
    """One more entry behind a mark: its number among them and where the page shows it."""

    number: int
    href: str


@dataclass(frozen=True)
class Mark:
    """One signal of a turn: `label` links to the first entry that caused it, `more` to the rest."""

    name: str
    label: str
    title: str
    href: str
    more: tuple[Cause, ...] = ()


@dataclass(frozen=True)
class TurnSignals:
    """A turn's marks, and the measures every turn has (tokens, cost, duration) with their definitions."""

    number: int
    marks: list[Mark] = field(default_factory=list)
    tokens: int = 0
    cost_usd: Decimal | None = None
    unpriced_messages: int = 0
    duration_secs: float | None = None
    tokens_title: str = signals.DEFINITIONS[signals.TOKENS]
    cost_title: str = signals.DEFINITIONS[signals.COST]
    duration_title: str = signals.DEFINITIONS[signals.DURATION]

    @property
    def shown(self) -> bool:
        """Whether the turn has anything to show (turn 0, before any prompt, usually has not)."""
        return bool(self.marks or self.tokens or self.cost_usd is not None or self.duration_secs is not None)


def entry_link(uuid: str) -> str:
    """The session page's permalink to an entry: the page (turn, part) that holds it, at its card."""
    return f"?u={quote(uuid, safe='')}"


def mark(name: str, label: str, title: str, uuids: list[str]) -> Mark:
    return Mark(
        name=name,
        label=label,
        title=title,
        href=entry_link(uuids[0]) if uuids else "",
        more=tuple(Cause(n, entry_link(uuid)) for n, uuid in enumerate(uuids[1:], start=2)),
    )


def signals_of(row: TurnOutcome) -> TurnSignals:
    causes = row.causes or {}
    marks = []
    for name, one, many in COUNTED:
        count = getattr(row, name)
        if count:
            label = one if count == 1 and name in (signals.INTERRUPTS, signals.COMPACTIONS) else None
            label = label or f"{count} {one if count == 1 else many}"
            marks.append(mark(name, label, signals.DEFINITIONS[name], causes.get(name, [])))
    if row.correction_cue:
        title = (
            f"{signals.DEFINITIONS[signals.CORRECTION]} Matched: {row.correction_cue}. {corrections.MEASURED}"
        )
        marks.append(mark(signals.CORRECTION, "corrected", title, causes.get(signals.CORRECTION, [])))
    marks.sort(key=lambda found: SHOWN_ORDER.index(found.name))
    return TurnSignals(
        number=row.number,
        marks=marks,
        tokens=row.tokens,
        cost_usd=row.cost_usd,
        unpriced_messages=row.unpriced_messages,
        duration_secs=row.duration_secs,
    )


def turn_signals(session: Session, numbers: Iterable[int]) -> dict[int, TurnSignals]:
    """The signals of these conversation turns of the session, by turn number: one query."""
    wanted = sorted(set(numbers))
    if not wanted or session.transcript_id is None:
        return {}
    rows = TurnOutcome.objects.filter(session=session, number__in=wanted)
    return {row.number: signals_of(row) for row in rows}
