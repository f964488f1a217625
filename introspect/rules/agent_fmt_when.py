"""agent-fmt's `when.rs` (@12b8c252): the UTC stamps agent-ways writes, and its parser, to the letter.

The decision reader's clock and the stats calendar use this parser, which is laxer than
`timestamps.utc_second`: fields need not be zero-padded, a `+` sign is taken (Rust's integer
`parse`), the 60th second and the 31st of any month are accepted, and anything before 1970 is `None`.
Arithmetic wraps at 64 bits as Rust's release builds do, so a hostile year gives upstream's answer.
"""

from __future__ import annotations

import re

from introspect.rules.rust_json import rust_trim

DAY_SECS = 86_400
_U64 = 2**64
_I64 = 2**63
_CANONICAL = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})Z")


def _i64(value: int) -> int:
    return (value + _I64) % _U64 - _I64


def _rust_int(text: str, *, signed: bool, bits: int) -> int | None:
    """`str::parse::<iN/uN>()`: one optional sign (`-` only when signed), then ASCII digits, in range."""
    digits = text[1:] if text[:1] == "+" or (signed and text[:1] == "-") else text
    if not digits or not all("0" <= char <= "9" for char in digits):
        return None
    value = -int(digits) if text[:1] == "-" else int(digits)
    low, high = (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1) if signed else (0, 2**bits - 1)
    return value if low <= value <= high else None


def days_from_civil(year: int, month: int, day: int) -> int:
    """Howard Hinnant's `days_from_civil` in i64 (wrapping)."""
    year = _i64(year - 1) if month <= 2 else year
    era = year // 400  # div_euclid for a positive divisor
    yoe = year % 400
    mp = (month + 9) % 12
    doy = (153 * mp + 2) // 5 + day - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return _i64(_i64(era * 146_097) + doe - 719_468)


def civil_from_days(z: int) -> tuple[int, int, int]:
    """Howard Hinnant's `civil_from_days`."""
    z += 719_468
    era = z // 146_097
    doe = z % 146_097
    yoe = (doe - doe // 1460 + doe // 36_524 - doe // 146_096) // 365
    year = yoe + era * 400
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    day = doy - (153 * mp + 2) // 5 + 1
    month = mp + 3 if mp < 10 else mp - 9
    return (year + 1 if month <= 2 else year), month, day


def parse_utc_iso(text: str) -> int | None:
    """`parse_utc_iso`: `YYYY-MM-DDThh:mm:ss[.fff]Z` to Unix seconds, else None."""
    canonical = _CANONICAL.fullmatch(text)
    if canonical is not None:  # the writer's form, read without the general path's steps
        year, month, day, hh, mm, ss = map(int, canonical.groups())
        if not (1 <= month <= 12 and 1 <= day <= 31 and hh <= 23 and mm <= 59 and ss <= 60 and year >= 1970):
            return None
        return days_from_civil(year, month, day) * DAY_SECS + hh * 3_600 + mm * 60 + ss
    text = rust_trim(text)
    if not text.endswith("Z"):
        return None
    date, separator, time = text[:-1].partition("T")
    if not separator:
        return None
    parts = date.split("-")
    if len(parts) < 3:
        return None
    year = _rust_int(parts[0], signed=True, bits=64)
    month = _rust_int(parts[1], signed=False, bits=32) if year is not None else None
    day = _rust_int(parts[2], signed=False, bits=32) if month is not None else None
    if day is None or len(parts) > 3 or not 1 <= month <= 12 or not 1 <= day <= 31:
        return None
    clock = time.split(".")[0].split(":")
    if len(clock) < 3:
        return None
    hh, mm, ss = (_rust_int(part, signed=False, bits=64) for part in clock[:3])
    if hh is None or mm is None or ss is None or len(clock) > 3 or hh > 23 or mm > 59 or ss > 60:
        return None
    days = days_from_civil(year, month, day)
    if days < 0:  # u64::try_from
        return None
    return (days * DAY_SECS + hh * 3_600 + mm * 60 + ss) % _U64


def utc_iso(secs: int) -> str:
    """`utc_iso`: `YYYY-MM-DDThh:mm:ssZ`."""
    year, month, day = civil_from_days(secs // DAY_SECS)
    tod = secs % DAY_SECS
    return f"{year:04}-{month:02}-{day:02}T{tod // 3600:02}:{tod % 3600 // 60:02}:{tod % 60:02}Z"


def utc_date(secs: int) -> str:
    """`utc_date`: `YYYY-MM-DD`."""
    year, month, day = civil_from_days(secs // DAY_SECS)
    return f"{year:04}-{month:02}-{day:02}"
