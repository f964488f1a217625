"""agent-ways `decisions::Turns` (@8e1a61ba): decision records grouped into turns, each pull judged as it arrives.

- A scan with `turn_start: true` opens a turn keyed `(session, agent)`, handing on the key's open turn
  first. Turns are numbered 0, 1, … in stream order (`ordinal`).
- A `turn_start: false` scan joins its own key's open turn. Without one it is an orphan when its agent
  is `main` or has opened turns of its own (a teammate); any other agent's scan (a subagent's nested
  dispatch) joins the session's most recently active open turn, else it is an orphan too.
- Every scan is indexed by `scan_id`, so a pull joins the scan it names even after that scan's turn
  closed. It is `delivered` when its context already had the way: for the agent that wrote the scan,
  that agent's scans of the turn up to the pull fired or re-disclosed it (for a scan outside a turn,
  the scan itself did); for another agent (a subagent naming its dispatch), the scan stashed it.
  Otherwise `recall_miss`; `no_scan_id` for a null `scan_id`; `unknown` when no scan has that id.
- A turn is handed on when its key starts another, when no scan joined it for a day of record time
  (swept at most hourly; a record more than a day past the clock moves it only once a second record
  confirms the gap), or at the end, in ordinal order.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from enum import StrEnum

from introspect.rules.agent_fmt_when import parse_utc_iso
from introspect.rules.decision_records import Pull, Record, Scan

IDLE_SECS = 86_400
SWEEP_SECS = 3_600
MAIN = "main"
DELIVERED = ("fired", "redisclosed")


class Join(StrEnum):
    DELIVERED = "delivered"
    RECALL_MISS = "recall_miss"
    NO_SCAN_ID = "no_scan_id"
    UNKNOWN = "unknown"


@dataclass(slots=True)
class Turn:
    """The scan that opened a turn and the scans attributed to it after, in log order."""

    ordinal: int
    start: Scan
    scans: list[Scan] = field(default_factory=list)

    def all_scans(self) -> list[Scan]:
        return [self.start, *self.scans]


@dataclass(frozen=True, slots=True)
class Orphan:
    """A `turn_start: false` scan with no turn in its session to belong to."""

    scan: Scan


@dataclass(frozen=True, slots=True)
class Joined:
    """A pull with its class, the ordinal of the turn holding the scan it named, and that scan's project."""

    pull: Pull
    join: Join
    turn: int | None
    project: str | None


Grouped = Turn | Orphan | Joined


@dataclass(slots=True)
class _ScanInfo:
    """What a later pull needs of one scan, held for every scan read: a few words, its names interned."""

    turn: int | None
    agent: str
    project: str
    stashed: tuple[str, ...]
    delivered: tuple[str, ...]  # read only for a scan outside a turn of its agent's


@dataclass(slots=True)
class _TurnInfo:
    agent: str
    delivered: set[str] = field(default_factory=set)


@dataclass(slots=True)
class _Open:
    turn: Turn
    agent: str
    last: int


