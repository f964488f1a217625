"""Transcript entries prepared for display, as EntryCards: each tool call paired with its result,
calls and results parsed into cards, spilled outputs and each assistant message's usage read in a
few queries for a whole page, and one code box of an entry fetched on its own."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from introspect.derive import fields
from introspect.importer import transcripts
from introspect.models import Session, Spill, TranscriptEntry
from introspect.queries import secret_masks
from introspect.rules import entry_kinds, system_lines, tool_cards, usage
from lib import bulk


@dataclass(frozen=True, slots=True)
class SpillCard:
    """A spilled output as drawn: the row, and its text with its secrets masked."""

    spill: Spill
    text: str


@dataclass(frozen=True, slots=True)
class EntryCard:
    """A transcript entry as partials/entry.html and the exports draw it: the entry as stored, and
    what is read or worked out for drawing it (built by entry_card, and nowhere else)."""

    entry: TranscriptEntry
    kind: str = ""  # which card draws it (rules/entry_kinds.card: prompt, reply, call, result, …)
    text: str = ""  # its text as shown: secrets masked, whole when the stored column holds its start
    masked: bytes | None = None  # its line with its secrets masked; None: shown as stored (`line`)
    call: tool_cards.ToolCall | None = None  # a tool call, parsed
    result: tool_cards.ToolResult | None = None  # a tool result, parsed
    compaction: system_lines.Compaction | None = None  # a compact_boundary line
    system_text: str = ""  # another system line's text
    usage: usage.MessageUsage | None = None  # on the last line of an assistant message
    spills: list[SpillCard] = field(default_factory=list)  # its outputs spilled to tool-results/
    paired_result: EntryCard | None = None  # a call's own result (parallel calls each get theirs)
    with_call: bool = False  # a result drawn inside its call's card, not at its own place
    prompt_spans: list[str] = field(default_factory=list)  # a prompt's keyword spans its keyed fires matched
    bookkeeping: bool = False  # the input queue's bookkeeping (rules/entry_kinds.hidden_queue_lines)
    # The secrets masked in it (its line, its spills, its paired result's): what a reviewer may reveal.
    secrets: list[secret_masks.SecretRef] = field(default_factory=list)

    @property
    def line(self) -> bytes:
        """Its raw line as shown (read from the row only when nothing was masked in it)."""
        return self.entry.line if self.masked is None else self.masked


def entry_cards(
    source_id: int | None, entries: list[TranscriptEntry], *, prompt_spans: dict[int, list[str]] | None = None
) -> list[EntryCard]:
    """The card of each of `entries` (a stretch of `source_id`'s spine, in file order): secrets
    masked in every line, text and spill first (queries/secret_masks.py); each tool call given its
    result (pair_results, a result on a later page read too), calls and results
    parsed into display cards (introspect/rules/tool_cards.py), each entry's spilled outputs (one
    query for all of them), each assistant message's usage on its last line (message_usages, one
    more), each text the `text` column holds only the start of read whole from its raw line
    (whole_text), and each prompt the keyword spans of `prompt_spans` (by the prompt's pk).

    (prefetch_related would build a queryset and a manager per entry, for the few that have any.)
    """
    paired, with_call, outside = pair_results(source_id, entries)
    shown = entries + outside
    masks = secret_masks.Allowed()  # secrets masked before any text is read for display
    spilled: dict[int, list[SpillCard]] = {}
    if shown:
        for spill in Spill.objects.filter(entry_id__in=[entry.pk for entry in shown]).order_by("pk"):
            spilled.setdefault(spill.entry_id, []).append(
                SpillCard(spill, secret_masks.masked_text(spill.text, masks))
            )
    lines = {id(entry): shown_line(entry, masks) for entry in shown}
    usages = message_usages(shown)
    found = secret_masks.secret_refs(shown, masks, spilled=bool(spilled))
    texts = [lines[id(entry)][1] for entry in entries]
    bookkeeping = {id(entries[n]) for n in entry_kinds.hidden_queue_lines(entries, texts)}
    spans = prompt_spans or {}
    built: dict[int, EntryCard] = {}
    # Results before calls: a call's card holds its result's.
    for entry in sorted(shown, key=lambda entry: id(entry) in paired):
        built[id(entry)] = entry_card(
            entry,
            masked=lines[id(entry)][0],
            text=lines[id(entry)][1],
            usage=usages.get(id(entry)),
            spills=spilled.get(entry.pk, []),
            paired_result=built[id(paired[id(entry)])] if id(entry) in paired else None,
            with_call=id(entry) in with_call,
            prompt_spans=spans.get(entry.pk, []) if entry.is_prompt else [],
            bookkeeping=id(entry) in bookkeeping,
            secrets=found.get(entry.pk, []),
        )
    return [built[id(entry)] for entry in entries]


def entry_card(
    entry: TranscriptEntry,
    *,
    masked: bytes | None,
    text: str,
    usage: usage.MessageUsage | None,
    spills: list[SpillCard],
    paired_result: EntryCard | None,
    with_call: bool,
    prompt_spans: list[str],
    bookkeeping: bool,
    secrets: list[secret_masks.SecretRef] | None = None,
) -> EntryCard:
    """One entry's card: its call, result or system line parsed from its line as shown (`masked`, or
    the stored one), with its text as shown and what entry_cards read for it."""
    call = result = compaction = None
    system_text = ""
    if entry.type == "assistant" and entry.tool_use_id:
        call = tool_cards.tool_call(entry, line=masked)
    elif entry.type == "user" and entry.tool_result_id:
        result = tool_cards.tool_result(entry, line=masked, shown_text=text)
    elif entry.type == "system" and entry.subtype == "compact_boundary":
        compaction = system_lines.compaction(entry.line if masked is None else masked)
    elif entry.type == "system":
        system_text = system_lines.system_text(entry.line if masked is None else masked)
    return EntryCard(
        entry=entry,
        kind=entry_kinds.card(entry),
        text=text,
        masked=masked,
        call=call,
        result=result,
        compaction=compaction,
        system_text=system_text,
        usage=usage,
        spills=spills,
        paired_result=paired_result,
        with_call=with_call,
        prompt_spans=prompt_spans,
        bookkeeping=bookkeeping,
        secrets=(secrets or []) + (paired_result.secrets if paired_result else []),
    )


def shown_line(entry: TranscriptEntry, allowed: secret_masks.Allowed) -> tuple[bytes | None, str]:
    """The entry's line with its secrets masked (None: shown as stored) and its text as shown: masked
    when its line held a secret, whole (whole_text)."""
    masked = secret_masks.masked_line(entry, allowed)
    text = secret_masks.masked_text(entry.text, allowed) if masked is not None else entry.text
    return masked, whole_text(entry, text, masked)


def whole_text(entry: TranscriptEntry, text: str, masked: bytes | None) -> str:
    """`text` (the entry's, masked), whole when the stored column may hold only its start
    (importer/transcripts.TEXT_LIMIT): read from the raw line the entry already carries (`masked`,
    if a secret was masked in it), no query, and only the entries shown pay for it (lists and search
    read the column alone)."""
    if not transcripts.maybe_cut(text):
        return text
    return transcripts.whole_text(entry.line if masked is None else masked) or text


def message_usages(entries: Sequence[TranscriptEntry]) -> dict[int, usage.MessageUsage]:
    """The usage (rules.usage.MessageUsage) of each assistant message, on the last line of it on
    the list, by that line's id(): the final-row rule over every row of that message in the
    session, other files included, in one query for the list. A line lacking message.id or
    requestId is a message of its own. Every other line has none.
    """
    found: dict[int, usage.MessageUsage] = {}
    last: dict[tuple[str, str], TranscriptEntry] = {}
    for entry in entries:
        if entry.type != "assistant":
            continue
        if entry.message_id and entry.request_id:
            last[(entry.message_id, entry.request_id)] = entry
        elif any(getattr(entry, name) is not None for name in (*usage.FIELDS, *usage.SPLIT)):
            row = (None, None, entry.model, *(getattr(entry, name) for name in fields.USAGE_COLUMNS))
            found[id(entry)] = usage.messages([row])[0]
    if not last:
        return found
    rows = fields.usage_rows(
        TranscriptEntry.objects.filter(session_id__in={entry.session_id for entry in last.values()})
    )
    messages = {
        (message.message_id, message.request_id): message
        for message in usage.messages(bulk.chunked_in(rows, "message_id", {m for m, _ in last}))
    }
    for key, entry in last.items():
        if key in messages:
            found[id(entry)] = messages[key]
    return found


def pair_results(
    source_id: int | None, entries: list[TranscriptEntry]
) -> tuple[dict[int, TranscriptEntry], set[int], list[TranscriptEntry]]:
    """Each tool call's own result, by the call's id(), parallel calls included, and the id()s of
    the results shown inside their call. A result on a later page is read here too (one query):
    it is shown under its call, and again at its own place on its own page. Returns those results
    read from outside `entries` last, to be prepared for display with them."""
    calls = {entry.tool_use_id: entry for entry in entries if entry.type == "assistant" and entry.tool_use_id}
    if not calls:
        return {}, set(), []
    here = {entry.tool_result_id: entry for entry in entries if entry.type == "user" and entry.tool_result_id}
    outside = [tool_use for tool_use in calls if tool_use not in here]
    found = {}
    if outside:
        for result in TranscriptEntry.objects.filter(
            source_id=source_id, tool_result_id__in=outside, is_copy=False
        ).order_by("offset", "index"):
            found.setdefault(result.tool_result_id, result)
    paired: dict[int, TranscriptEntry] = {}
    with_call: set[int] = set()
    for tool_use, call in calls.items():
        result = here.get(tool_use) or found.get(tool_use)
        if result is not None:
            paired[id(call)] = result
        if result is not None and tool_use in here and here[tool_use].offset >= call.offset:
            with_call.add(id(result))
    return paired, with_call, list(found.values())


def entry_code(session: Session, entry_id: int, slot: str) -> tool_cards.CodeBox | None:
    """One code box of an entry of `session` (trunk or subagent file), or None: what a page that
    drew the box plain, past its highlighting budget, fetches coloured. One query."""
    entry = TranscriptEntry.objects.filter(pk=entry_id, session=session).first()
    if entry is None:
        return None
    return tool_cards.code_box(entry, slot, line=secret_masks.masked_line(entry))
