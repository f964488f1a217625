"""The sample's calendar and cast: the seed, the projects, the models, when the event log was rotated,
and the time formats every file uses."""

from __future__ import annotations

from datetime import UTC, datetime

from sample import formats

SEED = 20261105  # of the one random stream every session draws from, in the order they are played

STATE = formats.EVENTS_DIR
LEGACY = formats.LEGACY_EVENTS
CORE = formats.CORE_WAYS
USER = formats.USER_WAYS

PROJECTS = {
    "api": "/home/dev/src/api-server",
    "web": "/home/dev/src/web-ui",
    "infra": "/home/dev/src/infra",
    "notes": "/home/dev/notes",
}

OPUS = "claude-opus-4-6"
SONNET = "claude-sonnet-4-6"
HAIKU = "claude-haiku-4-5-20251001"
JUDGE_MODEL = "claude-haiku-4-5"

# Archive routing (formats-agent-ways.md §2-§3): the live log keeps lines from LIVE_FROM on; older
# lines were appended to the archive of the day they were removed. Lines of the newest archive
# from OVERLAP_FROM on are also still in the live file (rotation overlap). judge_call lines are
# never archived (they stay in the live log whatever their age).
ARCHIVES = [
    ("events-2026-11-03.jsonl.gz", 0, datetime(2026, 11, 2, 12, 0, tzinfo=UTC)),
    ("events-2026-11-03.jsonl.gz", 1, datetime(2026, 11, 2, 13, 20, tzinfo=UTC)),
    ("events-2026-11-04.jsonl.gz", 0, datetime(2026, 11, 3, 18, 0, tzinfo=UTC)),
    ("events-2026-11-06.jsonl.gz", 0, datetime(2026, 11, 5, 0, 0, tzinfo=UTC)),
]
LIVE_FROM = ARCHIVES[-1][2]
OVERLAP_FROM = datetime(2026, 11, 4, 17, 25, 30, tzinfo=UTC)


def T(day: int, h: int, m: int, s: int = 0) -> datetime:
    return datetime(2026, 11, day, h, m, s, tzinfo=UTC)


def sec(dt: datetime) -> str:
    return dt.strftime("%Y-%m-%dT%H:%M:%SZ")


def msec(dt: datetime) -> str:
    return dt.strftime("%Y-%m-%dT%H:%M:%S.") + f"{dt.microsecond // 1000:03d}Z"


def floor_s(dt: datetime) -> datetime:
    return dt.replace(microsecond=0)


def domain(way: str) -> str:
    return way.split("/")[0]
