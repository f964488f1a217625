"""The questions a decision record puts to a person: rulings R1…Rn and forks F1…Fn. No Django.

No upstream format has per-question rulings (knowledge-and-records.md §10.7). waysweb reads them as
bullets or headings named `R<n>` / `F<n>` under a section whose heading names rulings, forks or open
questions, in every format; MADR's "Considered Options" + "Decision Outcome" is one ruling, R1.
A ruling is open until its item carries a `RULED <date> — option X (<who>: "<quote>")` line; a fork
is open until it carries `RESOLVED <date> — by R<k> (<who>: "<quote>")` (or says "resolved by R<k>").

The scan keeps each item's line range, so the writer (records/rule.py) inserts its one line where the
parser will read it back. Nothing is taken out of the record's sections: text the scan cannot place
stays in the prose it came from.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ledger.records import scan

MADR_FORMATS = ("madr", "madr2", "log4brains")

_QUESTION_SECTION = re.compile(r"\bruling|\bforks?\b|\bopen questions?\b|\bquestions\b", re.I)
_ITEM = re.compile(
    r"^(?P<indent>\s*)(?:(?P<hashes>#{1,6})\s+|(?:[-*+]|\d+[.)])\s+)?(?:\*\*|__)?"
    r"(?P<kind>[RF])(?P<n>\d{1,3})(?![\w])\s*[:.)\-–—]?\s*(?:\*\*|__)?\s*(?P<rest>.*)$"
)
_OPTION = re.compile(
    r"^\s*(?:[-*+]\s+)?(?:\*\*|__)?(?:[Oo]ption\s+)?(?P<label>[A-Z])(?:\*\*|__)?\s*[).:—–-]\s*(?:\*\*|__)?\s*"
    r"(?P<text>.+)$"
)
_RECOMMENDATION = re.compile(
    r"^\s*(?:[-*+]\s+)?(?:\*\*|__)?recommend(?:ation|ed)\s*:?(?:\*\*|__)?\s*(.*)$", re.I
)
_RULED = re.compile(
    r"RULED\s+(?P<date>\d{4}-\d{2}-\d{2})\s*[—–-]+\s*option\s+(?P<chosen>\"[^\"]*\"|“[^”]*”|\S+?)\s*"
    r"\((?P<who>[^:()]+?)\s*:\s*[\"“](?P<quote>.*)[\"”]\s*\)"
)
_RESOLVED = re.compile(
    r"RESOLVED\s+(?P<date>\d{4}-\d{2}-\d{2})\s*[—–-]+\s*by\s+(?P<by>R\d{1,3})\s*"
    r"\((?P<who>[^:()]+?)\s*:\s*[\"“](?P<quote>.*)[\"”]\s*\)"
)
_OPTIONS_LABEL = re.compile(r"^\s*(?:\*\*|__)?options?\s*:?\s*(?:\*\*|__)?\s*$", re.I)
_RESOLVED_BY = re.compile(r"\bresolved\s+by\s+(R\d{1,3})\b", re.I)
_LETTER = re.compile(r"^(?:[Oo]ption\s+)?([A-Z])(?![\w'])")
_CHOSEN = re.compile(
    r"^\s*(?:[-*+]\s+)?Chosen option\s*:\s*(?:\"(?P<quoted>[^\"]+)\"|“(?P<curly>[^”]+)”|(?P<bare>[^,]+?))\s*"
    r"(?:,\s*because\b\s*(?P<why>.*))?$"
)
_MADR_OPTION = re.compile(r"^\s*[-*+]\s+(?:\[([^\]]+)\]\([^)]*\)\s*$|(.+?)\s*$)")
_LINK_TEXT = re.compile(r"\[([^\]]+)\]\([^)]*\)")
_CITED = re.compile(r"(?<![\w-])(RUL|SPEC)-(\d{1,5}(?:\.\d{1,3})?)(?![\w])", re.I)


@dataclass
class Ruling:
    key: str
    question: str
    options: list[tuple[str, str]] = field(default_factory=list)  # (label, text); label "A" or the name
    recommendation: str = ""
    chosen: str = ""
    ruled_at: str = ""
    ruled_by: str = ""
    quote: str = ""

    @property
    def state(self) -> str:
        return "ruled" if self.chosen else "open"


@dataclass
class Fork:
    key: str
    description: str
    state: str = "open"  # open | resolved
    resolved_by: str = ""
    resolved_at: str = ""
    who: str = ""
    quote: str = ""


@dataclass(frozen=True)
class Item:
    """One `R<n>`/`F<n>` item in the file: its key and lines [start, end) (trailing blanks left out)."""

    kind: str  # "R" or "F"
    key: str
    start: int
    end: int
    indent: str
    heading: bool


@dataclass
class Questions:
    rulings: list[Ruling] = field(default_factory=list)
    forks: list[Fork] = field(default_factory=list)
    cited: list[str] = field(default_factory=list)  # typed refs: rul:035, spec:106


def lines_of(raw: bytes) -> list[str]:
    """The file's lines as the scan reads them: comments blanked with their line breaks kept, so line
    numbers still match the file."""
    text = bytes(raw).decode("utf-8", "replace").removeprefix("\ufeff")
    return scan.COMMENT.sub(lambda m: "\n" * m.group(0).count("\n"), text).split("\n")


def _body_heads(lines: list[str]) -> list[tuple[int, str, int]]:
    fenced = scan.front_matter_range(lines)
    return scan.headings(lines, fenced[1] + 1 if fenced else 0)


def items(lines: list[str]) -> list[Item]:
    """Every R/F item under a rulings / forks / open-questions heading, in file order."""
    heads = _body_heads(lines)
    found: list[Item] = []
    for position, (level, text, index) in enumerate(heads):
        if not _QUESTION_SECTION.search(text) or _ITEM.match(lines[index].rstrip("\r")):
            continue
        end = scan.section_end(heads, position, level, len(lines))
        found += _items_in(lines, index + 1, end, heads)
    seen, unique = set(), []
    for item in found:  # a nested question section would list its items twice
        if (item.kind, item.key) not in seen:
            seen.add((item.kind, item.key))
            unique.append(item)
    return unique


def _items_in(lines: list[str], start: int, end: int, heads) -> list[Item]:
    heading_at = {index: level for level, _, index in heads}
    starts = []
    for index, line in scan.unfenced(lines, start, end):  # inside a code block nothing is a question
        match = _ITEM.match(line)
        if match and (index in heading_at or not match.group("hashes")):
            starts.append((index, match))
    out = []
    for position, (index, match) in enumerate(starts):
        stop = starts[position + 1][0] if position + 1 < len(starts) else end
        indent = len(match.group("indent"))
        for other in range(index + 1, stop):
            line = lines[other]
            # A heading ends a bullet item (or a heading item of its level); so does a paragraph
            # after a blank line that is not indented under the bullet.
            ends_bullet = (
                not match.group("hashes")
                and line.strip()
                and not lines[other - 1].strip()
                and len(line) - len(line.lstrip()) <= indent
            )
            if ends_bullet or (
                other in heading_at and (not match.group("hashes") or heading_at[other] <= heading_at[index])
            ):
                stop = other
                break
        while stop - 1 > index and not lines[stop - 1].strip():
            stop -= 1
        kind = match.group("kind")
        out.append(
            Item(
                kind=kind,
                key=f"{kind}{int(match.group('n'))}",
                start=index,
                end=stop,
                indent=match.group("indent"),
                heading=bool(match.group("hashes")),
            )
        )
    return out


def read(raw: bytes, *, fmt: str = "", date: str = "", deciders: list[str] | None = None) -> Questions:
    """The rulings, forks and cited rulings/specs of one record file. Never raises on input."""
    lines = lines_of(raw)
    out = Questions(cited=cited(lines))
    for item in items(lines):
        block = [line.rstrip("\r") for line in lines[item.start : item.end]]
        first = _ITEM.match(block[0]).group("rest").strip()
        if item.kind == "R":
            out.rulings.append(_ruling(item.key, first, block[1:]))
        else:
            out.forks.append(_fork(item.key, first, block[1:]))
    if not out.rulings and fmt in MADR_FORMATS:
        madr = _madr_ruling(lines, date=date, deciders=deciders or [])
        if madr:
            out.rulings.append(madr)
    return out


def _strip(text: str) -> str:
    return text.strip().strip("*_").strip()


def _ruling(key: str, first: str, rest: list[str]) -> Ruling:
    ruling = Ruling(key=key, question=_strip(first))
    prose = []
    for line in [first, *rest]:
        ruled = _RULED.search(line)
        if ruled:
            ruling.chosen = ruled.group("chosen").strip('"“”')
            ruling.ruled_at, ruling.ruled_by, ruling.quote = (
                ruled.group("date"),
                ruled.group("who").strip(),
                ruled.group("quote"),
            )
            continue
        if line is first:
            continue
        recommended = _RECOMMENDATION.match(line)
        option = _OPTION.match(line)
        if recommended:
            ruling.recommendation = _strip(recommended.group(1))
        elif option and not _RULED.search(line):
            ruling.options.append((option.group("label"), _strip(option.group("text"))))
        elif line.strip() and not _OPTIONS_LABEL.match(line):
            prose.append(_strip(line))
    if prose:
        ruling.question = " ".join([ruling.question, *prose]).strip()
    if first and _RULED.search(first):
        ruling.question = _strip(_RULED.sub("", first))
    return ruling


def _fork(key: str, first: str, rest: list[str]) -> Fork:
    fork = Fork(key=key, description="")
    prose = []
    for line in [first, *rest]:
        resolved = _RESOLVED.search(line)
        if resolved:
            fork.state, fork.resolved_by, fork.resolved_at = (
                "resolved",
                resolved.group("by"),
                resolved.group("date"),
            )
            fork.who, fork.quote = resolved.group("who").strip(), resolved.group("quote")
            line = _RESOLVED.sub("", line)
        elif _RESOLVED_BY.search(line):
            fork.state, fork.resolved_by = "resolved", _RESOLVED_BY.search(line).group(1).upper()
        if line.strip():
            prose.append(_strip(line))
    fork.description = " ".join(prose)
    return fork


def recommended_label(ruling: Ruling) -> str:
    """The option the recommendation names ("B", "option B — …", or an option's own name), else ""."""
    text = ruling.recommendation.strip()
    letter = _LETTER.match(text)
    labels = [label for label, _ in ruling.options]
    if letter and letter.group(1).upper() in labels:
        return letter.group(1).upper()
    named = re.search(r"\b[Oo]ption\s+([A-Z])(?![\w'])", text)
    if named and named.group(1).upper() in labels:
        return named.group(1).upper()
    return next((label for label, option in ruling.options if option and option.lower() in text.lower()), "")


def madr_sections(lines: list[str]) -> dict[str, tuple[int, int]]:
    """MADR's "Considered Options" and "Decision Outcome" sections: heading line → end."""
    heads = _body_heads(lines)
    out = {}
    for position, (level, text, index) in enumerate(heads):
        name = text.lower().rstrip(":")
        if level == 2 and name in ("considered options", "decision outcome"):
            out[name] = (index, scan.section_end(heads, position, level, len(lines)))
    return out


def _madr_ruling(lines: list[str], *, date: str, deciders: list[str]) -> Ruling | None:
    """MADR's one question: which of the considered options; its outcome, or a RULED line there."""
    sections = madr_sections(lines)
    if "decision outcome" not in sections:
        return None
    ruling = Ruling(key="R1", question="Which of the considered options?")
    if "considered options" in sections:
        start, end = sections["considered options"]
        for line in lines[start + 1 : end]:
            option = _MADR_OPTION.match(line.rstrip("\r"))
            if option and not line.startswith((" ", "\t")):
                name = _strip(_LINK_TEXT.sub(r"\1", option.group(1) or option.group(2)))
                ruling.options.append((name, ""))
    start, end = sections["decision outcome"]
    for line in lines[start + 1 : end]:
        line = line.rstrip("\r")
        ruled = _RULED.search(line)
        chosen = _CHOSEN.match(line)
        if ruled:
            ruling.chosen = ruled.group("chosen").strip('"“”')
            ruling.ruled_at, ruling.ruled_by = ruled.group("date"), ruled.group("who").strip()
            ruling.quote = ruled.group("quote")
        elif chosen and not ruling.chosen and "…" not in line and "{" not in line:
            # A template's placeholder ("Chosen option: {title}", "…") is not a choice.
            name = chosen.group("quoted") or chosen.group("curly") or chosen.group("bare")
            ruling.chosen, ruling.quote = name.strip(), (chosen.group("why") or "").strip(" .")
            ruling.ruled_at, ruling.ruled_by = date, ", ".join(deciders)
    return ruling


def cited(lines: list[str]) -> list[str]:
    """Rulings (`RUL-035`) and specs (`SPEC-106`) the record cites, as typed refs, in order."""
    found: list[str] = []
    fence = False
    for line in lines:
        if line.lstrip().startswith(("```", "~~~")):
            fence = not fence
            continue
        if fence:
            continue
        for match in _CITED.finditer(line):
            ref = f"{match.group(1).lower()}:{match.group(2)}"
            if ref not in found:
                found.append(ref)
    return found
