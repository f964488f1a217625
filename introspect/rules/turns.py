"""The upstream turn model: rows, judge verdicts, 3-second clustering (introspection.md §3, §6, §7).

Pure functions over event-like objects (anything with the `WaysEvent` attributes used here), so
the same code serves the database rebuild, the JSON export and the tests. Events arrive in event
order (formats-agent-ways.md §2.3 rule 4).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import partial
from itertools import compress
from operator import attrgetter, eq

import orjson

from introspect.rules.timestamps import shifted

TURN_EVENTS = frozenset({"way_fired", "way_redisclosed", "way_keyword_gated", "way_suppressed"})
TURN_GAP_SECS = 3  # agent-ways introspection.rs: a gap of more than 3 s starts a new turn
TURN_GAP = timedelta(seconds=TURN_GAP_SECS)
RAW_STAMP = attrgetter("ts_raw")
EVENT_KIND = attrgetter("event")
IS_VERDICT = partial(eq, "way_judged")  # not str.__eq__: its NotImplemented for None is true
OCCURRENCES = attrgetter("occurrences")
VERDICT_WINDOW_SECS = 3  # attach_verdicts: a verdict joins a row at most 3 s away


@dataclass(slots=True)
class Row:
    """One entry of a turn's `fired_ways` (slots: a cold import makes hundreds of thousands)."""

    event: object
    way_id: str
    trigger_channel: str
    ts_raw: str
    ts: datetime | None
    order: int
    gated: bool = False
    suppressed: str = ""
    redisclosed: bool = False
    fire_score: float | None = None
    matched_span: str | None = None
    token_position: int = 0
    judge_event: object | None = None
    judge: dict | None = None

    @property
    def injected(self) -> bool:
        return not self.gated and not self.suppressed


@dataclass
class TurnData:
    epoch: int
    ts_raw: str
    ts: datetime
    token_position: int
    rows: list[Row] = field(default_factory=list)


def expand(events: Iterable) -> list:
    """Each event as many times as its line occurred in one source (genuine repeats count twice)."""
    events = list(events)
    try:
        if max(map(OCCURRENCES, events), default=1) <= 1:
            return events  # the usual case: no line repeated, each event once
    except AttributeError:
        pass  # an event-like object without the count: each once, as below
    out = []
    for event in events:
        out.extend([event] * max(getattr(event, "occurrences", 1), 1))
    return out


def row_for(event, order: int) -> Row | None:
    """Step 1: a fire, a re-disclosure, a gated row or a withheld row; None for anything else."""
    kind = event.event
    if kind not in TURN_EVENTS or not event.way:
        return None
    # Positional, each flag given: a cold derive makes 600,000 rows (issue 29).
    return Row(
        event,
        event.way,
        "keyword:gated" if kind == "way_keyword_gated" else event.trigger or "",
        event.ts_raw or "",
        event.ts,
        order,
        kind == "way_keyword_gated",
        (event.reason or "unknown") if kind == "way_suppressed" else "",
        kind == "way_redisclosed",
        event.fire_score,
        event.matched_span,
        event.token_position or 0,
    )


def judge_fields(event) -> dict:
    """The `JudgeVerdict` object of a way_judged event (introspection.md §2.2)."""
    data = orjson.loads(event.raw)
    verdict = {
        "verdict": event.verdict,
        "p_yes": event.p_yes,
        "threshold": event.threshold if event.threshold is not None else 0.0,
        "mode": text(data.get("mode")),
        "engine": text(data.get("engine")),
        "model": text(data.get("model")),
        "judge_ms": unsigned(data.get("judge_ms")),
    }
    for key in ("reason", "ancestor"):
        if isinstance(data.get(key), str) and data[key]:
            verdict[key] = data[key]
    return verdict


def text(value) -> str:
    return value if isinstance(value, str) else ""


def unsigned(value) -> int:
    if isinstance(value, bool):
        return 0
    if isinstance(value, int) and value >= 0:
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return 0


VERDICT_SPAN = timedelta(seconds=VERDICT_WINDOW_SECS)
STAMP_ORDER = attrgetter("ts", "order")


@dataclass
class WayRows:
    """One way's rows with a UTC second, sorted by it, for the verdict search."""

    seconds: list[datetime]
    rows: list[Row]

    @classmethod
    def index(cls, rows: list[Row]) -> dict[str, WayRows]:
        grouped: dict[str, list[Row]] = {}
        for row in rows:
            if row.ts is not None:
                grouped.setdefault(row.way_id, []).append(row)
        out = {}
        for way, items in grouped.items():
            items.sort(key=STAMP_ORDER)
            out[way] = cls([r.ts for r in items], items)
        return out


