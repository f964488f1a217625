"""A least-recently-used cache shared by the threads of one process.

Two renders keep their results here (lib/render.py's markdown, introspect/rules/highlight.py's
Pygments lines): both key by a content digest so the cache never holds the texts it was given,
and both are read from several threads at once (waitress), hence the lock.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any

# What `get` returns for a key it does not hold (a cached value may itself be None).
MISSING: Any = object()


def _one(_value: Any) -> int:
    return 1


class LruCache:
    """Values by key, the least recently used dropped first once their weights pass `limit`.

    `weigh` gives a value's weight (1 each by default, so `limit` counts entries); a value heavier
    than the whole limit is not kept.
    """

    def __init__(self, limit: int, weigh: Callable[[Any], int] = _one):
        self.limit = limit
        self.weigh = weigh
        self.weight = 0
        self._values: OrderedDict[Hashable, Any] = OrderedDict()
        self._weights: dict[Hashable, int] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._values)

    def get(self, key: Hashable, default: Any = MISSING) -> Any:
        """The value kept for `key` (now the most recently used), else `default`."""
        with self._lock:
            found = self._values.get(key, MISSING)
            if found is MISSING:
                return default
            self._values.move_to_end(key)
            return found

    def put(self, key: Hashable, value: Any) -> Any:
        """Keep `value` for `key` and return what is kept: when another thread stored the same key
        meanwhile, its value stays, so equal keys always give the one same object."""
        weight = self.weigh(value)
        with self._lock:
            found = self._values.get(key, MISSING)
            if found is not MISSING:
                self._values.move_to_end(key)
                return found
            if weight > self.limit:
                return value
            self._values[key] = value
            self._weights[key] = weight
            self.weight += weight
            while self.weight > self.limit:
                old, _ = self._values.popitem(last=False)
                self.weight -= self._weights.pop(old)
            return value

    def clear(self) -> None:
        """Forget every value."""
        with self._lock:
            self._values.clear()
            self._weights.clear()
            self.weight = 0
