"""The agent-ways event logs of the sample: routing each line to the live log, a dated archive or the legacy
log, and the two rows rewritten on purpose."""

from __future__ import annotations

from sample import formats
from sample.state import Home
from sample.timeline import ARCHIVES, LEGACY, LIVE_FROM, OVERLAP_FROM, STATE, T, sec


def gz_member(name: str, lines: list[str]) -> bytes:
    """An archive member named like the file it was rotated into, minus `.gz`, as GzipFile names it."""
    return formats.gzip_member(formats.jsonl(lines).encode(), name=name.removesuffix(".gz"))


def extra_events(h: Home) -> None:
    """Rows no session wrote: the hook once dropped 40 MiB of log when its archive failed."""
    h.log(
        T(5, 6, 0, 0),
        {
            "ts": sec(T(5, 6, 0, 0)),
            "event": "event_log_dropped",
            "bytes": 41943040,
            "reason": "archive failed",
        },
    )


def fix_plus00(h: Home) -> None:
    """Rewrite one S08 row (between two rows two seconds apart) with a +00:00 timestamp."""
    s08 = next(s for s in h.sessions if s.key == "S08")
    rows = [
        e
        for e in h.events
        if e["session"] == s08.sid
        and e["d"]["event"] == "way_redisclosed"
        and e["d"]["way"] == "softwaredev/architecture/design"
    ]
    e = rows[0]  # the row at +1 s in the "run them" turn, between fires at +0 s and +2 s
    e["d"]["ts"] = e["dt"].strftime("%Y-%m-%dT%H:%M:%S+00:00")
    e["line"] = formats.events_line(**e["d"])


def route(h: Home) -> dict[str, list]:
    out: dict[str, list] = {"live": [], "legacy": []}
    members: dict[tuple[str, int], list] = {}
    for e in sorted(h.events, key=lambda e: (e["sort"], e["seq"])):
        dest, dt = e["dest"], e["dt"]
        if dest == "legacy":
            out["legacy"].append(e["line"])
            continue
        if dt >= LIVE_FROM or e["d"]["event"] == "judge_call":
            out["live"].append(e["line"])
            continue
        for name, member, upto in ARCHIVES:
            if dt < upto:
                members.setdefault((name, member), []).append(e["line"])
                break
        if dt >= OVERLAP_FROM:
            out["live"].append(e["line"])
    out["archives"] = members
    return out


def write_logs(h: Home) -> None:
    """The live log, the legacy log, the dated archives and the hand-made preserved copy readers ignore."""
    routed = route(h)
    # live log: order of writing; overlap lines and kept judge_call lines come first after rotation
    h.put_text(f"{STATE}/events.jsonl", "".join(line + "\n" for line in routed["live"]))
    h.put_text(LEGACY, "".join(line + "\n" for line in routed["legacy"]))
    archives: dict[str, bytes] = {}
    for (name, _member), lines in sorted(routed["archives"].items()):
        archives[name] = archives.get(name, b"") + gz_member(name, lines)
    for name, data in archives.items():
        h.files[f"{STATE}/{name}"] = data
    preserved = [
        formats.events_line(
            "2025-12-31T16:02:11Z",
            "session_start",
            project="/home/dev/src/api-server",
            session="0c6f1f7e-5d1b-4c33-9f0a-preserved0001",
        ),
        formats.events_line(
            "2025-12-31T16:03:40Z",
            "way_fired",
            way="softwaredev/delivery/commits",
            domain="softwaredev",
            trigger="bash",
            scope="agent",
            project="/home/dev/src/api-server",
            session="0c6f1f7e-5d1b-4c33-9f0a-preserved0001",
        ),
    ]
    preserved_name = "events-preserved-2026-01-01.jsonl.gz"
    h.files[f"{STATE}/{preserved_name}"] = gz_member(preserved_name, preserved)
