"""A subagent's run as an export writes it: who it was, what it cost, and its conversation.

Built by queries.export.subagent_runs (the queries sit above the documents, so the shape the
three formats read is defined here, below both).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from introspect.models import Subagent
from introspect.rules.usage import UsageTotals


@dataclass
class SubagentRun:
    """`chunks`: its conversation's entries prepared for display (queries.entry_cards.EntryCard: the
    queries sit above this module), a chunk at a time, read only when iterated (once); a result
    shown inside its call is marked `with_call`, as on the page."""

    agent: Subagent
    models: list[str]
    totals: UsageTotals | None  # None: its file has no line
    chunks: Iterator[list] = field(repr=False)
