"""A person's ruling (or a fork closed by one) written into the record's own file: one line added,
every other byte kept. No Django.

The line goes at the end of the question's own item (a bullet's continuation, or the paragraph under
an `### R1` heading; for MADR, the Decision Outcome section), in the file's line endings, so the
parser (records/questions.py) reads it back as the item's state.
"""

from __future__ import annotations

from ledger.records import questions


class NotOpen(ValueError):
    """The question is already ruled (or resolved), or the file has no such question."""


def _clean(text: str) -> str:
    # One line, and no straight quote that would end the quoted reason early when read back.
    return " ".join(str(text).split()).replace('"', "”")


def chosen_token(chosen: str, labels: list[str]) -> str:
    """`B` for a lettered option, the name in quotes for anything else (a MADR option, a written one)."""
    chosen = _clean(chosen)
    return chosen if chosen in labels and len(chosen) == 1 else f'"{chosen}"'


def ruled_line(*, today: str, chosen: str, labels: list[str], who: str, reason: str) -> str:
    return f'RULED {today} — option {chosen_token(chosen, labels)} ({_clean(who)}: "{_clean(reason)}")'


def resolved_line(*, today: str, ruling: str, who: str, reason: str) -> str:
    return f'RESOLVED {today} — by {ruling} ({_clean(who)}: "{_clean(reason)}")'


def _insert(raw: bytes, at: int, indent: str, line: str) -> bytes:
    text = bytes(raw).decode("utf-8")
    lines = text.split("\n")
    cr = "\r" if "\r\n" in text else ""
    lines.insert(at, f"{indent}{line}{cr}")
    return "\n".join(lines).encode("utf-8")


def _item(lines: list[str], kind: str, key: str) -> questions.Item | None:
    return next((item for item in questions.items(lines) if item.kind == kind and item.key == key), None)


def _continuation(lines: list[str], item: questions.Item) -> str:
    """The indent that keeps an added line inside its bullet (a heading's paragraph needs none)."""
    if item.heading:
        return ""
    first = lines[item.start]
    marker = len(first) - len(first.lstrip())
    stripped = first.lstrip()
    bullet = stripped.split(" ", 1)[0] if stripped[:1] in "-*+" or stripped[:1].isdigit() else ""
    return " " * (marker + len(bullet) + 1) if bullet else item.indent


def add_ruling(
    raw: bytes, *, fmt: str, key: str, chosen: str, who: str, reason: str, today: str, date: str = ""
) -> bytes:
    """The file with `RULED <today> — option <chosen> (<who>: "<reason>")` added to question `key`."""
    lines = questions.lines_of(raw)
    found = questions.read(raw, fmt=fmt, date=date)
    ruling = next((r for r in found.rulings if r.key == key), None)
    if ruling is None:
        raise NotOpen(f"the record has no question {key}")
    if ruling.chosen:
        raise NotOpen(
            f"{key} is already ruled: option {ruling.chosen} ({ruling.ruled_by}, {ruling.ruled_at})"
        )
    line = ruled_line(
        today=today, chosen=chosen, labels=[label for label, _ in ruling.options], who=who, reason=reason
    )
    item = _item(lines, "R", key)
    if item is not None:
        return _insert(raw, item.end, _continuation(lines, item), line)
    start, end = questions.madr_sections(lines)["decision outcome"]
    last = max((i for i in range(start + 1, end) if lines[i].strip()), default=start)
    return _insert(raw, last + 1, "", line)


def resolve_fork(raw: bytes, *, key: str, ruling: str, who: str, reason: str, today: str) -> bytes:
    """The file with `RESOLVED <today> — by <ruling> (<who>: "<reason>")` added to fork `key`."""
    lines = questions.lines_of(raw)
    fork = next((f for f in questions.read(raw).forks if f.key == key), None)
    if fork is None:
        raise NotOpen(f"the record has no fork {key}")
    if fork.state != "open":
        raise NotOpen(f"{key} is already resolved by {fork.resolved_by}")
    item = _item(lines, "F", key)
    line = resolved_line(today=today, ruling=ruling, who=who, reason=reason)
    return _insert(raw, item.end, _continuation(lines, item), line)
