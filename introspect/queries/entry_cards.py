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
class EntryCard:
    """A transcript entry as partials/entry.html and the exports draw it: the entry, and what is
    read or worked out for drawing it (built by entry_card, and nowhere else)."""

    entry: TranscriptEntry
    call: tool_cards.ToolCall | None = None  # a tool call, parsed
    result: tool_cards.ToolResult | None = None  # a tool result, parsed
    compaction: system_lines.Compaction | None = None  # a compact_boundary line
    system_text: str = ""  # another system line's text
    usage: usage.MessageUsage | None = None  # on the last line of an assistant message
    spills: list[Spill] = field(default_factory=list)  # its outputs spilled to tool-results/
    paired_result: EntryCard | None = None  # a call's own result (parallel calls each get theirs)
    with_call: bool = False  # a result drawn inside its call's card, not at its own place
    prompt_spans: list[str] = field(default_factory=list)  # a prompt's keyword spans its keyed fires matched
    bookkeeping: bool = False  # the input queue's bookkeeping (rules/entry_kinds.hidden_queue_lines)
    # The secrets masked in it (its line, its spills, its paired result's): what a reviewer may reveal.
    secrets: list[secret_masks.SecretRef] = field(default_factory=list)


def entry_cards(
    source_id: int | None, entries: list[TranscriptEntry], *, prompt_spans: dict[int, list[str]] | None = None
) -> list[EntryCard]:
    """The card of each of `entries` (a stretch of `source_id`'s spine, in file order): secrets
    masked in every line, text and spill first (queries/secret_masks.py); each tool call given its
    result (pair_results, a result on a later page read too), calls and results
    parsed into display cards (introspect/rules/tool_cards.py), each entry's spilled outputs (one
    query for all of them), each assistant message's usage on its last line (message_usages, one
    more), each text the `text` column holds only the start of read whole from its raw line
    (whole_texts), and each prompt the keyword spans of `prompt_spans` (by the prompt's pk).

    (prefetch_related would build a queryset and a manager per entry, for the few that have any.)
    """
    paired, with_call, outside = pair_results(source_id, entries)
    shown = entries + outside
    spilled: dict[int, list[Spill]] = {}
    if shown:
        for spill in Spill.objects.filter(entry_id__in=[entry.pk for entry in shown]).order_by("pk"):
            spilled.setdefault(spill.entry_id, []).append(spill)
    masks = secret_masks.Allowed()  # secrets masked before any text is read for display
    secret_masks.mask_entries(shown, masks)
    secret_masks.mask_spills((spill for group in spilled.values() for spill in group), masks)
    whole_texts(shown)
    usages = message_usages(shown)
    found = secret_masks.secret_refs(shown, masks, spilled=bool(spilled))
    bookkeeping = {id(entries[n]) for n in entry_kinds.hidden_queue_lines(entries)}
    spans = prompt_spans or {}
    built: dict[int, EntryCard] = {}
    # Results before calls: a call's card holds its result's.
    for entry in sorted(shown, key=lambda entry: id(entry) in paired):
        built[id(entry)] = entry_card(
            entry,
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
    usage: usage.MessageUsage | None,
    spills: list[Spill],
    paired_result: EntryCard | None,
    with_call: bool,
    prompt_spans: list[str],
    bookkeeping: bool,
    secrets: list[secret_masks.SecretRef] | None = None,
) -> EntryCard:
    """One entry's card: its call, result or system line parsed from its raw line, with what
    entry_cards read for it."""
    call = result = compaction = None
    system_text = ""
    if entry.type == "assistant" and entry.tool_use_id:
        call = tool_cards.tool_call(entry)
    elif entry.type == "user" and entry.tool_result_id:
        result = tool_cards.tool_result(entry)
    elif entry.type == "system" and entry.subtype == "compact_boundary":
        compaction = system_lines.compaction(entry.line)
    elif entry.type == "system":
        system_text = system_lines.system_text(entry.line)
    return EntryCard(
        entry=entry,
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


def whole_texts(entries: list[TranscriptEntry]) -> None:
    """Give each entry whose stored text may be cut (importer/transcripts.TEXT_LIMIT) its whole
    text, from the raw line the entry already carries: no query, and only the entries shown pay
    for it (lists and search read the column alone)."""
    for entry in entries:
        if transcripts.maybe_cut(entry.text):
            entry.text = transcripts.whole_text(entry.line) or entry.text


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
    secret_masks.mask_entries([entry])
    return tool_cards.code_box(entry, slot)
