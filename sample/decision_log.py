"""The sample's decision log (`decisions.jsonl`, ADR-701; decisions-and-effectiveness.md §1), told from the
events the sessions logged: a session whose agent-ways build writes decision records gets one `turn_start`
scan per prompt and one task scan per subagent dispatch, whose outcomes are what its prompt hook logged
(a fire is `fired`, a refire hold `held_refire`, a judge block `judge_block`…), and a few `ways_read`
pulls, one of each class the reader knows (delivered, recall miss, no scan id, unknown).

Derived from the built sessions without drawing from the random generator, so adding it changes no
other file. The oldest turns (S07's) sit in an archive, as a trim leaves them (§1.8).
"""

from __future__ import annotations

import hashlib
import math
from datetime import datetime, timedelta

from sample import formats
from sample.event_logs import gz_member
from sample.state import Home
from sample.timeline import STATE, floor_s, sec
from sample.ways import CRITERIA

# sessions whose agent-ways build writes decision records
DECIDED = ("S07", "S08", "S09", "S11", "S15", "S16", "S17", "S18")
ARCHIVE = "decisions-2026-11-07.jsonl.gz"  # the trim of 7 November moved S07's turns out of the live file
ARCHIVED = "S07"
PROMPT_LANE = ("keyword", "prompt")  # and every semantic:embedding / late-interaction channel
HELD = {"refire": "held_refire", "context_cap": "held_context_cap"}
SHARE_TAU = 0.08
SHARE_WINDOW = 8
FILLER = sorted(
    way for way in CRITERIA if "/" in way and not way.startswith("meta/")
)  # the rest of the candidate field
EXPIRED_SCAN = "187a0c41f2d35e00-4b1"  # a scan in an archive that has since expired: its pull is `unknown`


def unit(*parts: object) -> float:
    """A number in [0, 1) fixed by `parts`: the sample's scores, without the random stream."""
    digest = hashlib.sha256("|".join(map(str, parts)).encode()).digest()
    return int.from_bytes(digest[:6], "big") / 2**48


def scan_id(at: datetime, sid: str) -> str:
    """agent-ways `fn scan_id`: wall clock in nanoseconds (hex) - process id (hex)."""
    nanos = int(floor_s(at).timestamp()) * 10**9 + at.microsecond * 1000
    return f"{nanos:x}-{int(sid[:4], 16) % 40000 + 1000:x}"


def prompt_lane(d: dict) -> bool:
    trigger = d.get("trigger", "")
    return trigger in PROMPT_LANE or trigger.startswith(("semantic:embedding", "semantic:late-interaction"))


def hit(d: dict, result: str, rank: int, judged: dict) -> dict:
    """An outcome of `hit()`: rank, channel, `p` where the channel scores, then the judge's keys."""
    out = {"way": d["way"], "result": result, "rank": rank, "channel": d["trigger"]}
    if d.get("fire_score") is not None:
        out["p"] = round(float(d["fire_score"]), 4)
    verdict = judged.get(d["way"])
    if verdict is not None:
        out["p_yes"] = round(float(verdict["p_yes"]), 4)
        out["verdict"] = verdict["verdict"]
    return out


def outcomes_of(rows: list[dict]) -> list[dict]:
    """What the scan recorded for each way its prompt hook logged, in the order it logged them."""
    judged = {
        d["way"]: d
        for d in rows
        if d["event"] == "way_judged" and d.get("verdict") in ("pass", "would_block")
    }
    out: list[dict] = []
    rank = 0
    for d in rows:
        event = d["event"]
        if event in ("way_fired", "way_redisclosed", "way_suppressed") and prompt_lane(d):
            rank += 1
            result = {"way_fired": "fired", "way_redisclosed": "redisclosed"}.get(event) or HELD[d["reason"]]
            out.append(hit(d, result, rank, judged))
        elif event == "way_judged" and d.get("verdict") == "block":
            rank += 1
            block = {"way": d["way"], "rank": rank, "channel": "semantic:embedding:en"}
            if d.get("reason") == "ancestor":
                out.append(
                    {
                        **block,
                        "result": "ancestor_block",
                        "ancestor_p_yes": float(d["p_yes"]),
                        "ancestor_threshold": float(d["threshold"]),
                        "mode": "enforce",
                        "ancestor": d["ancestor"],
                    }
                )
            else:
                out.append(
                    {
                        **block,
                        "result": "judge_block",
                        "p_yes": float(d["p_yes"]),
                        "threshold": float(d["threshold"]),
                        "mode": d.get("mode", "enforce"),
                    }
                )
        elif event == "way_keyword_gated":
            out.append(
                {
                    "way": d["way"],
                    "result": "keyword_gated",
                    "matched_span": d["matched_span"],
                    "prob_en": float(d["prob_en"]),
                    "floor": float(d["floor"]),
                }
            )
        elif event == "way_nearmiss" and "prob_en" in d:
            miss = {"way": d["way"], "result": "near_miss", "prob_en": float(d["prob_en"])}
            if d.get("prob_multi"):
                miss["prob_multi"] = float(d["prob_multi"])
            out.append({**miss, "tau_s": float(d["tau_s"]), "shortfall": float(d["margin"])})
    # The key order of the writer: way, result, then the kind's own keys (a block's as it parses them).
    return [{"way": o["way"], "result": o["result"], **o} for o in out]


