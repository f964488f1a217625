"""Session S14: transcript only: agent-ways hooks were not active."""

from __future__ import annotations

import random

from sample import texts
from sample.sessions import Session
from sample.state import Home
from sample.timeline import SEED, SONNET, T


def play(h: Home) -> None:
    s = Session(
        h,
        "S14",
        "notes",
        T(9, 10, 0, 6),
        gen=None,
        model=SONNET,
        version="2.1.190",
        branch="",
        note="transcript only: agent-ways hooks were not active",
    )
    s.start()
    s.prompt(
        "what's on my reading list?",
        steps=[("read", "reading/list.md", {})],
        answer="Five books, four unread.",
    )
    s.prompt(
        "mark 'Thinking in Systems' as started",
        steps=[("edit", "reading/list.md", "- [ ] Thinking in Systems", "- [~] Thinking in Systems", {})],
        answer="Marked.",
    )
    memory_prompts(h, s)
    s.prompt("thanks", answer="Enjoy the book.")
    s.finish()


# Claude Code's auto-memory: projects/<slug>/memory/, written by the session's own Write and Edit calls.
MEMORY_DIR = "/home/dev/.claude/projects/-home-dev-notes/memory"
MEMORY_READING = texts.text("memory/reading.md")
MEMORY_INDEX = texts.text("memory/MEMORY.md")
MEMORY_STYLE = texts.text("memory/style.md")


def memory_prompts(h: Home, s: Session) -> None:
    """S14 saves a memory (Write topic + index) and corrects it a turn later (Edit). Drawn from a
    random stream of their own, so every other file of the sample stays byte for byte as it was."""
    main = h.rng
    h.rng = s.rng = random.Random(SEED + 14)
    s.prompt(
        "remember how I mark progress on the reading list",
        steps=[
            ("write", f"{MEMORY_DIR}/reading.md", MEMORY_READING.replace("`[x]` finished", "`[x]` done"), {}),
            ("write", f"{MEMORY_DIR}/MEMORY.md", MEMORY_INDEX, {}),
        ],
        answer="Saved to memory: `[ ]` unread, `[~]` started, `[x]` done.",
    )
    s.prompt(
        "I say finished, not done",
        steps=[("edit", f"{MEMORY_DIR}/reading.md", "`[x]` done", "`[x]` finished", {})],
        answer="Updated the memory.",
    )
    h.rng = s.rng = main
    home_memory = ".claude/projects/-home-dev-notes/memory"
    h.put_text(f"{home_memory}/reading.md", MEMORY_READING)
    h.put_text(f"{home_memory}/MEMORY.md", MEMORY_INDEX)
    h.put_text(f"{home_memory}/style.md", MEMORY_STYLE)  # written before any recorded session
