"""The timestamps agent-ways and Claude Code write, read as upstream reads them."""

from __future__ import annotations

import re
from datetime import UTC, datetime

_UTC_Z = re.compile(rb"^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d+)?Z$")
_TS = re.compile(r"^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6})\d*)?Z$")


def utc_second(ts: object) -> datetime | None:
    """agent-fmt parse_utc_iso: `YYYY-MM-DDTHH:MM:SS[.fraction]Z`, fraction truncated; else None."""
    if not isinstance(ts, str):
        return None
    match = _UTC_Z.match(ts.encode("ascii", "replace"))
    if match is None:
        return None
    try:
        return datetime(*(int(part) for part in match.groups()), tzinfo=UTC)
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
