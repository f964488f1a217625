"""How fast the decision-log rules read: 100,000 scans parsed, grouped and counted, streaming.

    uv run python bench/decision_rules.py                 # 100,000 scans (+ pulls), written to a temp file
    uv run python bench/decision_rules.py --scans 20000 --keep /tmp/decisions.jsonl

Writes a deterministic decision log in the writer's full shape (decisions-and-effectiveness.md §1.3–§1.6:
prompt turns with 5 candidates and 1–6 outcomes of every result, queued and task scans, subagent dispatch
scans, judge statuses, about one pull in ten scans, a few malformed and unknown-kind lines), then reads it
three times, line by line from the file, holding no list of lines or records:
  orjson  `orjson.loads` alone on every well-formed line: the floor, and this machine's speed;
  parse   `decision_records.parse_line` on every line (the importer's per-line cost);
  stats   `decision_stats.report`: parse, group into turns, join pulls, count (`introspect stats --json`);
  session `decision_session.session_document` of one session over the whole log.
Reports lines/s and the process's peak RSS after each phase (ru_maxrss: the high-water mark, so a phase
that holds more than the one before shows as growth). Not part of the test suite.
"""

from __future__ import annotations

import argparse
import random
import resource
import sys
import tempfile
import time
from pathlib import Path

import orjson

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from introspect.rules import rust_json  # noqa: E402 - the repository root first, so `introspect` imports
from introspect.rules.agent_fmt_when import utc_iso  # noqa: E402
from introspect.rules.decision_records import Rejected, parse_line  # noqa: E402
from introspect.rules.decision_session import session_document  # noqa: E402
from introspect.rules.decision_stats import json_value, report  # noqa: E402

START = 1_790_000_000  # 2026-09-21
WAYS = [f"softwaredev/{area}/{leaf}" for area in ("code", "delivery", "docs", "ops") for leaf in "abcdefghij"]
RESULTS = ("fired", "redisclosed", "held_refire", "held_context_cap", "not_fireable", "withheld_for_parent")
CHANNELS = ("keyword", "semantic:late-interaction:en", "semantic:embedding:en", "semantic:embedding:multi")


def outcome(rng: random.Random, way: str, rank: int) -> dict:
    kind = rng.random()
    if kind < 0.2:
        return {"way": way, "result": "near_miss", "prob_en": round(rng.random(), 4), "tau_s": 0.5,
                "shortfall": round(rng.random() * 0.05, 4)}  # fmt: skip
    if kind < 0.3:
        return {"way": way, "result": "keyword_gated", "matched_span": "refactor the parser",
                "prob_en": round(rng.random() * 0.15, 4), "floor": 0.15}  # fmt: skip
    channel = rng.choice(CHANNELS)
    row = {"way": way, "result": rng.choice(RESULTS), "rank": rank, "channel": channel}
    if channel != "keyword":
        row["p"] = round(rng.random(), 4)
    if kind < 0.4:
        row |= {
            "result": "judge_block",
            "p_yes": round(rng.random() * 0.3, 3),
            "threshold": 0.3,
            "mode": "enforce",
        }
    elif kind < 0.45:
        row |= {"result": "ancestor_block", "ancestor_p_yes": 0.05, "ancestor_threshold": 0.3, "mode": "enforce",
                "ancestor": way.rsplit("/", 1)[0]}  # fmt: skip
    else:
        row |= {"p_yes": round(rng.random(), 4), "verdict": rng.choice(("pass", "pass", "would_block"))}
    return row


def scan(rng: random.Random, n: int, ts: int, session: str, agent: str, surface: str, start: bool) -> dict:
    ways = rng.sample(WAYS, 6)
    record = {
        "ts": utc_iso(ts),
        "kind": "scan",
        "scan_id": f"{ts * 10**9 + n:x}-{n % 65536:x}",
        "session": session,
        "agent": agent,
        "epoch": n % 97,
        "turn_start": start,
        "token_position": n * 37,
        "surface": surface,
        "hook_event": "UserPromptSubmit" if start else "PreToolUse",
        "scope": "agent" if surface == "prompt" else "subagent",
        "project": f"/home/dev/src/p{hash(session) % 4}",
        "lane": "en",
        "basis": "single",
        "sidecar": True,
        "body_rank": "scaled-single",
        "candidates": [
            {
                "way": way,
                "cosine": round(rng.random(), 4),
                "share": round(rng.random(), 4),
                "margin": round(rng.random() * 0.1, 4),
            }
            for way in ways[:5]
        ],
    }
    if surface == "task":
        record["outcomes"] = [{"way": ways[0], "result": "stashed", "rank": 1, "channel": "keyword"}]
    else:
        record["outcomes"] = [
            outcome(rng, way, rank) for rank, way in enumerate(ways[: rng.randint(1, 6)], 1)
        ]
        status = rng.random()
        record["judge"] = (
            {
                "status": "judged",
                "engine": "anthropic",
                "model": "claude-haiku-4-5",
                "judge_ms": rng.randint(300, 2000),
            }
            if status < 0.8
            else {"status": "fallback", "reason": "deadline", "capped": ways[4:6]}
            if status < 0.9
            else {"status": "off"}
        )
    return record


