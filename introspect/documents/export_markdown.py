"""A session as Markdown: a header with the session's facts and usage, the conversation turn by
turn, each tool call and result in a fenced block, under each prompt the ways agent-ways injected
for it, and an appendix with each subagent's conversation (a spawning call points to its run).

Produced a chunk of the conversation at a time (`markdown_export` yields strings). Agent prose
stays Markdown (a reply is Markdown already) but is made inert (`prose`); everything that is
not prose — tool input and output, injected context, thinking — goes in a fence longer than any
run of backticks inside it, so no text can close its fence early.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence

from introspect.documents.export_runs import SubagentRun
from introspect.models import Session
from introspect.rules import channels

BACKTICKS = re.compile(r"`{3,}")


def fenced(text: str, language: str = "") -> str:
    """`text` in a code fence that nothing inside it can close."""
    longest = max((len(run) for run in BACKTICKS.findall(text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{language}\n{text.rstrip(chr(10))}\n{fence}\n"


def prose(text: str) -> str:
    """Agent prose kept as Markdown, but inert in any viewer: raw HTML shows as text (`<` as an
    entity) and an image is a plain link (`!\\[`), so opening the file fetches nothing."""
    return text.replace("<", "&lt;").replace("![", "!\\[")


def quoted(text: str) -> str:
    return "\n".join(f"> {line}" if line else ">" for line in text.splitlines() or [""]) + "\n"


def stamp(entry) -> str:
    return f" · {entry.timestamp_raw}" if entry.timestamp_raw else ""


def markdown_export(
    session: Session, chunks: Iterable[list], subagents: Sequence[SubagentRun] = ()
) -> Iterator[str]:
    """The Markdown document of `session`: a header, then one part per chunk of spine items
    (queries.export.export_chunks), then the subagents' conversations (queries.export.subagent_runs)."""
    yield header(session, subagents)
    spawned = {run.agent.tool_use_id: run for run in subagents if run.agent.spawn_entry_id}
    for items in chunks:
        # A result paired into its call's block is written there, not again at its own place; the
        # input queue's bookkeeping is not written (its words are a prompt's, or there were none).
        yield "".join(
            item_markdown(item) + spawn_pointer(item.card, spawned)
            for item in items
            if not skipped(item.card)
        )
    if subagents:
        yield "---\n\n# Subagents\n\n"
    for run in subagents:
        yield subagent_header(run)
        for chunk in run.chunks:
            yield "".join(entry_markdown(card) + "\n" for card in chunk if not skipped(card))


def skipped(card) -> bool:
    """A fire turn's or an unread line's item (no card) is written; an entry's card is not when its
    result is written inside its call, or it is the input queue's bookkeeping."""
    return card is not None and (card.with_call or card.bookkeeping)


def header(session: Session, subagents: Sequence[SubagentRun] = ()) -> str:
    project = session.recorded_project or (session.project.path if session.project else "")
    lines = [f"# Session `{session.sid}`", ""]
    if session.title:
        lines += [f"**{session.title}**", ""]
    facts = [
        ("Project", f"`{project}`" if project else "—"),
        ("Started (UTC)", session.started_at.strftime("%Y-%m-%d %H:%M:%S") if session.started_at else "—"),
        ("Models", session.models_seen or session.model or "—"),
        ("Tokens", usage_line(session)),
        ("Cost (estimate, list prices)", cost_line(session)),
        ("Fire turns (agent-ways)", str(session.turn_count)),
        ("Fired ways", f"{session.total_fires} ({session.distinct_ways} distinct)"),
    ]
    if subagents:
        facts.append(("Subagents", f"{len(subagents)}, their conversations in the appendix"))
    lines += [f"- {label}: {value}" for label, value in facts]
    if session.transcript_id is None:
        lines += [
            "",
            "_The main transcript of this session was not imported: its subagents' conversations are in "
            "the appendix, and only its fire turns follow._"
            if subagents
            else "_No transcript was imported for this session: only its fire turns follow._",
        ]
    return "\n".join(lines) + "\n\n"


def usage_line(totals) -> str:
    """A Session's tokens, or a run's (rules.usage.UsageTotals): each message's final counts."""
    return (
        f"{totals.input_tokens:,} input · {totals.output_tokens:,} output · "
        f"{totals.cache_read_input_tokens:,} cache read · {totals.cache_creation_input_tokens:,} cache write"
    )


def cost_line(totals) -> str:
    cost = "—" if totals.cost_usd is None else f"${totals.cost_usd:,.2f}"
    if totals.unpriced_messages:
        cost += f" (+ {totals.unpriced_messages} message(s) of a model with no list price)"
    return cost


def subagent_title(run: SubagentRun) -> str:
    kind = f" ({run.agent.agent_type.replace('`', '')})" if run.agent.agent_type else ""
    return f"Subagent `{run.agent.agent_id.replace('`', '')}`{kind}"


def spawn_pointer(card, spawned: dict[str, SubagentRun]) -> str:
    run = spawned.get((card.entry.tool_use_id if card is not None else None) or "")
    if run is None:
        return ""
    return f"> This call ran {subagent_title(run)}: its conversation is in the appendix, under its name.\n\n"


