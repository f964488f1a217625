"""Transcript entries prepared for display: each tool call paired with its result, calls and results
parsed into cards, spilled outputs and each assistant message's usage read in a few queries for a
whole page, and one code box of an entry fetched on its own."""

from __future__ import annotations

from introspect.derive import fields
from introspect.importer import transcripts
from introspect.models import Session, Spill, TranscriptEntry
from introspect.queries import secret_masks
from introspect.rules import system_lines, tool_cards, usage
from lib import bulk


def for_display(entries: list[TranscriptEntry]) -> list[TranscriptEntry]:
    """Secrets masked in every line, text and spill first (queries/secret_masks.py); then tool calls
    and results parsed into display cards (introspect/rules/tool_cards.py), each entry's spilled
    outputs as `spill_list` (one query for all of them), each assistant
    message's usage on its last line (message_usages, one more), and each text the `text` column
    holds only the start of read whole from its raw line (whole_texts).

    (prefetch_related would build a queryset and a manager per entry, for the few that have any.)
    """
    spilled: dict[int, list[Spill]] = {}
    if entries:
        for spill in Spill.objects.filter(entry_id__in=[entry.pk for entry in entries]).order_by("pk"):
            spilled.setdefault(spill.entry_id, []).append(spill)
    masks = secret_masks.Allowed()  # secrets masked before any text is read for display
    secret_masks.mask_entries(entries, masks)
    secret_masks.mask_spills((spill for group in spilled.values() for spill in group), masks)
    whole_texts(entries)
    for entry in entries:
        entry.spill_list = spilled.get(entry.pk, [])
        if entry.type == "assistant" and entry.tool_use_id:
            entry.call = tool_cards.tool_call(entry)
        elif entry.type == "user" and entry.tool_result_id:
            entry.result = tool_cards.tool_result(entry)
        elif entry.type == "system" and entry.subtype == "compact_boundary":
            entry.compaction = system_lines.compaction(entry.line)
        elif entry.type == "system":
            entry.system_text = system_lines.system_text(entry.line)
    message_usages(entries)
    return entries


def whole_texts(entries: list[TranscriptEntry]) -> None:
    """Give each entry whose stored text may be cut (importer/transcripts.TEXT_LIMIT) its whole
    text, from the raw line the entry already carries: no query, and only the entries shown pay
    for it (lists and search read the column alone)."""
    for entry in entries:
        if transcripts.maybe_cut(entry.text):
            entry.text = transcripts.whole_text(entry.line) or entry.text


def message_usages(entries: list[TranscriptEntry]) -> None:
    """Give the last line on the list of each assistant message its `usage`
    (rules.usage.MessageUsage): the final-row rule over every row of that message in the session,
    other files included, in one query for the list. A line lacking message.id or requestId is a
    message of its own. Every other line gets `usage = None`.
    """
    last: dict[tuple[str, str], TranscriptEntry] = {}
    for entry in entries:
        entry.usage = None
        if entry.type != "assistant":
            continue
        if entry.message_id and entry.request_id:
            last[(entry.message_id, entry.request_id)] = entry
        elif any(getattr(entry, name) is not None for name in (*usage.FIELDS, *usage.SPLIT)):
            row = (None, None, entry.model, *(getattr(entry, name) for name in fields.USAGE_COLUMNS))
            entry.usage = usage.messages([row])[0]
    if not last:
        return
    rows = fields.usage_rows(
        TranscriptEntry.objects.filter(session_id__in={entry.session_id for entry in last.values()})
    )
    found = {
        (message.message_id, message.request_id): message
        for message in usage.messages(bulk.chunked_in(rows, "message_id", {m for m, _ in last}))
    }
    for key, entry in last.items():
        entry.usage = found.get(key)


def pair_results(source_id: int | None, entries: list[TranscriptEntry]) -> list[TranscriptEntry]:
    """Give each tool call its own result (`paired_result`), parallel calls included, and mark the
    results shown inside their call (`with_call`). A result on a later page is read here too (one
    query): it is shown under its call, and again at its own place on its own page. Returns the
    results read from outside `entries`, to be prepared for display with them."""
    calls = {entry.tool_use_id: entry for entry in entries if entry.type == "assistant" and entry.tool_use_id}
    if not calls:
        return []
    here = {entry.tool_result_id: entry for entry in entries if entry.type == "user" and entry.tool_result_id}
    outside = [tool_use for tool_use in calls if tool_use not in here]
    found = {}
    if outside:
        for result in TranscriptEntry.objects.filter(
            source_id=source_id, tool_result_id__in=outside, is_copy=False
        ).order_by("offset", "index"):
            found.setdefault(result.tool_result_id, result)
    for tool_use, call in calls.items():
        result = here.get(tool_use) or found.get(tool_use)
        call.paired_result = result
        if result is not None and tool_use in here and here[tool_use].offset >= call.offset:
            result.with_call = True
    return list(found.values())


def entry_code(session: Session, entry_id: int, slot: str) -> tool_cards.CodeBox | None:
    """One code box of an entry of `session` (trunk or subagent file), or None: what a page that
    drew the box plain, past its highlighting budget, fetches coloured. One query."""
    entry = TranscriptEntry.objects.filter(pk=entry_id, session=session).first()
    if entry is None:
        return None
    secret_masks.mask_entries([entry])
    return tool_cards.code_box(entry, slot)
