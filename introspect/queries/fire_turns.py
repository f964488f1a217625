"""A session's fire turns (agent-ways' clusters of fires) as the session page shows them: a page of
them with their rows, each row's why-fired lines, the near-misses of each turn's scan, and the
compaction windows the scrubber lists."""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from datetime import timedelta

from django.db.models import Count, Max, Min, Prefetch, Q, QuerySet

from introspect.models import Project, Session, Turn, TurnWay, Way, WaysEvent
from introspect.queries import near_misses, providers
from introspect.rules import evidence
from introspect.rules.timestamps import shifted

TURNS_PER_PAGE = 20


def with_rows(turns: QuerySet[Turn]) -> QuerySet[Turn]:
    """Fire turns with their rows (and each row's event and verdict) in one more query."""
    rows = TurnWay.objects.select_related("event", "judge_event").order_by("position")
    return turns.prefetch_related(Prefetch("ways", queryset=rows))


def turns_page(
    session: Session, *, start: int = 1, after: int | None = None, size: int = TURNS_PER_PAGE
) -> list[Turn]:
    """A page of turns from epoch `start` (or after `after`, for live follow), with their rows."""
    turns = (
        session.turns.filter(epoch__gt=after) if after is not None else session.turns.filter(epoch__gte=start)
    )
    return list(with_rows(turns.order_by("epoch"))[:size])


def near_misses_by_turn(session: Session, turns: list[Turn]) -> dict[int, list[near_misses.NearMiss]]:
    """Near-misses placed in the turn whose scan they belong to: the last turn starting ≤ 3 s after them.

    Only the page's time span is read (up to the next page's first turn), so long sessions cost the same.
    """
    if not turns:
        return {}
    scan = timedelta(seconds=3)
    lo = shifted(turns[0].ts, -scan)
    misses = WaysEvent.objects.filter(session=session, event="way_nearmiss", ts__gte=lo)
    following = session.turns.filter(epoch=turns[-1].epoch + 1).values_list("ts", flat=True).first()
    if following is not None:
        misses = misses.filter(ts__lt=shifted(following, -scan))
    starts = [turn.ts for turn in turns]
    out: dict[int, list[near_misses.NearMiss]] = {}
    for miss in misses.order_by("ts"):
        at = bisect_right(starts, shifted(miss.ts, scan)) - 1
        if at >= 0:
            out.setdefault(turns[at].pk, []).append(near_misses.near_miss(miss, session.sid))
    return out


@dataclass(frozen=True, slots=True)
class EventRow:
    """One row of a fire turn (a way it fired, re-disclosed or withheld) with its why-fired lines
    (introspection.md §5) for the drill-down."""

    row: TurnWay
    evidence: list[evidence.Evidence]


@dataclass(frozen=True, slots=True)
class TurnCard:
    """A fire turn as the session page draws it: the turn, its rows, the near-misses of its scan,
    what other apps note under it (queries/providers.py) and, on the conversation, the
    conversation turn it sits in (None: tied to no prompt)."""

    turn: Turn
    rows: list[EventRow]
    near_misses: list[near_misses.NearMiss]
    notes: list[providers.Note]
    conversation_turn: int | None = None


def turn_cards(
    turns: list[Turn],
    by_id: dict[str, Way],
    session: Session,
    *,
    misses: dict[int, list[near_misses.NearMiss]],
    notes: dict[int, list[providers.Note]],
    numbers: dict[int, int | None],
) -> dict[int, TurnCard]:
    """The card of each turn, by its epoch: the one place a TurnCard (and an EventRow) is built.
    `misses` and `notes` are by the turn's pk (near_misses_by_turn, providers.session_notes),
    `numbers` (the conversation turns, queries/conversation.fire_numbers) by its epoch."""
    return {
        turn.epoch: TurnCard(
            turn=turn,
            rows=[
                EventRow(row=row, evidence=row_evidence(row, turn, by_id.get(row.way_id), session))
                for row in turn.ways.all()
            ],
            near_misses=misses.get(turn.pk, []),
            notes=notes.get(turn.pk, []),
            conversation_turn=numbers.get(turn.epoch),
        )
        for turn in turns
    }


def row_evidence(row: TurnWay, turn: Turn, way: Way | None, session: Session) -> list[evidence.Evidence]:
    """A row's why-fired lines: what was recorded when it fired, against today's criteria."""
    return evidence.why_fired(
        channel=row.trigger_channel,
        matched_span=row.matched_span,
        fire_score=row.fire_score,
        surface=row.event.surface,
        criteria=way.criteria if way else {},
        token_position=turn.token_position,
        window_k=session.window_k,
        keyed=turn.join_confidence == Turn.Join.KEYED,
    )


def ways_by_id(way_ids: set[str], project: Project | None) -> dict[str, Way]:
    """The way file that resolves each id today: project root first, then user, then core."""
    rank = {Way.RootKind.PROJECT: 0, Way.RootKind.USER: 1, Way.RootKind.CORE: 2}
    found: dict[str, Way] = {}
    candidates = Way.objects.filter(way_id__in=way_ids, present=True).filter(
        Q(project__isnull=True) | Q(project=project)
    )
    for way in sorted(candidates, key=lambda w: rank[w.root_kind]):
        found.setdefault(way.way_id, way)
    return found


@dataclass(frozen=True)
class WindowSpan:
    number: int
    start_ts: str
    first_turn: int | None
    last_turn: int | None
    turns: int
    peak: int = 0  # the largest context position a turn of the window recorded

    @property
    def link(self) -> str:
        """Its first fire turn, on the page that shows it (views: `from` redirects there)."""
        first = self.first_turn or 1
        return f"?from={first}#turn-{first}"


def window_spans(session: Session) -> list[WindowSpan]:
    """The compaction windows with the turns each holds, for the scrubber (one covering-index scan)."""
    spans = {
        row["window"]: row
        for row in session.turns.values("window").annotate(
            first=Min("epoch"), last=Max("epoch"), n=Count("pk"), peak=Max("token_position")
        )
    }
    windows = list(session.windows.order_by("number")) or []
    numbers = sorted({w.number for w in windows} | set(spans))
    starts = {w.number: w.start_ts for w in windows}
    return [
        WindowSpan(
            n,
            starts.get(n, ""),
            spans.get(n, {}).get("first"),
            spans.get(n, {}).get("last"),
            spans.get(n, {}).get("n", 0),
            spans.get(n, {}).get("peak") or 0,
        )
        for n in numbers
    ]


def peak_context(windows: list[WindowSpan]) -> int:
    """The largest context position any turn recorded (0: none recorded)."""
    return max((window.peak for window in windows), default=0)