# What a row's `judge` holds when the caller asked for no verdict objects: not None (the row is taken).
UNREAD_VERDICT: dict = {}


def attach_verdicts(
    rows: list[Row], judged: Sequence, start_order: int, *, verdicts: bool = True
) -> list[Row]:
    """Step 2: a block becomes a row of its own; pass/would_block marks the nearest row of its way.

    Without `verdicts`, each row a verdict reaches is marked as it would be, but its `judge` is
    UNREAD_VERDICT, not the verdict's fields: the derived rows keep only the verdict's event, and
    reading every verdict's line again was a sixth of a cold derive (issue 29)."""
    blocks: list[Row] = []
    order = start_order
    by_way = WayRows.index(rows) if judged else {}  # no verdict: nothing to search
    for event in judged:
        if not event.way or not event.verdict or event.p_yes is None or event.ts is None:
            continue
        verdict = judge_fields(event) if verdicts else UNREAD_VERDICT
        if event.verdict == "block":
            order += 1
            blocks.append(
                Row(
                    event=event,
                    way_id=event.way,
                    trigger_channel="judge",
                    ts_raw=event.ts_raw or "",
                    ts=event.ts,
                    order=order,
                    suppressed="judge",
                    token_position=event.token_position or 0,
                    judge_event=event,
                    judge=verdict,
                )
            )
            continue
        best: Row | None = None
        best_distance = None
        candidates = by_way.get(event.way)
        if candidates:
            # Only this way's rows within ±3 s: bisect on their seconds (ties keep event order).
            lo = bisect_left(candidates.seconds, shifted(event.ts, -VERDICT_SPAN))
            hi = bisect_right(candidates.seconds, shifted(event.ts, VERDICT_SPAN))
            for row in sorted(candidates.rows[lo:hi], key=lambda r: r.order):
                if row.judge is not None or row.gated:
                    continue
                distance = abs((row.ts - event.ts).total_seconds())
                if best_distance is None or distance < best_distance:
                    best, best_distance = row, distance
        if best is not None:
            best.judge, best.judge_event = verdict, event
    return blocks


def build_turns(events: Sequence, *, verdicts: bool = True) -> list[TurnData]:
    """SessionIntrospection::build steps 1–7 over one session's events in event order (without
    `verdicts`: rows marked by a verdict hold UNREAD_VERDICT, see attach_verdicts)."""
    events = expand(events)
    kinds = list(map(EVENT_KIND, events))
    # Each event's kind tested in C: a cold derive reads a million events.
    judged = list(compress(events, map(IS_VERDICT, kinds)))
    rows = [
        row
        for order, event in compress(enumerate(events), map(TURN_EVENTS.__contains__, kinds))
        if (row := row_for(event, order)) is not None
    ]
    rows += attach_verdicts(rows, judged, len(events), verdicts=verdicts)
    rows.sort(key=RAW_STAMP)  # stable: equal ts keep event order, blocks last
    turns: list[TurnData] = []
    last: datetime | None = None
    turn: TurnData | None = None
    for row in rows:
        ts = row.ts
        if ts is None:
            continue  # not UTC Z: skipped, in no turn and no count (introspection.md §3.2)
        # A timedelta compare: what `total_seconds() > TURN_GAP_SECS` says, at microsecond grain.
        if turn is None or ts - last > TURN_GAP:
            turn = TurnData(epoch=len(turns) + 1, ts_raw=row.ts_raw, ts=ts, token_position=0)
            turns.append(turn)
        turn.rows.append(row)
        if row.token_position > turn.token_position:
            turn.token_position = row.token_position
        last = ts
    return turns


@dataclass(frozen=True)
class Summary:
    turns: int
    distinct_ways: int
    total_fires: int
    redisclosures: int
    gated_candidates: int
    suppressed_candidates: int
    judge_blocked: int
    keyed_turns: int


def summarise(turns: Sequence[TurnData], keyed_turns: int = 0) -> Summary:
    """Step 10: counts over every row; fires and distinct ways over injected first fires only."""
    fired: set[str] = set()
    fires = redisclosures = gated = suppressed = judge_blocked = 0
    for turn in turns:  # one pass over every row: a cold import summarises 600,000
        for row in turn.rows:
            redisclosures += row.redisclosed
            gated += row.gated
            if row.suppressed:
                suppressed += 1
                judge_blocked += row.suppressed == "judge"
            elif not row.gated and not row.redisclosed:  # injected, and a first fire
                fires += 1
                fired.add(row.way_id)
    return Summary(
        turns=len(turns),
        distinct_ways=len(fired),
        total_fires=fires,
        redisclosures=redisclosures,
        gated_candidates=gated,
        suppressed_candidates=suppressed,
        judge_blocked=judge_blocked,
        keyed_turns=keyed_turns,
    )
