"""Small JSON state files beside the database (import progress, the last import failure).

Best effort by design: what they say is also said elsewhere (the command's output), so a full or
read-only disk costs only the file. Written atomically: a reader never sees half a file.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

import orjson


def write(target: Path, data: object) -> None:
    """`data` as JSON at `target`, through a temp file of this process renamed over it."""
    temp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        temp.write_bytes(orjson.dumps(data))
        os.replace(temp, target)
    except OSError:
        with contextlib.suppress(OSError):
            temp.unlink(missing_ok=True)


def remove(target: Path) -> None:
    with contextlib.suppress(OSError):
        target.unlink(missing_ok=True)
