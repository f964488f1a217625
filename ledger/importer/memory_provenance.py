"""Memory versions linked to the transcript tool call that wrote them, and its conversation turn.

The calls are the `Write` / `Edit` / `MultiEdit` lines of the project's own transcripts
(`projects/<slug>/*.jsonl`, the folder beside `memory/`) whose `file_path` is the memory file's
absolute path (or the same projects/<slug>/memory/<name> under another home);
ledger/importer/memory_calls.py decides exact vs heuristic. Runs after the transcripts of the pass
are imported (ledger/importer/run.py), so a call written a moment before its memory file is
already a row.
"""

from __future__ import annotations

from django.db import transaction
from django.db.models import Max

from introspect.models import SourceFile, TranscriptEntry
from ledger.importer import memory_calls
from ledger.models import Memory, MemoryVersion
from lib import linepack


def place_of(memory: Memory) -> str:
    """The end of every path a call can name the memory file by (under this home or another's)."""
    return f"/projects/{memory.project_slug}/memory/{memory.name}"


def writing_calls(memory: Memory):
    """The project's transcript lines that call a file-writing tool (memory_calls.WRITING_TOOLS) on
    a path naming this memory file. A call line's text holds its `file_path`
    (importer/transcripts.tool_input_text), so the database narrows them: only these lines are
    unpacked and replayed, not every Write and Edit of the project."""
    return TranscriptEntry.objects.filter(
        source__kind__in=SourceFile.TRANSCRIPT_KINDS,
        source__rel_path__startswith=f"{memory.project_slug}/",
        tool_name__in=memory_calls.WRITING_TOOLS,
        text__contains=place_of(memory),
    )


def project_calls(memory: Memory) -> list[memory_calls.Call]:
    """The writing calls on `memory`'s file in its project's transcripts, in time order."""
    entries = (
        writing_calls(memory)
        .filter(is_copy=False)
        .exclude(tool_use_id=None)
        .order_by("ts", "source_id", "offset", "index")
    )
    place = place_of(memory)
    calls = []
    for entry in entries:
        try:
            line = linepack.unpack(entry.raw, entry.raw_compressed)
        except linepack.CorruptLine:
            continue
        data = memory_calls.call_input(line, entry.tool_use_id)
        call = memory_calls.call_on(memory.path, entry, entry.tool_name, data, place=place) if data else None
        if call is not None:
            calls.append(call)
    return calls


def conversation_turn(entry: TranscriptEntry) -> int | None:
    """The conversation turn of a trunk call (the prompts at or before it); None in a subagent's file."""
    session = entry.session
    if session is None or session.transcript_id != entry.source_id:
        return None
    prompts = TranscriptEntry.objects.filter(
        source_id=entry.source_id, is_prompt=True, is_copy=False, inert=False, offset__lte=entry.offset
    ).exclude(offset=entry.offset, index__gt=entry.index)
    return prompts.count()


def waiting(skip: list[int]) -> list[int]:
    """Memories (other than `skip`) with a version no call was found for, whose project's
    transcripts gained a writing call on that file since they were last linked: the call may be it
    (its transcript imported after the memory file, in a later pass). One query each, reading only
    the entries past the mark; memories changed outside any session cost that each pass, no more."""
    unlinked = (
        Memory.objects.filter(versions__match=MemoryVersion.Match.NONE)
        .exclude(pk__in=skip)
        .distinct()
        .only("pk", "project_slug", "name", "calls_seen")
    )
    return [m.pk for m in unlinked if writing_calls(m).filter(pk__gt=m.calls_seen).exists()]


def link_memories(memory_ids: list[int]) -> int:
    """Link every version of these memories to its call (again: a later transcript may hold it); how many linked."""
    linked = 0
    # Read before the calls: a line imported meanwhile is past the mark, so looked at next time.
    top = TranscriptEntry.objects.aggregate(top=Max("pk"))["top"] or 0
    for memory in Memory.objects.filter(pk__in=memory_ids):
        versions = list(memory.versions.order_by("number"))
        links = memory_calls.replay(project_calls(memory), [(v.sha256, v.content) for v in versions]).links
        with transaction.atomic():
            for version in versions:
                link = links.get(version.sha256)
                entry = link.key if link else None
                version.entry = entry
                version.session = entry.session if entry else None
                version.turn = conversation_turn(entry) if entry else None
                version.match = (
                    ""
                    if link is None
                    else MemoryVersion.Match.EXACT
                    if link.exact
                    else MemoryVersion.Match.HEURISTIC
                )
                version.save(update_fields=["entry", "session", "turn", "match"])
                linked += entry is not None
            Memory.objects.filter(pk=memory.pk).update(calls_seen=top)
    return linked
