"""Text hits for a page of grouped matches: each group's first line loaded with its session and source,
placed under the turn the session page shows it in, and linked to that place."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlencode

from django.db.models import OuterRef, Q, Subquery
from django.urls import reverse

from introspect.models import SourceFile, TranscriptEntry, Turn
from introspect.queries.search_results import Hit, session_url
from introspect.queries.search_text import TextGroup, pieces, snippets
from introspect.rules import entry_kinds
from lib import converters


def text_hits(terms: list[str], groups: list[TextGroup]) -> dict[int, Hit]:
    """Entry id → the hit for each group's first line (a line deleted since the ranking is left out)."""
    if not groups:
        return {}
    ids = [group.entry_id for group in groups]
    marked = snippets(terms, ids)
    placed = {found.entry.pk: found for found in page_entries(ids)}
    hits = {}
    for group in groups:
        found = placed.get(group.entry_id)
        if found is None:
            continue
        entry, turn_epoch = found.entry, found.turn_epoch
        session = entry.session
        agent = entry.source.agent_key if entry.source.kind == SourceFile.Kind.SUBAGENT_TRANSCRIPT else ""
        anchor = (
            f"u-{converters.dom_id(entry.uuid)}"
            if entry.uuid
            else (f"turn-{turn_epoch}" if turn_epoch else "")
        )
        if agent:
            url = reverse("introspect:subagent-detail", args=[session.sid, agent])
            url += "?" + urlencode({**({"hit": entry.uuid} if entry.uuid else {}), "q": " ".join(terms)})
            url += f"#{anchor}" if anchor else ""
        else:
            url = session_url(session.sid, turn_epoch, anchor, uuid=entry.uuid or "", terms=terms)
        hits[entry.pk] = Hit(
            session_sid=session.sid,
            kind=entry_kinds.search_kind(entry),
            snippet=pieces(marked.get(entry.pk, "")),
            url=url,
            ts=entry.ts,
            epoch=None if agent else turn_epoch,
            tool_name=entry.tool_name or "",
            uuid=entry.uuid or "",
            project=session.project.name if session.project else "",
            title=session.title,
            subagent=agent,
            count=group.count,
            last_ts=group.last_ts if group.count > 1 else None,
            session_started=session.started_at,
        )
    return hits


@dataclass(frozen=True, slots=True)
class PlacedEntry:
    """A hit's entry (with its session and source) and the fire turn the session page shows it
    under (None: no turn)."""

    entry: TranscriptEntry
    turn_epoch: int | None


def page_entries(ids: list[int]) -> list[PlacedEntry]:
    """The page's entries with their session, source and the turn each is shown under.

    The session page lists turns in pages of queries.TURNS_PER_PAGE and shows a line inside the
    exchange of the prompt before it, under the turn keyed to that prompt (else the first turn
    near it): so a hit needs that turn's epoch to land on the right page. Two reads, each bounded
    by the page: the entries with the prompt before each (`anchor`), then the turns of those
    prompts by their indexed foreign keys. (One statement with the turn as a correlated subquery
    scanned every turn of the session per hit: ~5 ms a hit in a 5,000-turn session.)
    """
    anchor = (
        TranscriptEntry.objects.filter(
            source_id=OuterRef("source_id"), is_prompt=True, is_copy=False, offset__lte=OuterRef("offset")
        )
        .order_by("-offset", "-index")
        .values("pk")[:1]
    )
    entries = list(
        TranscriptEntry.objects.filter(pk__in=ids)
        .select_related("session__project", "source")
        .annotate(anchor=Subquery(anchor))
        .only(
            "id",
            "type",
            "subtype",
            "uuid",
            "ts",
            "is_prompt",
            "is_meta",
            "is_compact_summary",
            "tool_use_id",
            "tool_result_id",
            "tool_name",
            "hook_event",
            "offset",
            "source_id",
            "session__sid",
            "session__title",
            "session__started_at",
            "session__project__name",
            "source__kind",
            "source__agent_key",
        )
    )
    epochs = turn_epochs({entry.anchor for entry in entries} - {None})
    return [
        PlacedEntry(entry=entry, turn_epoch=epochs.get((entry.session_id, entry.anchor))) for entry in entries
    ]


def turn_epochs(anchors: set[int]) -> dict[tuple[int, int], int]:
    """(session id, prompt id) → the epoch of the turn keyed to that prompt, else the first turn near it."""
    if not anchors:
        return {}
    turns = Turn.objects.filter(
        Q(prompt_entry_id__in=anchors) | Q(nearest_prompt_id__in=anchors)
    ).values_list("session_id", "prompt_entry_id", "nearest_prompt_id", "join_confidence", "epoch")
    best: dict[tuple[int, int], tuple[bool, int]] = {}
    for session_id, keyed_to, near, confidence, epoch in turns:
        for prompt in {keyed_to, near} & anchors:
            rank = (confidence != Turn.Join.KEYED, epoch)
            key = (session_id, prompt)
            if key not in best or rank < best[key]:
                best[key] = rank
    return {key: epoch for key, (_, epoch) in best.items()}
