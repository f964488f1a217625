"""What the tests ask of a process they started or killed (Linux /proc)."""

from __future__ import annotations

from pathlib import Path


def exited(pid: int) -> bool:
    """Whether the process has ended: gone, or a zombie its parent has not reaped yet (or dead)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return True
    # pid (comm) state …: comm may hold spaces and parentheses, so read after the last ")".
    return stat.rsplit(")", 1)[1].split()[0] in ("Z", "X")
