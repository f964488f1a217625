"""A shorter `refire:` from out-of-band reads (decisions-and-effectiveness.md §5, §8.5; ADR-701 §8).

An out-of-band read is a `ways_read` pull inside the way's refire window (`window: "suppressed"`):
the agent wanted the way again before agent-ways would have shown it again. Upstream reads that as
"`refire:` … longer than the work needs", so the lever is a **shorter** half-life: the next shorter
preset (`once` 1.0 → `rare` 0.4 → `normal` 0.15 → `frequent` 0.05), or half of a number already at
or below `frequent`. A correlation-based suggestion, never a measured effect: the reads say the
agent asked again, not that a shorter window would have helped.

The presets are agent-ways' merged `refire_presets` (config.rs `apply_values`): its defaults, then
each key of the user `config.yaml`'s mapping, then the project `.claude/ways.yaml`'s, a later layer
setting a name again or adding one (`merge_presets`); a way's `refire: <name>` and the next shorter
preset are read against them.

The edit is exactly one line: the first column-0 `refire:` line of the front matter, as agent-ways'
flat line reader finds it (§4). A way without one, or with a value that is neither a preset nor a
number in 0..10, gets no proposal (the page says why).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# agent-ways `refire_presets` defaults (config.rs, §3.5); a user config may change them.
PRESETS = {"once": 1.0, "rare": 0.4, "normal": 0.15, "frequent": 0.05}
REFIRE_MAX = 10.0  # `RefireSpec::Numeric` range 0..10 (frontmatter.rs)
# One read inside the window is already the agent saying it needed the way sooner; the page shows
# how many there were, so a reviewer weighs one against many.
MIN_OUT_OF_BAND = 1
SMALLEST_FRACTION = 0.001


@dataclass(frozen=True)
class RefireValue:
    """A `refire:` value as written (`text`) and the fraction of the context window it means."""

    text: str
    fraction: float


@dataclass(frozen=True)
class RefireLine:
    """Where the front matter's `refire:` line is: its index among the file's lines, and its value."""

    index: int
    line: str
    value: RefireValue | None  # None: a value agent-ways would refuse (not a preset, not 0..10)


def merge_presets(*layers: object) -> dict[str, float]:
    """The defaults with each layer's `refire_presets` mapping applied in order, as agent-ways' config
    does (config.rs `apply_values`): a string name with a number (an integer too: serde's `as_f64`)
    sets that preset; any other entry, or a layer that is not a mapping, changes nothing."""
    presets = dict(PRESETS)
    for layer in layers:
        if not isinstance(layer, dict):
            continue
        for name, fraction in layer.items():
            if isinstance(name, str) and isinstance(fraction, int | float) and not isinstance(fraction, bool):
                presets[name] = float(fraction)
    return presets


def parse_value(text: str, presets: dict[str, float] = PRESETS) -> RefireValue | None:
    """A preset name or a number in 0..10, as `RefireSpec` accepts it; anything else None."""
    raw = re.sub(r"\s+#.*$", "", text).strip()  # a YAML comment (serde reads `refire:` as YAML)
    if len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "\"'":
        raw = raw[1:-1].strip()
    if raw in presets:
        return RefireValue(raw, presets[raw])
    try:
        number = float(raw)
    except ValueError:
        return None
    if not 0.0 <= number <= REFIRE_MAX or number != number:
        return None
    return RefireValue(raw, number)


def find_line(text: str, presets: dict[str, float] = PRESETS) -> RefireLine | None:
    """The first column-0 `refire:` line between the opening `---` and the closing one; None when
    the file has no front matter or no such line (the flat reader's rule: first match wins)."""
    lines = text.split("\n")
    if not lines or lines[0].rstrip("\r") != "---":
        return None
    for index, line in enumerate(lines[1:], start=1):
        bare = line.rstrip("\r")
        if bare == "---":
            return None
        if bare.startswith("refire:"):
            return RefireLine(index, line, parse_value(bare[len("refire:") :], presets))
    return None


def shorter(value: RefireValue, presets: dict[str, float] = PRESETS) -> RefireValue | None:
    """The next shorter refire: the largest preset below the current fraction, else half of it.
    None when it cannot get shorter (0 refires at once already)."""
    below = [(fraction, name) for name, fraction in presets.items() if fraction < value.fraction]
    if below:
        fraction, name = max(below)
        return RefireValue(name, fraction)
    half = value.fraction / 2
    if half < SMALLEST_FRACTION:
        return None
    text = f"{half:.4f}".rstrip("0").rstrip(".")
    return RefireValue(text, float(text))


def set_refire(text: str, found: RefireLine, value: RefireValue) -> str:
    """The file with its `refire:` line's value replaced, every other byte kept (a `\\r` too)."""
    lines = text.split("\n")
    ending = "\r" if lines[found.index].endswith("\r") else ""
    comment = re.search(r"\s+#.*$", lines[found.index].rstrip("\r"))
    lines[found.index] = f"refire: {value.text}" + (comment.group(0) if comment else "") + ending
    return "\n".join(lines)


@dataclass(frozen=True)
class RefireProposal:
    current: RefireValue
    proposed: RefireValue
    reads: int  # out-of-band reads behind it
    before: str  # the file as read
    after: str  # the file with the one line changed


def propose(
    text: str, out_of_band_reads: int, presets: dict[str, float] = PRESETS
) -> tuple[RefireProposal | None, str]:
    """The proposal for a way file read as `text` (its presets merged as `merge_presets`), or None with
    the reason there is none."""
    if out_of_band_reads < MIN_OUT_OF_BAND:
        return None, "no out-of-band reads in this window"
    found = find_line(text, presets)
    if found is None:
        return None, "the way file has no refire: line in its front matter"
    if found.value is None:
        return None, f"its refire: value ({found.line.strip()}) is neither a preset nor a number in 0..10"
    proposed = shorter(found.value, presets)
    if proposed is None:
        return None, f"refire: {found.value.text} cannot get shorter"
    return RefireProposal(
        current=found.value,
        proposed=proposed,
        reads=out_of_band_reads,
        before=text,
        after=set_refire(text, found, proposed),
    ), ""
