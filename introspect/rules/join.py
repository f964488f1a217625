"""The post-hoc transcript join (introspection.md §4) and the transcript readings that go with it.

Pure functions over entry-like objects (attributes of `TranscriptEntry`), reading the lines of the
one trunk file introspection locates — never a union of files. A turn is keyed only when exactly
one user prompt's UserPromptSubmit injection lies within 8 s; anything else stays heuristic and
says why.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from introspect.rules.timestamps import in_range, shifted, utc_second

JOIN_TOLERANCE_SECS = 8  # transcript.rs: |injection second − turn second| ≤ 8
MAX_HOPS = 64
ATTACHMENTS_SINCE = (2, 1, 97)

NO_TRANSCRIPT = "no transcript"
PREDATES = "transcript predates hook attachments (< 2.1.97)"
NO_INJECTION = "no prompt injection within 8 s"
KEYED = "UserPromptSubmit injection within 8 s"
OUT_OF_RANGE = "timestamp out of range (year 1 or 9999)"


@dataclass(frozen=True)
class PromptTurn:
    """A UserPromptSubmit injection and the user message its parent chain leads to."""

    second: datetime
    user_uuid: str
    injection: object


@dataclass(frozen=True)
class Join:
    confidence: str  # keyed | heuristic
    reason: str
    user_uuid: str = ""
    injection: object | None = None


def prompt_turns(entries: Sequence) -> list[PromptTurn]:
    """transcript.rs: each UserPromptSubmit attachment, walked up parentUuid to its user line."""
    nodes: dict[str, object] = {}
    for entry in entries:
        if entry.uuid and entry.uuid not in nodes:
            nodes[entry.uuid] = entry
    found = []
    for entry in entries:
        if entry.type != "attachment" or entry.hook_event != "UserPromptSubmit":
            continue
        second = utc_second(entry.timestamp_raw)
        user = walk_to_user(entry, nodes.get)
        if second is not None and user is not None:
            found.append(PromptTurn(second=second, user_uuid=user, injection=entry))
    return found


def walk_to_user(entry, node_of: Callable[[str], object | None]) -> str | None:
    """Up parentUuid from `entry` to the first user line; `node_of` finds a uuid's first line in the file."""
    parent = entry.parent_uuid
    for _ in range(MAX_HOPS):
        if not parent:
            return None
        node = node_of(parent)
        if node is None:
            return None  # a parent that is not a line of this file ends the walk unresolved
        if node.type == "user":
            return node.uuid
        parent = node.parent_uuid
    return None


def join_turn(turn_second: datetime, turns: Sequence[PromptTurn], *, no_match_reason: str) -> Join:
    """introspection.md §4.2 for one fire turn. `turns` must be in file order; see `PromptIndex`."""
    index = turns if isinstance(turns, PromptIndex) else PromptIndex(turns)
    if not in_range(turn_second):
        return Join("heuristic", OUT_OF_RANGE)
    near = index.within(turn_second, JOIN_TOLERANCE_SECS)
    if not near:
        return Join("heuristic", no_match_reason)
    if not all(in_range(pt.second) for _, _, pt in near):
        return Join("heuristic", OUT_OF_RANGE)  # a prompt at the calendar's edge: never keyed on it
    users = {pt.user_uuid for _, _, pt in near}
    if len(users) > 1:
        return Join("heuristic", f"ambiguous: {len(users)} prompts within 8 s")
    _, _, best = min(near, key=lambda item: (item[0], item[1]))
    return Join("keyed", KEYED, user_uuid=best.user_uuid, injection=best.injection)


def join_turns(
    seconds: Sequence[datetime], turns: Sequence[PromptTurn], *, no_match_reason: str
) -> list[Join]:
    """`join_turn` of each of these fire turns' seconds. Without a prompt turn (a session of events
    alone: most of a long history) each is unmatched, or out of range, as `join_turn` finds it,
    without a search per turn."""
    index = turns if isinstance(turns, PromptIndex) else PromptIndex(turns)
    if len(index):
        return [join_turn(second, index, no_match_reason=no_match_reason) for second in seconds]
    unmatched, out = Join("heuristic", no_match_reason), Join("heuristic", OUT_OF_RANGE)
    return [unmatched if in_range(second) else out for second in seconds]


class PromptIndex:
    """Prompt turns sorted by second, so each fire turn looks at its ±8 s neighbours only
    (a 5,000-turn session would otherwise compare every turn with every prompt)."""

    def __init__(self, turns: Sequence[PromptTurn]):
        self.ordered = sorted(enumerate(turns), key=lambda item: item[1].second)
        self.seconds = [pt.second for _, pt in self.ordered]

    def within(self, second: datetime, tolerance: int) -> list[tuple[float, int, PromptTurn]]:
        reach = timedelta(seconds=tolerance)
        lo = bisect_left(self.seconds, shifted(second, -reach))
        hi = bisect_right(self.seconds, shifted(second, reach))
        return [(abs((pt.second - second).total_seconds()), order, pt) for order, pt in self.ordered[lo:hi]]

    def __len__(self) -> int:
        return len(self.ordered)


