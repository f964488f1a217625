"""The session builder the sample HOME (sample/sessions.py) and the bench corpus (bench/corpus.py) share.

A session writes one transcript thread per file (the trunk, one per subagent). Each line is chained to the
one before (`parentUuid`), stamped with the session's clock, and every assistant reply moves the thread's
context window: what was pending is read from the cache at the next reply (formats-claude-code.md §4-§6,
§9). The two generators differ in how they draw what the builder leaves open (their clock, their message
ids, how long a reply is, the key order of their lines); each subclass says how, and the builder keeps the
order of the random draws, so both write the bytes they always wrote.
"""

from __future__ import annotations

import random
import uuid
from collections.abc import Callable

from sample import formats

# `parent=HEAD`: the line's parent is the thread's chain head (the default)
HEAD = object()


class Thread:
    """One transcript file (the trunk or a subagent) and its context-window bookkeeping."""

    __slots__ = ("agent", "cached", "env", "head", "lines", "model", "pending", "position", "tool_uses")

    def __init__(self, env: dict, model: str, agent: str | None, pending: int) -> None:
        self.env = env  # the envelope every line of the thread repeats
        self.head: str | None = None  # the chain head: the uuid of the last chained line
        self.cached = 0  # tokens the next reply reads from the prompt cache
        self.pending = pending  # tokens added since the last reply (written to the cache by the next)
        self.position = 0  # the context used at the last reply
        self.model = model
        self.agent = agent
        self.lines: list[str] = []
        self.tool_uses = 0


class TranscriptBuilder:
    """Writes a session's transcript lines; a subclass supplies the clock and the draws that are its own."""

    rng: random.Random
    order: formats.KeyOrder = formats.SAMPLE_ORDER
    writes_lines = True  # False: only the context window is kept (a session whose transcript is gone)

    # what a subclass decides -------------------------------------------------------------------------
    def adv(self, lo: int, hi: int) -> None:
        """Move the clock on by lo..hi milliseconds."""
        raise NotImplementedError

    def stamp(self) -> str:
        """The clock as a transcript timestamp."""
        raise NotImplementedError

    def output_tokens(self, blocks: list[dict]) -> int:
        """How many tokens a reply made of `blocks` wrote."""
        raise NotImplementedError

    def message_ids(self) -> tuple[str, str]:
        """A reply's `message.id` and `requestId`."""
        raise NotImplementedError

    # lines -------------------------------------------------------------------------------------------
    def new_uuid(self) -> str:
        return str(uuid.UUID(int=self.rng.getrandbits(128), version=4))

    def put(
        self, th: Thread, write, *args, parent=HEAD, chain: bool = True, uid: str | None = None, **fields
    ) -> str:
        """Append the line `write` makes for `th` now. The writer's first argument is the chain head (a
        compact_boundary's logical parent) unless `parent` names another; `chain` makes this line the head."""
        u = uid or self.new_uuid()
        head = th.head if parent is HEAD else parent
        th.lines.append(write(head, th.env, *args, uuid=u, timestamp=self.stamp(), **fields))
        if chain:
            th.head = u
        return u

    def respond(self, th: Thread, blocks: list[dict], stop: str) -> str:
        """One assistant reply, a line per block sharing its ids and usage; returns the last line's uuid."""
        self.adv(1500, 6500)
        inp, cr, cc = self.rng.randint(1, 9), th.cached, th.pending
        out = self.output_tokens(blocks)
        th.position = inp + cr + cc
        th.cached, th.pending = th.position + out, 0
        if not self.writes_lines:
            return ""
        usage = formats.usage(inp, cc, cr, out)
        mid, rid = self.message_ids()
        last = ""
        for i, b in enumerate(blocks):
            if i:
                self.adv(40, 900)
            last = self.put(
                th,
                formats.transcript_assistant,
                b,
                model=th.model,
                message_id=mid,
                request_id=rid,
                stop_reason=stop if i == len(blocks) - 1 else None,
                usage=usage,
                order=self.order,
            )
        return last

    def attach(
        self,
        th: Thread,
        hook_event: str,
        hook_name: str,
        tool_use_id: str | None,
        bodies: list[str],
        parent=HEAD,
    ) -> str:
        """The attachment line of a hook that injected `bodies` (a hook-run id is drawn when `tool_use_id` is
        None)."""
        return self.put(
            th,
            formats.transcript_attachment,
            parent=parent,
            hook_event=hook_event,
            hook_name=hook_name,
            tool_use_id=tool_use_id or self.new_uuid(),
            content=bodies,
        )

    def compaction(
        self, th: Thread, trigger: str, *, pre: int, post: int, duration_ms: int, summary: Callable[[], str]
    ) -> None:
        """The compact_boundary and the summary line; afterwards the window holds the `post` tokens only."""
        if self.writes_lines:
            # the chain head goes in as the boundary's logicalParentUuid; its parentUuid is null
            self.put(
                th,
                formats.transcript_compact_boundary,
                trigger=trigger,
                pre_tokens=pre,
                post_tokens=post,
                duration_ms=duration_ms,
                order=self.order,
            )
            self.adv(2, 30)
            self.put(th, formats.transcript_compact_summary, summary(), order=self.order)
        th.cached, th.pending, th.position = 0, post, post
