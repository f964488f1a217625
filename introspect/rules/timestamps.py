"""The timestamps agent-ways and Claude Code write, read as upstream reads them."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

_UTC_Z = re.compile(rb"^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d+)?Z$")
# A whole-second stamp (nearly every agent-ways stamp), read by its places: no encoding, no groups.
_WHOLE_SECOND = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z", re.ASCII)
_TS = re.compile(r"^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6})\d*)?Z$")


def utc_second(ts: object) -> datetime | None:
    """agent-fmt parse_utc_iso: `YYYY-MM-DDTHH:MM:SS[.fraction]Z`, fraction truncated; else None."""
    if not isinstance(ts, str):
        return None
    if len(ts) == 20 and _WHOLE_SECOND.fullmatch(ts) is not None:
        try:
            return datetime(
                int(ts[0:4]),
                int(ts[5:7]),
                int(ts[8:10]),
                int(ts[11:13]),
                int(ts[14:16]),
                int(ts[17:19]),
                tzinfo=UTC,
            )
        except ValueError:
            return None
    match = _UTC_Z.match(ts.encode("ascii", "replace"))
    if match is None:
        return None
    try:
        return datetime(*map(int, match.groups()), tzinfo=UTC)
    except ValueError:
        return None


def parse_timestamp(value: object) -> datetime | None:
    """Milliseconds kept (ordering); only UTC `…Z` stamps count, as introspection reads them."""
    if not isinstance(value, str):
        return None
    match = _TS.match(value)
    if match is None:
        return None
    year, month, day, hour, minute, second, fraction = match.groups()
    micro = int((fraction or "0").ljust(6, "0"))
    try:
        return datetime(
            int(year), int(month), int(day), int(hour), int(minute), int(second), micro, tzinfo=UTC
        )
    except ValueError:
        return None


# Python's calendar ends with the years 1 and 9999 (agent-ways' reads far beyond). A stamp in either
# is kept as it was written and placed by it, but never moved: a join's 8 s or a chart's week added
# to it would raise OverflowError, and a time zone could push it past the end when it is shown.
EARLIEST = datetime(2, 1, 1, tzinfo=UTC)
LATEST = datetime(9999, 1, 1, tzinfo=UTC)
OUT_OF_RANGE = "ts_out_of_range"  # the flag on an imported line whose stamp is one of them


def in_range(ts: datetime) -> bool:
    """Whether the code may add seconds, days or weeks to this stamp (EARLIEST ≤ ts < LATEST)."""
    return EARLIEST <= ts < LATEST


def shifted(ts: datetime, delta: timedelta) -> datetime:
    """`ts + delta`, held at the calendar's end instead of raising: as a bound ("stamps up to 8 s
    after this one") the end of the calendar is exact, since no stamp lies beyond it."""
    try:
        return ts + delta
    except OverflowError:
        end = datetime.max if delta > timedelta(0) else datetime.min
        return end.replace(tzinfo=ts.tzinfo)


def raw_second(ts: datetime) -> str:
    """The stamp's second as events write it (`0001-01-01T00:00:00`), to compare with `ts_raw`:
    strftime's %Y drops the zeros of a year before 1000."""
    return ts.isoformat(timespec="seconds")[:19]
