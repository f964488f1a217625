"""The documents of `manage.py introspect stats --json` (its `decisions` key) and `introspect decisions
SESSION --json` (decisions-and-effectiveness.md §8.8), from the imported decision log by the rules."""

from __future__ import annotations

import time

from introspect.documents import decision_log
from introspect.rules import decision_stats
from introspect.rules.decision_session import session_document


def stats_document(*, project: str | None = None, days: int | None = None, now: int | None = None) -> dict:
    """`{"decisions": …}`: upstream's decisions section of `ways tune stats --json` for the same log.

    `now` (a Unix second, default the clock) ends the `--days` calendar."""
    if not decision_log.present():
        return {"decisions": decision_stats.json_value(None)}
    window, span = decision_stats.days_window(days, int(time.time()) if now is None else now)
    report = decision_stats.report(decision_log.stream_records(), window=window, project=project, span=span)
    return {"decisions": decision_stats.json_value(report)}


def decisions_document(session: str) -> dict:
    """The session's turns and pulls as upstream's reader groups and judges them over the whole log."""
    return session_document(decision_log.stream_records(), session)