def judge_of(rows: list[dict]) -> dict:
    """The scan's `judge`: how the gate ran (§1.5.3), from its judge_call, gate_fallback and gate_capped rows."""
    calls = [d for d in rows if d["event"] == "judge_call"]
    verdicts = [d for d in rows if d["event"] == "way_judged" and d.get("judge_ms")]
    judge: dict = {"status": "idle"}
    if any(d["event"] == "gate_fallback" for d in rows):
        judge = {
            "status": "fallback",
            "reason": next(d["reason"] for d in rows if d["event"] == "gate_fallback"),
        }
    elif calls:
        ms = int(verdicts[0]["judge_ms"]) if verdicts else 398
        judge = {"status": "judged", "engine": calls[0]["engine"], "model": calls[0]["model"], "judge_ms": ms}
    capped = [d for d in rows if d["event"] == "gate_capped"]
    if capped:
        judge["capped"] = capped[0]["ways"].split(",")
    return judge


def candidates_of(outcomes: list[dict], key: str) -> list[dict]:
    """The top five of the lane (§1.4): the ways the scan scored first, then the field; shares are the
    softmax at τ 0.08 over the top eight, margins the gap to the next way of the whole ranking."""
    scored = [o["way"] for o in outcomes if o["result"] != "keyword_gated" or o.get("prob_en")]
    field = [w for w in FILLER if w not in scored]
    field.sort(key=lambda w: unit(key, w))
    ways = list(dict.fromkeys(scored + field))[:SHARE_WINDOW]
    top = 0.52 + 0.1 * unit(key, "top")
    cosines, value = [], top
    for n, way in enumerate(ways):
        cosines.append(round(value, 4))
        value -= 0.012 + 0.05 * unit(key, way, n)
    weights = [math.exp(c / SHARE_TAU) for c in cosines]
    total = sum(weights)
    return [
        {
            "way": way,
            "cosine": cosines[n],
            "share": round(weights[n] / total, 4),
            "margin": round(cosines[n] - cosines[n + 1], 4) if n + 1 < len(cosines) else None,
        }
        for n, way in enumerate(ways[:5])
    ]


def scan_line(s, at: datetime, rows: list[dict], *, epoch: int, task: bool) -> tuple[datetime, str, dict]:
    """One `kind: scan` record in the writer's key order (§1.3)."""
    outcomes = outcomes_of(rows)
    if task:
        outcomes = [
            {"way": d["way"], "result": "stashed", "rank": n + 1, "channel": "semantic:embedding:en"}
            for n, d in enumerate(d for d in rows if d["event"] == "way_fired")
        ]
    positions = [int(d["token_position"]) for d in rows if str(d.get("token_position", "")).isdigit()]
    record = {
        "ts": sec(floor_s(at)),
        "kind": "scan",
        "scan_id": scan_id(at, s.sid),
        "session": s.sid,
        "agent": "main",
        "epoch": epoch,
        "turn_start": not task,
        "token_position": positions[0] if positions else 0,
        "surface": "task" if task else "prompt",
        "hook_event": "PreToolUse" if task else "UserPromptSubmit",
        "scope": "subagent" if task else "agent",
        "project": s.project,
        "lane": "en",
        "basis": "single",
        "sidecar": False,
        "candidates": candidates_of(outcomes, scan_id(at, s.sid)),
        "outcomes": outcomes,
    }
    if not task:
        record["judge"] = judge_of(rows)
    return floor_s(at), record["scan_id"], record


def pull_line(s, at: datetime, way: str, scan: str | None, *, agent="main", epoch=0, **how) -> dict:
    """One `kind: pull` record (§1.6): a stamped read unless `reason` says why it was refused."""
    window = how.get("window", "first_fire")
    record = {
        "ts": sec(at),
        "kind": "pull",
        "session": s.sid,
        "agent": agent,
        "epoch": epoch,
        "token_position": how.get("token_position"),
        "way": way,
        "window": window,
        "out_of_band": window == "suppressed",
        "stamped": "reason" not in how,
        "scan_id": scan,
    }
    if "reason" in how:
        record["reason"] = how["reason"]
    return record