def write_log(path: Path, scans: int, seed: int) -> tuple[int, str]:
    """(lines written, a session to ask for): every scan and pull, one compact line each."""
    rng = random.Random(seed)
    lines = 0
    sessions = [f"{seed:04x}-{i:04x}-session" for i in range(max(1, scans // 40))]
    last_scan: dict[tuple[str, str], str] = {}
    with path.open("w") as out:
        for n in range(scans):
            ts = START + n * 7
            session = sessions[(n // 8) % len(sessions)]
            step = n % 8
            agent = "main" if step < 6 else f"agent-{n % 5}"
            surface = "task" if step in (3, 6) else "prompt"
            record = scan(rng, n, ts, session, agent, surface, start=step == 0)
            last_scan[(session, agent)] = record["scan_id"]
            out.write(rust_json.dumps(record) + "\n")
            lines += 1
            if rng.random() < 0.1:
                marker = last_scan.get((session, agent)) if rng.random() < 0.9 else None
                window = rng.choice(("first_fire", "suppressed"))
                pull = {
                    "ts": utc_iso(ts + 3),
                    "kind": "pull",
                    "session": session,
                    "agent": agent,
                    "epoch": n % 97,
                    "token_position": None,
                    "way": rng.choice(WAYS),
                    "window": window,
                    "out_of_band": window == "suppressed",
                    "stamped": True,
                    "scan_id": marker,
                }
                out.write(rust_json.dumps(pull) + "\n")
                lines += 1
            if n % 20_000 == 19_999:  # a torn line (orjson refuses it) and an unknown kind
                out.write('{"ts":"2026-09-21T00:00:00Z","kind":"scan","scan_id":\n{"kind":"verdict"}\n')
                lines += 2
    return lines, sessions[len(sessions) // 2]


def lines_of(path: Path):
    with path.open("rb") as file:
        yield from file


def peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def timed(label: str, lines: int, work) -> object:
    began = time.perf_counter()
    result = work()
    spent = time.perf_counter() - began
    print(
        f"{label:8} {lines:>9,} lines  {spent:7.2f} s  {lines / spent:>9,.0f} lines/s  peak RSS {peak_mib():6.1f} MiB"
    )
    return result


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--scans", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=27)
    parser.add_argument(
        "--keep", type=Path, help="write the log here and keep it (an existing one is read again)"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        path = args.keep or Path(scratch) / "decisions.jsonl"
        if args.keep and args.keep.exists():
            lines, session = (
                sum(1 for _ in lines_of(path)),
                f"{args.seed:04x}-{max(1, args.scans // 40) // 2:04x}-session",
            )
        else:
            lines, session = write_log(path, args.scans, args.seed)
        print(
            f"{path}: {lines:,} lines, {path.stat().st_size / 2**20:.1f} MiB, peak RSS {peak_mib():.1f} MiB"
        )

        def baseline() -> int:
            read = 0
            for line in lines_of(path):
                try:
                    orjson.loads(line)
                except orjson.JSONDecodeError:
                    continue
                read += 1
            return read

        def parse() -> int:
            return sum(isinstance(parse_line(line), Rejected) for line in lines_of(path))

        timed("orjson", lines, baseline)
        rejected = timed("parse", lines, parse)
        result = timed("stats", lines, lambda: report(lines_of(path)))
        document = timed("session", lines, lambda: session_document(lines_of(path), session))
        value = json_value(result)
        print(
            f"rejected {rejected}; records {value['records']}, turns {value['turns']}, scans {value['scans']}, "
            f"orphans {value['orphan_scans']}, pulls {value['pulls']['total']}; "
            f"session {session}: {len(document['turns'])} turns, {len(document['pulls'])} pulls"
        )


if __name__ == "__main__":
    main()
