"""What happened in each conversation turn: the outcome signals of decisions-and-effectiveness.md §8.4.

A conversation turn is a real prompt and every trunk line up to the next one (rules/conversation.py);
the lines before the first prompt are turn 0. Every signal is read from the trunk's lines alone and
names the lines that caused it (their uuids: the page links each to its entry). They describe what
followed a turn, never why: a way's page may compare them between turns, and that is a correlation.

Each signal has one sentence, DEFINITIONS[name], shown wherever the signal is (hover text).
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime

from introspect.rules import corrections, entry_kinds, usage

TOOL_ERRORS = "tool_errors"
INTERRUPTS = "interrupts"
CORRECTION = "correction"
RETRIES = "retries"
CHURN = "churn"
COMPACTIONS = "compactions"
TOKENS = "tokens"
COST = "cost"
DURATION = "duration"
# The signals a turn has or has not, trouble first: the order the page shows them and compares them in.
TURN_SIGNALS = (TOOL_ERRORS, CORRECTION, INTERRUPTS, RETRIES, CHURN, COMPACTIONS)

DEFINITIONS = {
    TOOL_ERRORS: "Tool results on the trunk in this turn marked as an error (is_error), or a Bash result whose exit "
    "code is not 0; a call the person refused is an interrupt, not an error.",
    INTERRUPTS: "Times the person stopped the agent in this turn ([Request interrupted by user…], "
    "Esc or a refused tool call).",
    CORRECTION: corrections.DEFINITION,
    RETRIES: "Tool calls on the trunk in this turn that repeat an earlier call of the same tool that failed, with "
    "a near-identical input (90 % alike or more).",
    CHURN: "Edits on the trunk in this turn to a file already edited twice in it (the third and later), and edits "
    "that undo an earlier edit of the same file.",
    COMPACTIONS: "The context was compacted inside this turn (a compact_boundary line).",
    TOKENS: "Tokens of this turn's assistant messages on the trunk (in + out + cache read + cache "
    "write, each message counted once; subagents not included).",
    COST: "List-price cost of this turn's trunk assistant messages (subagents not included); "
    "— when no message had a price.",
    DURATION: "From the turn's prompt to its last dated line.",
}

EDIT_TOOLS = frozenset({"Edit", "MultiEdit", "Write", "NotebookEdit"})
CHURN_EDITS = 3  # the third edit of one file in a turn is churn
RETRY_LIKENESS = 0.9
LIKENESS_CHARS = 2000  # inputs compared on their first characters: a Write's whole file is not needed
# Claude Code writes a Bash failure as "Exit code N" at the head of the result (2.0: "Error: Exit code N").
EXIT_CODE = re.compile(r"^\s*(?:Error: )?Exit code (-?\d+)")
# A tool call the person refused comes back as an error result with these words: an interrupt.
REFUSED = ("The user doesn't want to proceed", "The user doesn't want to take this action")


@dataclass(frozen=True)
class Line:
    """What the signals read of one trunk line, in file order (derive/turn_outcomes.py fills it)."""

    uuid: str
    type: str
    subtype: str = ""
    is_prompt: bool = False
    text: str = ""  # a prompt's words, a result's or a user line's head; '' for other lines
    tool_name: str | None = None
    tool_use_id: str | None = None
    tool_result_id: str | None = None
    is_error: bool = False
    tool_input: dict | None = None  # a tool call's input
    ts: datetime | None = None
    usage: usage.Row | None = None  # an assistant line's usage row (rules/usage.py)


@dataclass
class TurnOutcome:
    """The signals of one conversation turn, each with the uuids of the lines that caused it."""

    number: int
    prompt_uuid: str = ""
    tool_errors: list[str] = field(default_factory=list)
    interrupts: list[str] = field(default_factory=list)
    retries: list[str] = field(default_factory=list)
    churn: list[str] = field(default_factory=list)
    compactions: list[str] = field(default_factory=list)
    correction_cue: str | None = None  # rules/corrections.py's cue, read from the next prompt
    correction_by: str = ""  # the next prompt's uuid
    usage: usage.UsageTotals = field(default_factory=usage.UsageTotals)
    duration_secs: float | None = None

    @property
    def tokens(self) -> int:
        return usage.tokens(self.usage)


def turns(lines: Iterable[Line]) -> Iterator[list[Line]]:
    """The lines cut into conversation turns: turn 0 (possibly empty) first, then one per prompt."""
    current: list[Line] = []
    for line in lines:
        if line.is_prompt:
            yield current
            current = []
        current.append(line)
    yield current


def outcomes(lines: Iterable[Line], *, first_number: int = 0) -> list[TurnOutcome]:
    """The outcome of every turn of `lines`: a whole trunk's (turn 0, when it has lines, then one per
    prompt), or with `first_number`, lines that begin at the prompt of that turn. A turn's
    correction is read from the prompt that opens the next, so the last turn has none yet."""
    found: list[TurnOutcome] = []
    previous_prompt: Line | None = None
    for offset, turn_lines in enumerate(turns(lines)):
        if not turn_lines:
            continue  # nothing before the first prompt
        number = offset if not first_number else first_number + offset - 1
        prompt = turn_lines[0] if turn_lines[0].is_prompt else None
        if found and prompt is not None and previous_prompt is not None:
            cue = corrections.correction_cue(prompt.text, previous_prompt.text)
            if cue is not None:
                found[-1].correction_cue, found[-1].correction_by = cue, prompt.uuid
        previous_prompt = prompt
        found.append(turn_outcome(number, turn_lines))
    return found


def turn_outcome(number: int, lines: list[Line]) -> TurnOutcome:
    """Every signal of one turn but its correction (which the next turn's prompt decides)."""
    opener = lines[0] if lines and lines[0].is_prompt else None
    dated = [line.ts for line in lines if line.ts is not None]
    return TurnOutcome(
        number=number,
        prompt_uuid=opener.uuid if opener else "",
        tool_errors=tool_errors(lines),
        interrupts=interrupts(lines),
        retries=retries(lines),
        churn=churn(lines),
        compactions=[
            line.uuid for line in lines if line.type == "system" and line.subtype == "compact_boundary"
        ],
        usage=usage.totals(usage.messages(line.usage for line in lines if line.usage is not None)),
        duration_secs=(max(dated) - dated[0]).total_seconds() if opener and dated else None,
    )


def failed(line: Line) -> bool:
    """A tool result that reports a failure: is_error, or a non-zero exit code; never a refusal."""
    if line.tool_result_id is None or refused(line):
        return False
    if line.is_error:
        return True
    code = EXIT_CODE.match(line.text)
    return code is not None and int(code.group(1)) != 0


def refused(line: Line) -> bool:
    return line.text.lstrip().startswith(REFUSED)


def tool_errors(lines: list[Line]) -> list[str]:
    return [line.uuid for line in lines if failed(line)]


def interrupts(lines: list[Line]) -> list[str]:
    """The interruption lines; a refused call whose result is not followed by one counts by its result."""
    marks = [
        line.uuid
        for line in lines
        if line.type == "user"
        and not line.is_prompt
        and line.tool_result_id is None
        and entry_kinds.is_interruption(line.text)
    ]
    if not marks:
        marks = [line.uuid for line in lines if line.tool_result_id is not None and refused(line)]
    return marks


def likeness(a: dict | None, b: dict | None) -> float:
    """How alike two tool inputs are, 0 to 1, over their canonical JSON's first characters."""
    left = json.dumps(a or {}, sort_keys=True, ensure_ascii=False)[:LIKENESS_CHARS]
    right = json.dumps(b or {}, sort_keys=True, ensure_ascii=False)[:LIKENESS_CHARS]
    if left == right:
        return 1.0
    return difflib.SequenceMatcher(None, left, right, autojunk=False).ratio()


def retries(lines: list[Line]) -> list[str]:
    """The calls that repeat a failed call of the same tool with a near-identical input."""
    failures = {line.tool_result_id for line in lines if failed(line)}
    failed_calls: list[Line] = []
    found = []
    for line in lines:
        if line.tool_use_id is None or line.type != "assistant":
            continue
        if any(
            earlier.tool_name == line.tool_name
            and likeness(earlier.tool_input, line.tool_input) >= RETRY_LIKENESS
            for earlier in failed_calls
        ):
            found.append(line.uuid)
        if line.tool_use_id in failures:
            failed_calls.append(line)
    return found


def edit_target(line: Line) -> str | None:
    """The file an edit call changes; None for any other line."""
    if line.type != "assistant" or line.tool_name not in EDIT_TOOLS or not isinstance(line.tool_input, dict):
        return None
    path = line.tool_input.get("file_path") or line.tool_input.get("notebook_path")
    return path if isinstance(path, str) and path else None


def churn(lines: list[Line]) -> list[str]:
    """Edits of a file already edited twice in the turn, and edits undoing an earlier edit of it."""
    seen: dict[str, list[Line]] = {}
    found = []
    for line in lines:
        path = edit_target(line)
        if path is None:
            continue
        earlier = seen.setdefault(path, [])
        if len(earlier) + 1 >= CHURN_EDITS or any(undoes(line, before) for before in earlier):
            found.append(line.uuid)
        earlier.append(line)
    return found


def undoes(line: Line, earlier: Line) -> bool:
    """An Edit putting back what an earlier Edit of the same file replaced."""
    now, then = line.tool_input or {}, earlier.tool_input or {}
    old, new = now.get("old_string"), now.get("new_string")
    return (
        isinstance(old, str)
        and isinstance(new, str)
        and old != new
        and old == then.get("new_string")
        and new == then.get("old_string")
    )


def tool_input_of(obj: dict) -> dict | None:
    """The input of the tool call a transcript line (parsed JSON) makes; None when it makes none."""
    message = obj.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    for block in content if isinstance(content, list) else ():
        if isinstance(block, dict) and block.get("type") == "tool_use":
            found = block.get("input")
            return found if isinstance(found, dict) else None
    return None
