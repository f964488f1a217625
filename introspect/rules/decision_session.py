"""The document of `manage.py introspect decisions SESSION --json` (decisions-and-effectiveness.md §8.8).

A session's turns and pulls as upstream's reader groups and judges them over the whole log (no
window): the turns opened by a scan of the session, by ordinal (0-based over every turn of the log),
and the session's pulls in stream order (archives oldest first, then live; not sorted by ts).
"""

from __future__ import annotations

from collections.abc import Iterable

from introspect.rules.decision_reader import Records
from introspect.rules.decision_turns import Joined, Turn, group


def session_document(lines: Iterable[bytes | str], session: str) -> dict:
    turns: list[Turn] = []
    pulls: list[Joined] = []

    def take(item: object) -> None:
        if isinstance(item, Turn) and item.start.session == session:
            turns.append(item)
        elif isinstance(item, Joined) and item.pull.session == session:
            pulls.append(item)

    group(Records(lines), take)
    turns.sort(key=lambda turn: turn.ordinal)
    return {
        "session": session,
        "turns": [
            {
                "ordinal": turn.ordinal,
                "session": turn.start.session,
                "agent": turn.start.agent,
                "scan_id": turn.start.scan_id,
                "scans": [scan.scan_id for scan in turn.scans],
            }
            for turn in turns
        ],
        "pulls": [
            {
                "ts": joined.pull.ts,
                "agent": joined.pull.agent,
                "way": joined.pull.way,
                "scan_id": joined.pull.scan_id,
                "join": joined.join.value,
                "turn": joined.turn,
            }
            for joined in pulls
        ],
    }
