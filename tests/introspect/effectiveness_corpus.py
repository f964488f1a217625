"""A small corpus for the effectiveness page: one session of 24 prompts, a minute apart, where way
`w/often` fires on turns 1–12 and is a near-miss on turns 13–24, and `w/rare` fires on three turns.
A turn fails a command (a tool error) on turns 1–6 and 13–14, and the prompt of turn 8 corrects
turn 7. So, by hand, for `w/often`: tool errors 6 of 12 shown against 2 of 12 matched-not-shown;
corrections 1 of 12 against 0 of 12."""

from __future__ import annotations

from io import StringIO

import orjson
from django.core.management import call_command

from tests.conftest import append, line

SID = "e1f7a2b3-0000-4c00-8000-00000000e77a"
PROJECT = "/src/effect"
TURNS = 24
SHOWN = range(1, 13)
NEAR_MISS = range(13, 25)
ERRORS = {1, 2, 3, 4, 5, 6, 13, 14}
CORRECTED = 7  # the next prompt says the reply was wrong
RARE = (1, 5, 20)
OFTEN_BODY = "Use the project's commit conventions. " * 10  # 380 characters


def stamp(turn: int, second: int) -> str:
    return f"2026-11-20T{10 + turn // 60:02d}:{turn % 60:02d}:{second:02d}.000Z"


def transcript_lines() -> list[dict]:
    lines, parent = [], None

    def add(kind: str, uuid: str, turn: int, second: int, message: dict) -> None:
        nonlocal parent
        lines.append(
            {
                "type": kind, "uuid": uuid, "parentUuid": parent, "sessionId": SID, "cwd": PROJECT,
                "timestamp": stamp(turn, second), "version": "2.1.140", "isSidechain": False,
                "message": message,
            }
        )  # fmt: skip
        parent = uuid

    for turn in range(1, TURNS + 1):
        prompt = "no, that is wrong, undo it" if turn == CORRECTED + 1 else f"please do task {turn}"
        add("user", f"p{turn}", turn, 0, {"role": "user", "content": prompt})
        use = {"input_tokens": 10, "output_tokens": 5 * turn, "cache_read_input_tokens": 0}
        call = {
            "type": "tool_use",
            "id": f"toolu_{turn}",
            "name": "Bash",
            "input": {"command": f"make t{turn}"},
        }
        add("assistant", f"c{turn}", turn, 5, {"id": f"m{turn}", "model": "claude-opus-4-6", "role": "assistant",
                                               "content": [call], "usage": use})  # fmt: skip
        failed = turn in ERRORS
        result = {"type": "tool_result", "tool_use_id": f"toolu_{turn}", "is_error": failed,
                  "content": "Exit code 2\nmake: *** failed" if failed else "ok"}  # fmt: skip
        add("user", f"r{turn}", turn, 6, {"role": "user", "content": [result]})
    return lines


def event_lines() -> list[bytes]:
    out = [line(ts="2026-11-20T10:00:30Z", event="session_start", project=PROJECT, session=SID)]
    for turn in range(1, TURNS + 1):
        ts = stamp(turn, 1).replace(".000Z", "Z")
        if turn in SHOWN:
            out.append(line(ts=ts, event="way_fired", way="w/often", trigger="keyword", matched_span="commit",
                            session=SID))  # fmt: skip
        if turn in NEAR_MISS:
            out.append(line(ts=ts, event="way_nearmiss", way="w/often", prob_en="0.4", tau_s="0.5",
                            margin="0.1", trigger="prompt", session=SID))  # fmt: skip
        if turn in RARE:
            out.append(line(ts=ts, event="way_fired", way="w/rare", trigger="keyword", matched_span="x",
                            session=SID))  # fmt: skip
    return out


def build(home) -> None:
    """Write the corpus into `home` (tests.conftest.Home) and ingest it."""
    home.transcript(PROJECT, SID, *transcript_lines())
    append(home.live, *event_lines())
    home.way(home.core_ways, "w/often", "description: commits\nrefire: 0.5", OFTEN_BODY)
    call_command("ingest", stdout=StringIO())


def decision_lines() -> list[bytes]:
    """The same session's decision log: a turn-start scan per prompt (logged a second after it) where
    `w/often` fires on turns 1–12 and is a near-miss on 13–24, and `w/judged` fires on turns 1–10
    and is blocked by the judge on 11–20. A session with a decision log is read from it alone."""
    out = []
    for turn in range(1, TURNS + 1):
        outcomes = [
            {"way": "w/often", "result": "fired", "rank": 1, "channel": "keyword"}
            if turn in SHOWN
            else {"way": "w/often", "result": "near_miss", "prob_en": 0.4, "tau_s": 0.5, "shortfall": 0.1}
        ]
        if turn <= 10:
            outcomes.append({"way": "w/judged", "result": "fired", "rank": 2, "channel": "keyword"})
        elif turn <= 20:
            outcomes.append(
                {"way": "w/judged", "result": "judge_block", "rank": 2, "channel": "keyword", "p_yes": 0.1,
                 "threshold": 0.3, "mode": "enforce"}
            )  # fmt: skip
        scan = {
            "ts": stamp(turn, 1).replace(".000Z", "Z"), "kind": "scan", "scan_id": f"scan-{turn}",
            "session": SID, "agent": "main", "epoch": turn, "turn_start": True, "token_position": 1000 * turn,
            "surface": "prompt", "hook_event": "UserPromptSubmit", "scope": "agent", "project": PROJECT,
            "candidates": [], "outcomes": outcomes,
        }  # fmt: skip
        out.append(orjson.dumps(scan) + b"\n")
    for turn, out_of_band in ((3, True), (4, False)):  # two pulls of w/often, one inside its refire window
        pull = {
            "ts": stamp(turn, 30).replace(".000Z", "Z"), "kind": "pull", "session": SID, "agent": "main",
            "way": "w/often", "scan_id": f"scan-{turn}", "window": "open", "out_of_band": out_of_band,
            "stamped": True, "epoch": turn,
        }  # fmt: skip
        out.append(orjson.dumps(pull) + b"\n")
    return out


def build_with_decisions(home) -> None:
    append(home.state / "decisions.jsonl", *decision_lines())
    build(home)
