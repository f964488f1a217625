"""Lenient readers for query-string parameters: a malformed value reads as absent, never a 500.

Malformed includes out of range: a whole number that does not fit a 64-bit column (a cursor or a
pk compared with one overflows SQLite's driver, and `timedelta(days=…)` overflows long before),
and a float that is not finite (`nan`, `inf`, `-1e999`). A NUL never gets this far
(lib/middleware.py answers 400 to it).
"""

from __future__ import annotations

import math
from datetime import date

from django.http import HttpRequest

INT_LIMIT = 2**63 - 1  # a signed 64-bit column: SQLite's INTEGER, PostgreSQL's bigint
DIGITS = 25  # 19 digits, a sign and some padding: no longer string is a number in range


def parse_int(raw: str | None, *, low: int = -INT_LIMIT, high: int = INT_LIMIT) -> int | None:
    """`raw` as a whole number in [low, high], else None."""
    if not raw or len(raw) > DIGITS:
        return None
    try:
        value = int(raw)
    except ValueError:
        return None
    return value if low <= value <= high else None


def int_param(
    request: HttpRequest,
    name: str,
    default: int | None = None,
    *,
    low: int = -INT_LIMIT,
    high: int = INT_LIMIT,
) -> int | None:
    value = parse_int(request.GET.get(name, ""), low=low, high=high)
    return default if value is None else value


def float_param(request: HttpRequest, name: str) -> float | None:
    raw = request.GET.get(name, "")
    if not raw or len(raw) > 64:
        return None
    try:
        value = float(raw)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def date_param(request: HttpRequest, name: str) -> date | None:
    raw = request.GET.get(name, "")
    if len(raw) > 32:
        return None
    try:
        value = date.fromisoformat(raw)
    except ValueError:
        return None
    # The first and last days have no day before or after: a range query built on them overflows.
    return value if date.min < value < date.max else None


def flag(request: HttpRequest, name: str) -> bool:
    return request.GET.get(name, "").lower() in {"1", "true", "yes", "on"}
