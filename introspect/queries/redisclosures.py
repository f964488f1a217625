"""Re-disclosures of a way and the token distance from the injection before each."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from introspect.queries.way_counts import INJECTED, REDISCLOSED

REDISCLOSURE_LIMIT = 200


@dataclass(frozen=True)
class Redisclosure:
    """A re-disclosure and the token distance from the previous injection in its window.

    `token_position` 0 means not recorded (no transcript when the hook ran), so a distance is only
    computed when both positions were recorded.
    """

    sid: str
    window: int
    epoch: int
    ts: datetime | None
    token_position: int
    previous_epoch: int | None
    previous_token_position: int | None

    @property
    def distance(self) -> int | None:
        if self.previous_epoch is None or not self.token_position or not self.previous_token_position:
            return None
        return self.token_position - self.previous_token_position

    @property
    def why_no_distance(self) -> str:
        if self.previous_epoch is None:
            return "no earlier injection in this window"
        if not self.token_position or not self.previous_token_position:
            return "token position not recorded (0)"
        return ""


def redisclosure_distances(rows) -> list[Redisclosure]:
    """Each re-disclosure with the token distance from the previous injection of the way.

    "Previous" is the latest fire or re-disclosure of the same way in the same session and
    compaction window. One query over the sessions that have a re-disclosure; latest first.
    """
    sessions = rows.filter(REDISCLOSED).values("turn__session")
    out: list[Redisclosure] = []
    last: dict[tuple[int, int], tuple[int, int]] = {}
    for item in (
        rows.filter(INJECTED, turn__session__in=sessions)
        .order_by(
            "turn__session",
            "turn__epoch",
            "position",
        )
        .values(
            "turn__session",
            "turn__session__sid",
            "turn__window",
            "turn__epoch",
            "redisclosed",
            "event__token_position",
            "event__ts",
        )
    ):
        key = (item["turn__session"], item["turn__window"])
        position = item["event__token_position"] or 0
        if item["redisclosed"]:
            previous = last.get(key)
            out.append(
                Redisclosure(
                    sid=item["turn__session__sid"],
                    window=item["turn__window"],
                    epoch=item["turn__epoch"],
                    ts=item["event__ts"],
                    token_position=position,
                    previous_epoch=previous[0] if previous else None,
                    previous_token_position=previous[1] if previous else None,
                )
            )
        last[key] = (item["turn__epoch"], position)
    out.reverse()
    return out[:REDISCLOSURE_LIMIT]
