"""Turns confirmed (decisions-and-effectiveness.md §8.2): where a session has both agent-ways' decision log
and its events, each conversation turn says which source saw it, and every disagreement is listed.

**Rule** (waysweb). A `turn_start` scan is an exact turn boundary; the events' fire turns are fires no
more than 3 s apart. A decision turn spans from its opening scan to the next one of the session's main
agent. They disagree when:
- the opening scan fired or re-disclosed ways and no fire turn of the events begins inside the decision
  turn (the events' clustering put those fires in an earlier fire turn, or no event was logged);
- a fire turn begins inside a decision turn but the two were tied to different prompts;
- a fire turn is keyed to a prompt (the prompt hook injected ways there, so it ran and scanned) and no
  decision turn is tied to that prompt (upstream writes no scan for a system-envelope prompt or a
  project with `enabled: false`, so this may be right, and is listed anyway).
Fires before the first scan (session-start ways) are no disagreement: no prompt scan covers them.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

DECISION = "decision log"
EVENTS = "events"
BOTH = "decision log and events"
CLUSTER_SECS = 3


@dataclass(frozen=True)
class DecisionMark:
    """A decision turn as the rule needs it: its opening scan's second, its prompt, what it showed."""

    ordinal: int
    second: datetime
    prompt: int | None  # the transcript prompt it was tied to (a pk), keyed or heuristic
    shown: tuple[str, ...]  # ways the opening scan fired or re-disclosed


@dataclass(frozen=True)
class FireMark:
    """An events fire turn as the rule needs it."""

    epoch: int
    second: datetime
    prompt: int | None
    keyed: bool


@dataclass(frozen=True)
class Disagreement:
    ordinal: int | None  # the decision turn, when one is concerned
    epoch: int | None  # the fire turn, when one is concerned
    prompt: int | None
    text: str


def turn_sources(decisions: Sequence[DecisionMark], fires: Sequence[FireMark]) -> dict[int, str]:
    """Which source saw each prompt's turn, by prompt pk: the decision log, the events, or both."""
    seen: dict[int, set[str]] = {}
    for mark in decisions:
        if mark.prompt is not None:
            seen.setdefault(mark.prompt, set()).add(DECISION)
    for fire in fires:
        if fire.prompt is not None:
            seen.setdefault(fire.prompt, set()).add(EVENTS)
    return {prompt: BOTH if len(found) == 2 else found.pop() for prompt, found in seen.items()}


def disagreements(decisions: Sequence[DecisionMark], fires: Sequence[FireMark]) -> list[Disagreement]:
    """Every disagreement between the two sources, in time order (`decisions` and `fires` in time order)."""
    if not decisions:
        return []
    starts = [mark.second for mark in decisions]
    fire_seconds = [fire.second for fire in fires]
    inside: dict[int, list[FireMark]] = {}
    found: list[tuple[datetime, Disagreement]] = []
    tied = {mark.prompt for mark in decisions if mark.prompt is not None}
    for fire in fires:
        at = bisect_right(starts, fire.second) - 1
        if at < 0:
            continue  # before the first scan: session-start ways
        mark = decisions[at]
        inside.setdefault(mark.ordinal, []).append(fire)
        # a fire turn at a prompt no decision turn is tied to is the disagreement below, once
        if fire.prompt in tied and mark.prompt is not None and fire.prompt != mark.prompt:
            text = (
                f"fire turn {fire.epoch} began inside decision turn {mark.ordinal}, "
                "but the two are tied to different prompts"
            )
            found.append((fire.second, Disagreement(mark.ordinal, fire.epoch, fire.prompt, text)))
    for fire in fires:
        if fire.keyed and fire.prompt is not None and fire.prompt not in tied and fire.second >= starts[0]:
            text = (
                f"fire turn {fire.epoch} is keyed to a prompt whose hook injected ways, "
                "but no turn_start scan of the decision log is tied to that prompt"
            )
            found.append((fire.second, Disagreement(None, fire.epoch, fire.prompt, text)))
    for n, mark in enumerate(decisions):
        if not mark.shown or inside.get(mark.ordinal):
            continue
        last = bisect_left(fire_seconds, mark.second) - 1
        near = fires[last] if last >= 0 and n > 0 and fires[last].second >= starts[n - 1] else None
        text = f"the opening scan showed {', '.join(mark.shown)}, and no fire turn of the events begins in this turn"
        if near is not None:
            gap = int((mark.second - near.second).total_seconds())
            text += f": fire turn {near.epoch} began {gap} s before it" + (
                f" (fires no more than {CLUSTER_SECS} s apart are one fire turn)"
                if gap <= CLUSTER_SECS
                else ""
            )
        found.append(
            (mark.second, Disagreement(mark.ordinal, near.epoch if near else None, mark.prompt, text))
        )
    found.sort(key=lambda item: item[0])
    return [item[1] for item in found]
