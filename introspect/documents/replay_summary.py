"""The replay's near-misses and its summary (introspection.md §9), counted over every event whatever
its `ts` and whatever `--matched`; numbers read from the raw line as upstream reads them. No Django."""

from __future__ import annotations

import math
import re
from collections import Counter

from introspect.documents.replay_frames import Frame
from introspect.documents.replay_items import Item
from introspect.rules.timestamps import utc_second

TOP_WAYS = 15  # introspection.md §9: top_ways holds at most 15 entries
_U64_TEXT = re.compile(r"\+?[0-9]+")  # Rust `str::parse::<u64>`: ASCII digits, an optional `+`
_F64_TEXT = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_U64_MAX = 2**64 - 1


def f64_field(data: dict, key: str) -> float:
    """Text or a JSON number (`field_f64`); absent, "" or unparseable → 0.0."""
    value = data.get(key)
    if isinstance(value, str):
        return float(value) if _F64_TEXT.fullmatch(value) else 0.0
    if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
        return float(value)
    return 0.0


def u64_text(value: object) -> int | None:
    """Upstream reads `gate_ms` and `unjudged` from text only: a JSON number counts as absent."""
    if isinstance(value, str) and _U64_TEXT.fullmatch(value) and int(value) <= _U64_MAX:
        return int(value)
    return None


def near_miss_epoch(frames: list[Frame], ts_raw: str | None) -> int:
    """The epoch of the last frame not later than the near-miss (whole seconds, §3.2).

    The first frame's epoch when none is, or when the stamp is not UTC Z (it cannot be placed).
    """
    if not frames:
        return 0
    epoch = frames[0].epoch
    second = utc_second(ts_raw)
    if second is None:
        return epoch
    for frame in frames:
        if frame.second > second:
            break
        epoch = frame.epoch
    return epoch


def near_misses_of(items: list[Item], frames: list[Frame]) -> list[dict]:
    return [
        {
            "epoch": near_miss_epoch(frames, item.event.ts_raw),
            "timestamp": item.event.ts_raw or "",
            "way": item.way,
            "prob_en": f64_field(item.data, "prob_en"),
            "prob_multi": f64_field(item.data, "prob_multi"),
            "tau_s": f64_field(item.data, "tau_s"),
            "margin": f64_field(item.data, "margin"),
        }
        for item in items
        if item.kind == "way_nearmiss"
    ]


def round_half_away(value: float) -> int:
    """Rust `f64::round` (halves away from zero), not Python's banker's rounding."""
    floor = math.floor(value)
    return floor + 1 if value - floor >= 0.5 else floor


def percentile(values: list[int], q: float) -> int | None:
    """The value at index round((n − 1) × q) of the sorted values; None when there are none."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[round_half_away((len(ordered) - 1) * q)]


def gate_summary(items: list[Item]) -> dict:
    """§9 `gate`: the relevance judge's work in the session."""
    verdicts = Counter()
    blocked_ways: Counter = Counter()
    fallbacks: Counter = Counter()
    gate_ms: list[int] = []
    unjudged = 0
    for item in items:
        if item.kind == "way_judged":
            verdict = item.event.verdict
            verdicts[verdict if verdict in ("block", "would_block") else "pass"] += 1
            if verdict == "block" and item.event.way is not None:
                blocked_ways[item.event.way] += 1
        elif item.kind == "gate_fallback":
            fallbacks[(item.event.reason if item.event.reason is not None else "unknown").split(":")[0]] += 1
        elif item.kind == "gate_capped":
            unjudged += u64_text(item.data.get("unjudged")) or 0
        ms = u64_text(item.data.get("gate_ms")) if item.kind in ("way_judged", "gate_fallback") else None
        if ms is not None:
            gate_ms.append(ms)
    return {
        "judged": verdicts.total(),
        "passed": verdicts["pass"],
        "blocked": verdicts["block"],
        "would_block": verdicts["would_block"],
        "unjudged": unjudged,
        "fallbacks": dict(sorted(fallbacks.items())),
        "gate_ms_p50": percentile(gate_ms, 0.5),
        "gate_ms_p95": percentile(gate_ms, 0.95),
        "blocked_ways": dict(sorted(blocked_ways.items())),
    }


def suppressed_summary(items: list[Item]) -> dict:
    """§9 `suppressed`: `injection_suppressed` events, by lane (task = dispatch) and by switch."""
    marks = [item for item in items if item.kind == "injection_suppressed"]
    dispatches = sum(1 for item in marks if item.text("lane") == "task")
    by_switch = Counter(
        item.data["switch"] if isinstance(item.data.get("switch"), str) else "unknown" for item in marks
    )
    return {
        "total": len(marks),
        "dispatches": dispatches,
        "agents": len(marks) - dispatches,
        "by_switch": dict(sorted(by_switch.items())),
    }


def summary_of(items: list[Item], frames: list[Frame], near_miss_count: int) -> dict:
    """§9 `summary`: counted over every event, whatever its `ts` and whatever `--matched`."""
    fires = [item for item in items if item.kind == "way_fired"]
    triggers = Counter(item.event.trigger for item in fires if item.event.trigger is not None)
    way_fires = Counter(item.event.way for item in fires if item.event.way is not None)
    top = sorted(way_fires.items(), key=lambda pair: (-pair[1], pair[0]))[:TOP_WAYS]
    return {
        "epochs": len(frames),
        "duration_secs": frames[-1].elapsed_secs if frames else 0,
        "distinct_ways": len(way_fires),
        "total_fires": len(fires),
        "redisclosures": sum(1 for item in items if item.kind == "way_redisclosed"),
        "checks_fired": sum(1 for item in items if item.kind == "check_fired"),
        "near_misses": near_miss_count,
        "trigger_breakdown": dict(sorted(triggers.items())),
        "top_ways": [{"way": way, "fires": n} for way, n in top],
        "gate": gate_summary(items),
        "suppressed": suppressed_summary(items),
    }