def version_tuple(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", version)[:3])


def no_match_reason(entries: Sequence, turns: Sequence[PromptTurn]) -> str:
    """Why a turn without a match is heuristic: old transcripts never have the injection lines."""
    if not entries or turns or any(entry.type == "attachment" for entry in entries):
        return unmatched_reason(has_lines=bool(entries), has_attachments=True)
    versions = [version_tuple(entry.version) for entry in entries if entry.version]
    return unmatched_reason(has_lines=True, has_attachments=False, newest=max(versions, default=None))


def unmatched_reason(*, has_lines: bool, has_attachments: bool, newest: tuple[int, ...] | None = None) -> str:
    """`no_match_reason` from what it reads of the lines: whether there are any, whether any is an
    attachment (every prompt turn starts at one), and the newest Claude Code version they name
    (None: none names one); what a reader of the lines a chunk at a time keeps (derive/trunk_facts.py)."""
    if not has_lines:
        return NO_TRANSCRIPT
    if not has_attachments and (newest is None or newest < ATTACHMENTS_SINCE):
        return PREDATES
    return NO_INJECTION


# introspection.md §2.5 / ADR-166: the context window of the model that ran the session.
WINDOW_ALIASES = {"opus": 1_000_000, "sonnet": 1_000_000, "fable": 1_000_000, "haiku": 200_000}
WINDOW_TABLE = {
    "claude-fable-5": 1_000_000,
    "claude-mythos-5": 1_000_000,
    "claude-mythos-preview": 1_000_000,
    "claude-opus-5": 1_000_000,
    "claude-opus-4-8": 1_000_000,
    "claude-opus-4-7": 1_000_000,
    "claude-opus-4-6": 1_000_000,
    "claude-sonnet-5": 1_000_000,
    "claude-sonnet-4-6": 1_000_000,
    "claude-haiku-4-5": 200_000,
}
DEFAULT_WINDOW = 200_000


def last_model(entries: Sequence) -> str | None:
    """The model of the last assistant line in file order whose model is not a placeholder."""
    for entry in reversed(entries):
        if entry.type == "assistant" and not is_placeholder_model(entry.model):
            return entry.model
    return None


def window_for(model: str | None) -> tuple[int, bool]:
    """(window in tokens, whether the model decided it); unknown models get the 200K default."""
    if model is None:
        return DEFAULT_WINDOW, False
    if model in WINDOW_ALIASES:
        return WINDOW_ALIASES[model], True
    for model_id in sorted(WINDOW_TABLE, key=len, reverse=True):
        if re.search(rf"(?<![A-Za-z0-9]){re.escape(model_id)}(?![A-Za-z0-9])", model):
            return WINDOW_TABLE[model_id], True
    return DEFAULT_WINDOW, False


def observed_window(window: int, peak: int) -> int:
    """The window a session had, given the largest context it was seen to hold.

    **Rule** (waysweb): the model decides the window (window_for), but a context larger than that
    window proves a larger one (a 1M-context beta on a 200K model): the smallest known window the
    peak fits in, else the largest known.
    """
    if peak <= window:
        return window
    known = sorted({DEFAULT_WINDOW, *WINDOW_TABLE.values(), *WINDOW_ALIASES.values()})
    return next((size for size in known if size >= peak), known[-1])


def compacted_window(window: int, auto_compactions: Sequence[int]) -> int | None:
    """The window an automatic compaction shows the session ran with, when smaller than `window`.

    **Rule** (waysweb, display only: dump/replay keep window_for): Claude Code compacts on its own
    just below the window it runs with, so an `auto` compaction at N tokens before proves a window
    of the smallest known size above N (a 1M-table model run with the 200K default). None when no
    automatic compaction says anything narrower.
    """
    if not auto_compactions:
        return None
    known = sorted({DEFAULT_WINDOW, *WINDOW_TABLE.values(), *WINDOW_ALIASES.values()})
    proved = next((size for size in known if size >= max(auto_compactions)), known[-1])
    return proved if proved < window else None


def token_timeline(entries: Sequence) -> list[tuple[str, int]]:
    """build_token_timeline: every assistant usage line with cache_read_input_tokens, in file order."""
    timeline = []
    for entry in entries:
        if entry.type == "assistant" and entry.timestamp_raw and entry.has_usage:
            total = (
                (entry.input_tokens or 0)
                + (entry.cache_read_input_tokens or 0)
                + (entry.cache_creation_input_tokens or 0)
            )
            timeline.append((entry.timestamp_raw, total // 1000))
    return timeline


def project_slug(path: str) -> str:
    """Claude Code's sanitizePath: every UTF-16 code unit outside [A-Za-z0-9] becomes '-'."""
    out = []
    for char in path:
        if char.isascii() and char.isalnum():
            out.append(char)
        else:
            out.append("--" if ord(char) > 0xFFFF else "-")
    return "".join(out)


# Claude Code writes these where no model answered (formats-claude-code.md §5): never a window's model.
SYNTHETIC_MODELS = frozenset({"<synthetic>", "-", "unknown", ""})


def is_placeholder_model(model: str | None) -> bool:
    return model is None or model.strip() in SYNTHETIC_MODELS
