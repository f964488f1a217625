"""The cyclic garbage collector held off while a step builds many objects that all stay alive.

Every 700 new containers (tuples, lists, instances) start a collection, and the survivors of
those start a collection of everything the process holds: a derive's chunk reads a million events
and builds as many rows, none of which can be garbage before the chunk ends, and the collector's
walks over them were a sixth of a cold derive's CPU (issue 29). What cycles a step leaves are
collected once the collector is on again.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused() -> Iterator[None]:
    """The collector off for the block, on again after it unless it was off before (another
    thread's pause, or the process's own choice)."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()
