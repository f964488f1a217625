"""The HOME being built: the one random stream, the event lines logged so far and the files written."""

from __future__ import annotations

import random
import string
from datetime import datetime, timedelta

from sample import formats
from sample.timeline import SEED

B62 = string.digits + string.ascii_letters


class Home:
    """Everything the build has made so far; files are written out only at the end (sample/build.py)."""

    def __init__(self) -> None:
        self.rng = random.Random(SEED)
        self.events: list[dict] = []  # {dt, sort, seq, line, dest, session, d}
        self.files: dict[str, bytes] = {}
        self.sessions: list = []  # every sessions.Session, in the order the story plays them

    # ids ---------------------------------------------------------------------------------
    def b62(self, n: int) -> str:
        return "".join(self.rng.choice(B62) for _ in range(n))

    def hexs(self, n: int) -> str:
        return "".join(self.rng.choice("0123456789abcdef") for _ in range(n))

    # events ------------------------------------------------------------------------------
    def log(self, dt: datetime, d: dict, *, dest=None, late=0, session=None, raw_ts=None) -> None:
        if raw_ts:
            d["ts"] = raw_ts
        self.events.append(
            dict(
                dt=dt,
                sort=dt + timedelta(seconds=late),
                seq=len(self.events),
                d=d,
                line=formats.events_line(**d),
                dest=dest,
                session=session,
            )
        )

    def put_text(self, rel: str, text: str) -> None:
        assert text.endswith("\n"), rel
        self.files[rel] = text.encode()

    def put_jsonl(self, rel: str, lines: list[str]) -> None:
        self.put_text(rel, formats.jsonl(lines))