class Turns:
    """Groups a record stream as it arrives; `push` and `finish` hand what completes to `emit`."""

    def __init__(self) -> None:
        self._open: dict[tuple[str, str], _Open] = {}
        self._scans: dict[str, _ScanInfo] = {}
        self._turns: list[_TurnInfo] = []
        self._turn_agents: set[str] = set()
        self._clock = 0
        self._jump = False
        self._last_sweep = 0

    @property
    def indexed(self) -> int:
        """Scans indexed so far."""
        return len(self._scans)

    def push(self, record: Record, emit: Callable[[Grouped], object]) -> None:
        now = parse_utc_iso(record.ts)
        if now is not None and self._advance(now) and now >= self._last_sweep + SWEEP_SECS:
            self._last_sweep = now
            self._close_idle(now, emit)
        if isinstance(record, Scan):
            self._scan(record, now, emit)
        else:
            emit(self._join(record))

    def finish(self, emit: Callable[[Grouped], object]) -> None:
        """Hand on every turn still open, in the order they opened."""
        rest = sorted((entry.turn for entry in self._open.values()), key=lambda turn: turn.ordinal)
        self._open.clear()
        for turn in rest:
            emit(turn)

    def _advance(self, t: int) -> bool:
        # A lone record more than a day ahead is held back once, so one future-dated line cannot hand on
        # every open turn; a second one past the clock confirms a real gap.
        if self._clock != 0 and t > self._clock + IDLE_SECS and not self._jump:
            self._jump = True
            return False
        self._jump = False
        self._clock = max(self._clock, t)
        return True

    def _scan(self, scan: Scan, parsed: int | None, emit: Callable[[Grouped], object]) -> None:
        # Read after the sweep above, as upstream re-reads the ts in `scan`.
        now = self._last_sweep if parsed is None else parsed
        agent = scan.agent
        key = (scan.session, agent)
        turn_key: tuple[str, str] | None
        if scan.turn_start:
            done = self._open.pop(key, None)
            if done is not None:
                emit(done.turn)
            ordinal = len(self._turns)
            self._turns.append(_TurnInfo(sys.intern(agent)))
            self._turn_agents.add(agent)
            self._open[key] = _Open(Turn(ordinal, scan), agent, now)
            turn_key = key
        elif key in self._open:
            turn_key = key
        elif agent == MAIN or agent in self._turn_agents:
            turn_key = None  # an agent that opens its own turns never joins another's
        else:
            candidates = [
                (entry.last, entry.turn.ordinal, open_key)
                for open_key, entry in self._open.items()
                if open_key[0] == scan.session
            ]
            turn_key = max(candidates)[2] if candidates else None
        stashed, delivered = [], []
        for outcome in scan.outcomes:
            if outcome.result in DELIVERED:
                delivered.append(sys.intern(outcome.way))
            elif outcome.result == "stashed":
                stashed.append(sys.intern(outcome.way))
        info = _ScanInfo(
            turn=self._open[turn_key].turn.ordinal if turn_key is not None else None,
            agent=sys.intern(agent),
            project=sys.intern(scan.project),
            stashed=tuple(stashed),
            delivered=tuple(delivered),
        )
        if turn_key is not None:
            entry = self._open[turn_key]
            if entry.agent == agent:
                self._turns[entry.turn.ordinal].delivered.update(info.delivered)
            entry.last = max(entry.last, now)
            if not scan.turn_start:
                entry.turn.scans.append(scan)
        if scan.scan_id:
            self._scans[scan.scan_id] = info
        if turn_key is None:
            emit(Orphan(scan))

    def _join(self, pull: Pull) -> Joined:
        if pull.scan_id is None:
            return Joined(pull, Join.NO_SCAN_ID, None, None)
        info = self._scans.get(pull.scan_id)
        if info is None:
            return Joined(pull, Join.UNKNOWN, None, None)
        if pull.agent == info.agent:
            turn = self._turns[info.turn] if info.turn is not None else None
            if turn is not None and turn.agent == info.agent:
                delivered = pull.way in turn.delivered
            else:
                delivered = pull.way in info.delivered
        else:
            delivered = pull.way in info.stashed
        return Joined(pull, Join.DELIVERED if delivered else Join.RECALL_MISS, info.turn, info.project)

    def _close_idle(self, now: int, emit: Callable[[Grouped], object]) -> None:
        idle = [key for key, entry in self._open.items() if entry.last + IDLE_SECS < now]
        done = sorted((self._open.pop(key).turn for key in idle), key=lambda turn: turn.ordinal)
        for turn in done:
            emit(turn)


def group(records: Iterable[Record], emit: Callable[[Grouped], object]) -> None:
    """Group a record stream into turns, orphans and judged pulls, handing each on as it completes."""
    turns = Turns()
    for record in records:
        turns.push(record, emit)
    turns.finish(emit)