def subagent_header(run: SubagentRun) -> str:
    agent = run.agent
    lines = [f"## {subagent_title(run)}", ""]
    if agent.description:
        lines += [f"**{prose(agent.description)}**", ""]
    spawn = agent.spawn_entry
    if spawn is not None:
        lines.append(f"- Spawned by: tool call `{agent.tool_use_id}`{stamp(spawn)}")
    else:
        lines.append("- Spawned by: no tool call of the main transcript (not found, or not imported)")
    if run.totals is not None:
        lines += [
            f"- Models: {', '.join(run.models) or '—'}",
            f"- Tokens: {usage_line(run.totals)}",
            f"- Cost (estimate, list prices): {cost_line(run.totals)}",
        ]
    return "\n".join(lines) + "\n\n"


def item_markdown(item) -> str:
    if item.fire is not None:
        return fire_markdown(item.fire, item.conversation_turn)
    if item.gap is not None:
        return gap_markdown(item.gap)
    heading = ""
    if item.turn_start is not None:
        title = f"Turn {item.turn_start}" if item.turn_start else "Before the first prompt"
        heading = f"## {title}\n\n"
    return heading + entry_markdown(item.card) + "\n"


def gap_markdown(gap) -> str:
    """A line the importer could not read, where it was (queries/line_gaps.LineGap)."""
    more = f" (and {gap.more} more after it, not listed one by one)" if gap.more else ""
    return f"*Line {gap.line} of `{gap.file.replace('`', '')}` could not be read: {gap.reason}{more}.*\n\n"


def fire_markdown(turn, at: int | None) -> str:
    """A fire turn, named by the conversation turn it sits in (`at`; None: tied to no prompt)."""
    join = "keyed" if turn.join_confidence == "keyed" else f"heuristic: {turn.join_reason or 'by time'}"
    where = f"at turn {at}" if at else "tied to no prompt"
    where += f" (agent-ways epoch {turn.epoch})"
    lines = [f"> **Ways injected** {where} · {turn.ts_raw} · {join}"]
    for row in turn.ways.all():
        parts = [f"`{row.way_id}`", channels.trigger_label(row.trigger_channel) or "no channel"]
        if row.fire_score is not None:
            parts.append(f"score {row.fire_score:.4f}")
        if row.matched_span:
            parts.append(f"matched “{row.matched_span}”")
        if row.redisclosed:
            parts.append("re-disclosed")
        if row.gated:
            parts.append("withheld: gated")
        elif row.suppressed:
            parts.append(f"withheld: {row.suppressed}")
        lines.append(f"> - {' · '.join(parts)}")
    return "\n".join(lines) + "\n\n"


def entry_markdown(card) -> str:
    """An entry's card (queries.entry_cards.EntryCard) as Markdown."""
    entry = card.entry
    kind = card.kind
    if kind == "prompt":
        return f"**User**{stamp(entry)}\n\n{quoted(prose(card.text))}"
    if kind == "reply":
        return f"**Assistant**{stamp(entry)}\n\n{prose(card.text).rstrip()}\n"
    if kind == "call":
        return call_markdown(card)
    if kind == "result":
        return (
            f"**Tool result**{' (error)' if entry.is_error else ''}{stamp(entry)}\n\n{result_markdown(card)}"
        )
    if kind == "thinking":
        return f"*Thinking*{stamp(entry)}\n\n{fenced(card.text)}"
    if kind == "context":
        hook = entry.hook_event or "hook"
        return f"*Context injected by the {hook} hook*{stamp(entry)}\n\n{fenced(card.text)}"
    if kind == "summary":
        return f"*Compaction summary*{stamp(entry)}\n\n{quoted(prose(card.text))}"
    if kind == "compaction":
        return f"---\n\n*Compaction*{stamp(entry)}\n\n---\n"
    if kind == "system":
        text = card.system_text
        return f"*System · {entry.subtype or 'line'}*{stamp(entry)}\n" + (f"\n{fenced(text)}" if text else "")
    if kind == "hook":
        return f"*Hook {entry.hook_event} · {entry.subtype}*{stamp(entry)}\n"
    if kind == "queued":
        return f"*Typed while the agent worked*{stamp(entry)}\n" + (
            f"\n{fenced(card.text)}" if card.text else ""
        )
    if kind == "interrupt":
        return (
            f"*Interrupted by the user{' at a tool call' if 'tool use' in card.text else ''}*{stamp(entry)}\n"
        )
    label = {"meta": "Injected text (isMeta)", "user": "User line", "attachment": "Attachment"}.get(
        kind, f"{entry.type} line"
    )
    if kind == "attachment" and entry.subtype:
        label += f" · {entry.subtype}"
    return f"*{label}*{stamp(entry)}\n" + (f"\n{fenced(card.text)}" if card.text else "")


def call_markdown(card) -> str:
    entry, call = card.entry, card.call
    head = f"**Tool call: {call.name or entry.tool_name or '?'}**"
    if call.summary:
        head += f" — `{call.summary.replace('`', '')}`"
    body = (
        fenced(call.command, "bash")
        if call.kind == "bash" and call.command
        else fenced(call.input_json, "json")
    )
    out = f"{head}{stamp(entry)}\n\n{body}"
    result = card.paired_result
    if result is not None:
        out += f"\nResult{' (error)' if result.entry.is_error else ''}:\n\n{result_markdown(result)}"
    return out


def result_markdown(card) -> str:
    result = card.result
    if result.stdout is not None or result.stderr:
        out = fenced(result.stdout or "")
        if result.stderr:
            out += f"\nstderr:\n\n{fenced(result.stderr)}"
        return out
    if result.kind == "read" and result.content:
        return fenced(result.content)
    return fenced(result.text)