def session_records(s) -> list[tuple[datetime, int, dict]]:
    """Every record of one session: its scans, then the pulls its story calls for, by time."""
    rows = [(at, kind, [e["d"] for e in logged], agent) for kind, at, logged, agent in s.scan_points]
    records: list[tuple[datetime, int, dict]] = []
    ids: dict[int, str] = {}
    for n, (at, kind, logged, _agent) in enumerate(rows):
        when, sid_, record = scan_line(s, at, logged, epoch=n + 1, task=kind == "task")
        ids[n] = sid_
        records.append((when, len(records), record))
    for at, record in pulls_of(s, rows, ids):
        records.append((at, len(records), record))
    return records


def pulls_of(s, rows: list, ids: dict[int, str]) -> list[tuple[datetime, dict]]:
    """The pulls each session's story has: one of each class, and a refused read."""

    def first(pred) -> int:
        return next(n for n, (_, kind, logged, _a) in enumerate(rows) if pred(kind, logged))

    out = []
    if s.key == "S07":  # the subagent reads the way its dispatch stashed: delivered, through the stash
        n = first(lambda kind, logged: kind == "task")
        at = floor_s(rows[n][0]) + timedelta(seconds=9)
        out.append((at, pull_line(s, at, "softwaredev/code/navigation", ids[n], agent=rows[n][3], epoch=1)))
    elif s.key == "S08":
        n = first(lambda kind, logged: any(d["event"] == "way_keyword_gated" for d in logged))
        at = floor_s(rows[n][0]) + timedelta(seconds=20)
        # the keyword-gated way read anyway (the scan did not give it) and the unknown way refused
        out.append(
            (at, pull_line(s, at, "softwaredev/delivery/commits", ids[n], epoch=n + 2, token_position=41022))
        )
        at = at + timedelta(seconds=6)
        out.append(
            (
                at,
                pull_line(
                    s,
                    at,
                    "softwaredev/delivery/changelog",
                    ids[n],
                    epoch=n + 2,
                    window="none",
                    reason="not found",
                ),
            )
        )
        # a compaction wiped the last-scan marker: the read before the next prompt names no scan
        started = [
            e["dt"] for e in s.h.events if e["session"] == s.sid and e["d"]["event"] == "session_start"
        ]
        at = started[1] + timedelta(seconds=40)
        out.append(
            (
                at,
                pull_line(
                    s, at, "softwaredev/code/testing", None, epoch=0, window="refire", token_position=0
                ),
            )
        )
    elif s.key == "S11":  # a way the turn already gave, read again inside its refire window
        at = floor_s(rows[0][0]) + timedelta(seconds=35)
        out.append(
            (
                at,
                pull_line(
                    s,
                    at,
                    "softwaredev/architecture/design",
                    ids[0],
                    epoch=1,
                    window="suppressed",
                    token_position=15210,
                ),
            )
        )
    return out


def expired_pull(h: Home) -> tuple[datetime, dict]:
    """S13's out-of-band read (its way_pulled row) names a scan whose archive has expired: `unknown`."""
    s13 = next(s for s in h.sessions if s.key == "S13")
    row = next(e for e in h.events if e["session"] == s13.sid and e["d"]["event"] == "way_pulled")
    at = row["dt"]
    return at, pull_line(
        s13, at, row["d"]["way"], EXPIRED_SCAN, epoch=4, window="suppressed", token_position=20580
    )


def extra_outcomes(records: list[tuple[datetime, int, dict]], h: Home) -> None:
    """S11's first scan: the judge blocked softwaredev/delivery, so its child, matched only on the
    parent's boost, was withheld for its parent (no event row says so: §1.5.1)."""
    s11 = next(s for s in h.sessions if s.key == "S11")
    first = next(r for _, _, r in records if r["session"] == s11.sid and r["kind"] == "scan")
    rank = max(o.get("rank", 0) for o in first["outcomes"]) + 1
    first["outcomes"].append(
        {
            "way": "softwaredev/delivery/pull-requests",
            "result": "withheld_for_parent",
            "rank": rank,
            "channel": "semantic:embedding:en",
            "p": 0.5214,
        }
    )


def decision_log(h: Home) -> None:
    """Write the live decision log and its one archive where agent-ways keeps them (§1.8)."""
    records: list[tuple[datetime, int, dict]] = []
    archived: set[str] = set()
    for s in h.sessions:
        if s.key in DECIDED:
            mine = session_records(s)
            records += [(at, len(records) + n, r) for at, n, r in mine]
            if s.key == ARCHIVED:
                archived.add(s.sid)
    at, pull = expired_pull(h)
    records.append((at, len(records), pull))
    extra_outcomes(records, h)
    records.sort(key=lambda item: (item[0], item[1]))
    old = [formats.dumps(r) for _, _, r in records if r["session"] in archived]
    live = [formats.dumps(r) for _, _, r in records if r["session"] not in archived]
    h.files[f"{STATE}/{ARCHIVE}"] = gz_member(ARCHIVE, old)
    h.put_text(f"{STATE}/decisions.jsonl", formats.jsonl(live))
