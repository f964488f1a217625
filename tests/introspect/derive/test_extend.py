"""A session that grows at its end is extended, and ends exactly as a whole rebuild would leave it."""

from __future__ import annotations

import gzip
import random
import shutil
from decimal import Decimal
from pathlib import Path

import orjson
import pytest
from django.conf import settings
from django.db import connection
from django.test.utils import CaptureQueriesContext

from introspect.derive import extend, fields, rebuild
from introspect.importer.run import Options
from introspect.models import Session, Spill, Subagent, Turn, TurnOutcome, TurnWay, WaysEvent, Window
from tests.conftest import append, line
from waysweb import passes

pytestmark = pytest.mark.django_db

SAMPLE = Path(__file__).resolve().parents[3] / "sample" / "home"
PROJECTS = SAMPLE / ".claude" / "projects"


def sample_events() -> list[bytes]:
    """Every distinct event line of the sample's live log, archives and legacy copy, in time order."""
    state = SAMPLE / ".local" / "state" / "agent-ways"
    chunks = [gzip.decompress(path.read_bytes()) for path in sorted(state.glob("*.jsonl.gz"))]
    chunks += [
        (state / "events.jsonl").read_bytes(),
        (SAMPLE / ".claude" / "stats" / "events.jsonl").read_bytes(),
    ]
    lines = {raw for chunk in chunks for raw in chunk.splitlines() if raw.strip()}
    return sorted(lines, key=lambda raw: (ts_of(raw), raw))


def ts_of(raw: bytes) -> str:
    try:
        value = orjson.loads(raw).get("ts") or orjson.loads(raw).get("timestamp")
    except (orjson.JSONDecodeError, AttributeError):
        return ""
    return value if isinstance(value, str) else ""


def transcript_lines() -> dict[Path, list[bytes]]:
    return {
        path.relative_to(PROJECTS): path.read_bytes().splitlines(keepends=True)
        for path in sorted(PROJECTS.rglob("*.jsonl"))
    }


def snapshot() -> dict:
    """Every derived row, without the ids a rebuild hands out anew."""
    skip = {"id", "updated_at", "built_event_id", "built_entry_id"}
    sessions = {
        s.sid: {
            f.attname: getattr(s, f.attname) for f in Session._meta.concrete_fields if f.attname not in skip
        }
        for s in Session.objects.all()
    }
    return {
        "sessions": sessions,
        "windows": sorted(Window.objects.values_list("session__sid", "number", "start_ts")),
        "turns": sorted(
            Turn.objects.values_list(
                "session__sid",
                "epoch",
                "window",
                "ts_raw",
                "ts",
                "token_position",
                "join_confidence",
                "join_reason",
                "transcript_uuid",
                "prompt_entry_id",
                "context_entry_id",
                "nearest_prompt_id",
            )
        ),
        "turn_ways": sorted(
            TurnWay.objects.values_list(
                "turn__session__sid",
                "turn__epoch",
                "position",
                # By the line, not the id: a cold load that settles its repeats after it (importer/
                # event_repeats.py) keeps the same events under other ids.
                "event__sha256",
                "judge_event__sha256",
                "way_id",
                "trigger_channel",
                "gated",
                "suppressed",
                "redisclosed",
                "fire_score",
                "matched_span",
            ),
            key=repr,
        ),
        "subagents": sorted(
            Subagent.objects.values_list(
                "session__sid",
                "agent_id",
                "source_id",
                "tool_use_id",
                "spawn_entry_id",
                "agent_type",
                "description",
                "link",
            )
        ),
        "turn_outcomes": sorted(
            (row[0], *row[1:-1], repr(row[-1]))
            for row in TurnOutcome.objects.values_list(
                "session__sid",
                "number",
                "prompt_entry_id",
                "tool_errors",
                "interrupts",
                "retries",
                "churn",
                "compactions",
                "correction_cue",
                "tokens",
                "cost_usd",
                "unpriced_messages",
                "duration_secs",
                "causes",
            )
        ),
        "spills": sorted(
            Spill.objects.values_list("entry_id", "name", "found", "size", "sha256", "truncated")
        ),
    }


def rebuilt_whole() -> dict:
    for session in Session.objects.all():
        rebuild.rebuild_session(session)
    return snapshot()


def test_the_sample_fed_line_by_line_in_time_order_ends_as_a_whole_rebuild(home, extended):
    projects = home.root / ".claude" / "projects"
    for path in PROJECTS.rglob("*"):  # meta.json and spilled tool outputs are there from the start
        if path.is_file() and path.suffix != ".jsonl":
            (projects / path.relative_to(PROJECTS)).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(path, projects / path.relative_to(PROJECTS))
    events = sample_events()
    transcripts = transcript_lines()
    cuts = sorted({ts_of(raw) for raw in events if ts_of(raw)})
    fed_events = 0
    fed_lines = dict.fromkeys(transcripts, 0)
    for cut in [*cuts[:: max(1, len(cuts) // 40)], "9999"]:
        while fed_events < len(events) and ts_of(events[fed_events]) <= cut:
            append(home.live, events[fed_events] + b"\n")
            fed_events += 1
        for rel, lines in transcripts.items():
            done = fed_lines[rel]
            while done < len(lines) and (ts_of(lines[done]) or "") <= cut:
                done += 1
            append(projects / rel, *lines[fed_lines[rel] : done])
            fed_lines[rel] = done
        passes.sessions_pass(home_locations(), Options(ways=False))
    assert fed_events == len(events) and all(
        fed_lines[rel] == len(lines) for rel, lines in transcripts.items()
    )

    grown = snapshot()
    assert grown["turns"] and grown["turn_ways"] and grown["subagents"] and grown["turn_outcomes"]
    assert extended.count(True) > 20, extended  # the tail path really ran, not only whole rebuilds
    assert grown == rebuilt_whole()


def home_locations():

    return settings.WAYSWEB_LOCATIONS


SID = "long-session"


def fire(second: int, way: str, **extra) -> bytes:
    return line(
        ts=f"2026-11-29T10:{second // 60:02d}:{second % 60:02d}Z",
        event="way_fired",
        way=way,
        trigger="keyword",
        session=SID,
        **extra,
    )


def judged(second: int, way: str, verdict: str) -> bytes:
    return line(
        ts=f"2026-11-29T10:{second // 60:02d}:{second % 60:02d}Z",
        event="way_judged",
        way=way,
        verdict=verdict,
        p_yes=0.4,
        threshold=0.5,
        session=SID,
    )


def start(second: int) -> bytes:
    return line(
        ts=f"2026-11-29T10:{second // 60:02d}:{second % 60:02d}Z",
        event="session_start",
        project="/home/dev/app",
        session=SID,
    )


def grow(home, *chunks: bytes) -> None:
    append(home.live, *chunks)
    passes.sessions_pass(home_locations(), Options(ways=False, transcripts=False))


def test_fires_after_the_last_turn_extend_it_or_open_new_turns(home, extended):
    grow(home, start(0), fire(1, "a/one"), fire(20, "a/two"))
    grow(home, fire(22, "a/three"))  # within 3 s of the last turn: the same turn
    grow(
        home, fire(40, "a/one"), line(ts="2026-11-29T10:00:41Z", event="way_nearmiss", way="b/x", session=SID)
    )
    grow(home, start(50), fire(60, "a/two"))  # a compaction: a second window
    assert extended == [False, True, True, True]
    turns = list(Turn.objects.filter(session__sid=SID).order_by("epoch").values_list("epoch", "window"))
    assert turns == [(1, 1), (2, 1), (3, 1), (4, 2)]
    assert TurnWay.objects.filter(turn__session__sid=SID, turn__epoch=2).count() == 2
    grown = snapshot()
    assert grown == rebuilt_whole()


def test_a_verdict_that_could_reach_the_turn_before_makes_it_rebuild_whole(home, extended):
    grow(home, start(0), fire(10, "a/one"), judged(13, "a/one", "pass"), fire(18, "a/one"))
    grow(home, judged(19, "a/one", "block"))
    assert extended == [False, False]  # the last turn is 5 s after a judged event: too close to split
    grown = snapshot()
    assert grown == rebuilt_whole()


def test_a_verdict_after_the_last_turn_marks_its_row(home, extended):
    grow(home, start(0), fire(10, "a/one"), fire(30, "a/two"))
    grow(home, judged(31, "a/two", "pass"), judged(32, "a/one", "block"))
    assert extended == [False, True]
    rows = TurnWay.objects.filter(turn__session__sid=SID, turn__epoch=2).order_by("position")
    assert [(r.way_id, r.judge_event_id is not None, r.suppressed) for r in rows] == [
        ("a/two", True, ""),
        ("a/one", True, "judge"),
    ]
    grown = snapshot()
    assert grown == rebuilt_whole()


def test_an_event_that_lands_before_the_last_turn_rebuilds_the_session(home, extended):
    grow(home, start(0), fire(10, "a/one"), fire(30, "a/two"))
    grow(home, fire(12, "a/late"))  # an event written late, earlier than the last turn
    assert extended == [False, False]
    assert TurnWay.objects.filter(turn__session__sid=SID, turn__epoch=1).count() == 2
    assert snapshot() == rebuilt_whole()


def test_a_repeated_line_counts_again_through_a_whole_rebuild(home, extended):
    first = fire(10, "a/one")
    grow(home, start(0), first, fire(30, "a/two"))
    grow(home, first)  # the same bytes again in the same file: a genuine repeat, shown as ×2
    assert extended == [False, False]
    assert WaysEvent.objects.get(way="a/one").occurrences == 2
    assert Session.objects.get(sid=SID).event_count == 4
    assert snapshot() == rebuilt_whole()


def at(second: int) -> str:
    return f"2026-11-29T10:{second // 60:02d}:{second % 60:02d}.250Z"


def entry(kind: str, uuid: str, parent: str | None, second: int, **extra) -> dict:
    return {
        "type": kind,
        "uuid": uuid,
        "parentUuid": parent,
        "timestamp": at(second),
        "sessionId": SID,
        "version": "2.1.180",
        "cwd": "/home/dev/app",
        **extra,
    }


def user(uuid: str, parent: str | None, second: int, content) -> dict:
    return entry("user", uuid, parent, second, message={"role": "user", "content": content})


def injected(uuid: str, parent: str, second: int) -> dict:
    return entry(
        "attachment",
        uuid,
        parent,
        second,
        attachment={
            "type": "hook_additional_context",
            "hookEvent": "UserPromptSubmit",
            "content": ["[ways] guidance"],
        },
    )


def reply(uuid: str, parent: str, second: int, *blocks: dict, message_id: str = "") -> dict:
    return entry(
        "assistant",
        uuid,
        parent,
        second,
        requestId=f"req_{message_id or uuid}",
        message={
            "id": f"msg_{message_id or uuid}",
            "role": "assistant",
            "model": "claude-opus-4-6",
            "content": list(blocks),
            "usage": {
                "input_tokens": 10,
                "output_tokens": 5,
                "cache_read_input_tokens": 100,
                "cache_creation_input_tokens": 1,
            },
        },
    )


def test_transcript_lines_written_after_the_fires_join_them_on_the_tail_path(home, extended):
    trunk = home.transcript(
        "/home/dev/app", SID, user("u1", None, 9, "first prompt"), injected("i1", "u1", 9)
    )
    grow(home, start(0), fire(10, "a/one"))
    passes.sessions_pass(home_locations(), Options(ways=False))
    assert Turn.objects.get(session__sid=SID, epoch=1).join_confidence == "keyed"

    grow(home, fire(40, "a/two"))  # the fire is logged before Claude Code writes the prompt's lines
    assert Turn.objects.get(session__sid=SID, epoch=2).join_reason == "no prompt injection within 8 s"
    append(
        trunk,
        *(
            orjson.dumps(e) + b"\n"
            for e in [
                user("u2", "i1", 39, "second prompt"),
                injected("i2", "u2", 39),
                reply(
                    "a2",
                    "i2",
                    41,
                    {
                        "type": "tool_use",
                        "id": "toolu_9",
                        "name": "Agent",
                        "input": {"description": "find routes", "subagent_type": "Explore", "prompt": "go"},
                    },
                ),
                user(
                    "r2",
                    "a2",
                    45,
                    [
                        {
                            "type": "tool_result",
                            "tool_use_id": "toolu_9",
                            "content": "<persisted-output>\nOutput too large. Full output saved to: "
                            "/x/tool-results/big.txt\n</persisted-output>",
                        }
                    ],
                ),
                reply(
                    "a3", "r2", 46, {"type": "text", "text": "done"}, message_id="a2"
                ),  # a repeated usage key
                entry("ai-title", "t1", None, 47, aiTitle="Routes", title="Routes"),
            ]
        ),
    )
    folder = trunk.with_suffix("")
    append(
        folder / "subagents" / "agent-abc.jsonl",
        orjson.dumps(
            {
                "type": "user",
                "uuid": "s1",
                "isSidechain": True,
                "agentId": "abc",
                "sessionId": SID,
                "timestamp": at(42),
                "message": {"role": "user", "content": "go"},
            }
        )
        + b"\n",
    )
    (folder / "subagents" / "agent-abc.meta.json").write_text('{"agentType":"Explore","toolUseId":"toolu_9"}')
    append(folder / "tool-results" / "big.txt", b"x" * 5000)
    passes.sessions_pass(home_locations(), Options(ways=False))

    assert extended[-1] is True
    second = Turn.objects.get(session__sid=SID, epoch=2)
    assert (second.join_confidence, second.transcript_uuid) == ("keyed", "u2")
    assert Subagent.objects.get(session__sid=SID).link == "meta.json"
    assert Spill.objects.get().found
    grown = snapshot()
    assert grown["sessions"][SID]["title"] == "Routes"
    assert grown == rebuilt_whole()


def test_a_subagent_file_landing_after_the_trunk_linked_it_gets_its_row_and_meta_link(home, extended):
    """The trunk's tool result names the agent before its file is read (a cold import deriving a
    session between its files): the file's landing extends the row with the file and its meta.json."""
    spawn = {
        "type": "tool_use",
        "id": "toolu_7",
        "name": "Agent",
        "input": {"description": "find routes", "subagent_type": "Explore", "prompt": "go"},
    }
    result = user("r1", "a1", 3, [{"type": "tool_result", "tool_use_id": "toolu_7", "content": "done"}])
    trunk = home.transcript(
        "/home/dev/app",
        SID,
        user("u1", None, 1, "first prompt"),
        reply("a1", "u1", 2, spawn),
        result | {"toolUseResult": {"agentId": "abc", "status": "completed"}},
    )
    passes.sessions_pass(home_locations(), Options(ways=False))
    assert Subagent.objects.get(session__sid=SID).source is None  # linked by the trunk alone
    folder = trunk.with_suffix("")
    agent = {"type": "user", "uuid": "s1", "isSidechain": True, "agentId": "abc", "sessionId": SID}
    append(
        folder / "subagents" / "agent-abc.jsonl",
        orjson.dumps(agent | {"timestamp": at(2), "message": {"role": "user", "content": "go"}}) + b"\n",
    )
    (folder / "subagents" / "agent-abc.meta.json").write_text('{"agentType":"Explore","toolUseId":"toolu_7"}')
    passes.sessions_pass(home_locations(), Options(ways=False))

    assert extended[-1] is True
    row = Subagent.objects.get(session__sid=SID)
    assert (row.link, row.source.rel_path.endswith("agent-abc.jsonl")) == ("meta.json", True)
    assert snapshot() == rebuilt_whole()


def test_a_verdict_just_before_the_last_turn_is_rebuilt_with_it(home, extended):
    grow(home, start(0), fire(10, "a/one"), judged(29, "a/two", "pass"), fire(30, "a/two"))
    grow(home, fire(60, "a/three"), judged(61, "a/two", "pass"))
    assert extended == [False, True]
    row = TurnWay.objects.get(turn__session__sid=SID, turn__epoch=2)
    assert row.judge_event.ts_raw == "2026-11-29T10:00:29Z"  # the nearest verdict, 1 s before its fire
    assert snapshot() == rebuilt_whole()


def test_a_claude_code_only_session_growing_ends_as_a_whole_rebuild(home, extended):
    """New prompts, a compaction, titles, a larger context and a new model arrive on the tail path."""

    def sized(uuid: str, parent: str, second: int, model: str, context: int) -> dict:
        line_ = reply(uuid, parent, second, {"type": "text", "text": "ok"})
        line_["message"]["model"] = model
        line_["message"]["usage"]["cache_read_input_tokens"] = context
        return line_

    trunk = home.transcript("/home/dev/app", SID, user("u1", None, 1, "  first   prompt of the session  "))
    passes.sessions_pass(home_locations(), Options(ways=False))
    later = [
        sized("a1", "u1", 2, "claude-sonnet-4-20250514", 150_000),
        entry(
            "system",
            "c1",
            None,
            30,
            subtype="compact_boundary",
            logicalParentUuid="a1",
            compactMetadata={"trigger": "auto", "preTokens": 150_011},
        ),
        user("u2", "c1", 31, "second prompt"),
        sized("a2", "u2", 32, "claude-haiku-4-5-20251001", 10),
        {"type": "ai-title", "aiTitle": "A session", "sessionId": SID},
        sized("a3", "a2", 33, "claude-sonnet-4-20250514", 300_000),
    ]
    for added in later:
        append(trunk, orjson.dumps(added) + b"\n")
        passes.sessions_pass(home_locations(), Options(ways=False))
    session = Session.objects.get(sid=SID)
    assert extended.count(True) == len(later), extended
    assert (session.first_prompt, session.title) == ("  first   prompt of the session  ", "A session")
    assert (session.transcript_compactions, session.peak_context_tokens, session.window_k) == (
        1,
        300_011,
        1000,
    )
    assert session.models_seen == "claude-haiku-4-5-20251001, claude-sonnet-4-20250514"


def test_a_tail_longer_than_an_extension_reads_at_once_rebuilds_the_session_whole(
    home, extended, monkeypatch
):
    monkeypatch.setattr(extend, "LONGEST_TAIL", 3)
    trunk = home.transcript(
        "/home/dev/app", SID, user("u1", None, 1, "first prompt"), injected("i1", "u1", 1)
    )
    grow(home, start(0), fire(2, "a/one"))
    passes.sessions_pass(home_locations(), Options(ways=False))
    short = [reply("a1", "i1", 3, {"type": "text", "text": "ok"}), user("u2", "a1", 20, "second prompt")]
    append(trunk, *(orjson.dumps(added) + b"\n" for added in short))
    passes.sessions_pass(home_locations(), Options(ways=False))
    assert extended[-1] is True
    long = [
        injected("i2", "u2", 20),
        reply("a2", "i2", 21, {"type": "text", "text": "ok"}),
        user("u3", "a2", 40, "third prompt"),
        injected("i3", "u3", 40),
    ]
    append(trunk, *(orjson.dumps(added) + b"\n" for added in long))
    append(home.live, fire(41, "a/two"))
    passes.sessions_pass(home_locations(), Options(ways=False))

    assert extended[-1] is False
    grown = snapshot()
    assert grown["turns"][-1][6] == "keyed"
    assert grown == rebuilt_whole()


def streamed(uuid: str, parent: str, second: int, output: int, model: str = "claude-opus-4-6") -> bytes:
    """A line of the response msg_s1 as it streams: the same ids, output grown to `output`."""
    line = reply(uuid, parent, second, {"type": "text", "text": uuid}, message_id="s1")
    line["message"]["model"] = model
    line["message"]["usage"] = {**line["message"]["usage"], "output_tokens": output}
    return orjson.dumps(line) + b"\n"


def test_a_response_streamed_over_passes_ends_with_its_final_count_as_a_rebuild_does(home, extended):
    trunk = home.transcript(
        "/home/dev/app", SID, user("u1", None, 9, "first prompt"), injected("i1", "u1", 9)
    )
    grow(home, start(0), fire(10, "a/one"))
    append(trunk, streamed("a1", "i1", 11, 12))
    passes.sessions_pass(home_locations(), Options(ways=False))
    append(trunk, streamed("a2", "a1", 12, 12), streamed("a3", "a2", 13, 640))
    passes.sessions_pass(home_locations(), Options(ways=False))
    append(trunk, streamed("a4", "a3", 14, 9, model="mystery-model"))  # a late row of a lower count
    passes.sessions_pass(home_locations(), Options(ways=False))
    assert extended[-2:] == [True, True]  # the new trunk file was built whole, its growth extended
    session = Session.objects.get(sid=SID)
    assert (session.input_tokens, session.output_tokens, session.unpriced_messages) == (10, 640, 0)
    assert session.cost_usd == (10 * 5 + 640 * 25 + 1 * Decimal("6.25") + 100 * Decimal("0.5")) / 1_000_000
    assert snapshot() == rebuilt_whole()


def test_a_session_growing_into_the_calendars_last_second_ends_as_a_whole_rebuild(home, extended):
    def stamped(ts: str, way: str, event: str = "way_fired", **extra) -> bytes:
        return line(ts=ts, event=event, way=way, session=SID, **({"trigger": "keyword"} | extra))

    trunk = home.transcript(
        "/home/dev/app", SID, user("u1", None, 9, "first prompt"), injected("i1", "u1", 9)
    )
    grow(home, start(0), fire(10, "a/one"))
    passes.sessions_pass(home_locations(), Options(ways=False))
    grow(home, stamped("9999-12-31T23:59:50Z", "a/two"))
    grow(home, stamped("9999-12-31T23:59:59Z", "a/three"))
    late = {**user("u2", "i1", 0, "late prompt"), "timestamp": "9999-12-31T23:59:59.999999Z"}
    append(
        trunk,
        orjson.dumps(late) + b"\n",
        orjson.dumps({**injected("i2", "u2", 0), "timestamp": "9999-12-31T23:59:59.999Z"}) + b"\n",
    )
    passes.sessions_pass(home_locations(), Options(ways=False))
    grow(home, stamped("9999-12-31T23:59:59Z", "a/three", event="way_judged", verdict="block", p_yes=0.4))

    assert True in extended  # the tail path ran at the calendar's end
    turns = Turn.objects.filter(session__sid=SID).order_by("epoch")
    assert [(t.join_confidence, t.join_reason) for t in turns] == [
        ("keyed", "UserPromptSubmit injection within 8 s"),
        ("heuristic", "timestamp out of range (year 1 or 9999)"),
        ("heuristic", "timestamp out of range (year 1 or 9999)"),
    ]
    assert "ts_out_of_range" in WaysEvent.objects.filter(way="a/three").first().flags
    grown = snapshot()
    assert grown == rebuilt_whole()


def test_a_session_stamped_in_the_calendars_first_second_grows_as_a_whole_rebuild(home, extended):
    def first_year(second: int, way: str) -> bytes:
        return line(
            ts=f"0001-01-01T00:00:{second:02d}Z", event="way_fired", way=way, trigger="keyword", session=SID
        )

    grow(home, line(ts="0001-01-01T00:00:00Z", event="session_start", project="/home/dev/app", session=SID))
    grow(home, first_year(1, "a/one"))
    grow(home, first_year(3, "a/two"))  # within 3 s: the same turn, rebuilt from the start of the calendar
    grow(home, first_year(30, "a/three"))
    assert extended[-2:] == [True, True]
    assert list(Turn.objects.filter(session__sid=SID).values_list("epoch", "join_reason")) == [
        (1, "timestamp out of range (year 1 or 9999)"),
        (2, "timestamp out of range (year 1 or 9999)"),
    ]
    assert TurnWay.objects.filter(turn__session__sid=SID, turn__epoch=1).count() == 2
    assert snapshot() == rebuilt_whole()


@pytest.fixture
def extension_queries(monkeypatch) -> list[int]:
    """How many queries each extend_session call that extended its session ran."""
    counts: list[int] = []
    real = extend.extend_session

    def counted(session):
        with CaptureQueriesContext(connection) as queries:
            done = real(session)
        if done:
            counts.append(len(queries))
        return done

    monkeypatch.setattr(extend, "extend_session", counted)
    return counts


def conversation(home, sid: str, prompts: int) -> None:
    """A session of `prompts` prompts whose fires are logged after their lines are imported, then
    as many prompts more whose lines are written after their fires: three extensions, each joining
    every prompt of its tail (a keyed fire a second after each injection, and a heuristic one ten
    seconds after it, too far from any)."""

    def at_(second: int) -> str:
        return f"2026-11-29T{10 + second // 3600:02d}:{second // 60 % 60:02d}:{second % 60:02d}.250Z"

    def fired(second: int, way: str) -> bytes:
        return line(ts=at_(second)[:19] + "Z", event="way_fired", way=way, trigger="keyword", session=sid)

    def prompt_lines(first: int, count: int, parent: str | None) -> list[bytes]:
        lines = []
        for n in range(first, first + count):
            second = 20 * n + 9
            own = {"sessionId": sid, "timestamp": at_(second)}
            lines += [
                {**user(f"{sid}-u{n}", parent, 0, f"prompt {n}"), **own},
                {**injected(f"{sid}-i{n}", f"{sid}-u{n}", 0), **own},
                {**reply(f"{sid}-a{n}", f"{sid}-i{n}", 0, {"type": "text", "text": "ok"}), **own},
            ]
            parent = f"{sid}-a{n}"
        return [orjson.dumps(entry) + b"\n" for entry in lines]

    trunk = home.transcript("/home/dev/app", sid)
    append(trunk, *prompt_lines(0, prompts, None))
    append(home.live, line(ts=at_(0)[:19] + "Z", event="session_start", project="/home/dev/app", session=sid))
    passes.sessions_pass(home_locations(), Options(ways=False))  # built whole: no turns yet
    fires = [fired(20 * n + delay, f"a/{delay}") for n in range(prompts) for delay in (10, 19)]
    grow(home, *fires)  # every turn of the tail joined to a prompt already read, or to none
    later = [fired(20 * n + delay, f"b/{delay}") for n in range(prompts, 2 * prompts) for delay in (10, 19)]
    grow(home, *later)  # the fires first: no injection is near them yet
    append(trunk, *prompt_lines(prompts, prompts, f"{sid}-a{prompts - 1}"))
    passes.sessions_pass(home_locations(), Options(ways=False))  # their prompts: joined again


def test_an_extension_joins_its_turns_in_as_many_queries_however_many_lines_it_walks(home, extension_queries):
    """The walks up parentUuid, the keyed turns' prompt lines and the heuristic turns' nearest
    prompts are read for the whole tail at once: an extension never costs a query per line."""
    conversation(home, "few-prompts", 5)
    few = list(extension_queries)
    conversation(home, "many-prompts", 40)
    many = extension_queries[len(few) :]

    assert len(few) == len(many) == 3  # the fires, the later fires, the later prompts' lines
    assert many == few
    turns = Turn.objects.filter(session__sid="many-prompts")
    assert turns.filter(join_confidence="keyed").count() == 80
    assert turns.exclude(nearest_prompt=None).count() == 80  # each heuristic turn: the prompt before it
    assert snapshot() == rebuilt_whole()


def test_usage_moved_by_each_tail_equals_a_count_of_every_line(home, extended):
    """An extension counts again only the messages its new lines continue (fields.grown_usage):
    after every pass of random growth — a response streamed over passes, its rows in the trunk and
    a subagent file, new models, unpriced and synthetic ones, lines without ids — the session's
    usage is what counting every line gives."""
    rng = random.Random(29)
    trunk = home.transcript("/home/dev/app", SID, user("u1", None, 1, "first prompt"))
    agent = trunk.with_suffix("") / "subagents" / "agent-x.jsonl"
    grow(home, start(0), fire(2, "a/one"))
    passes.sessions_pass(home_locations(), Options(ways=False))
    models = ["claude-opus-4-6", "claude-sonnet-4-6", "mystery-model", "<synthetic>"]
    for step in range(40):
        lines = []
        for n in range(rng.choice([1, 1, 2, 3])):
            line_ = reply(f"a{step}-{n}", "u1", 3 + step, {"type": "text", "text": "ok"})
            line_["message"]["id"] = f"msg_{rng.randrange(8)}"
            line_["requestId"] = rng.choice(["req_1", "req_1", "req_2"])
            if rng.random() < 0.15:
                del line_["requestId"]  # a message of its own
            line_["message"]["model"] = rng.choice(models)
            line_["message"]["usage"] = {
                "input_tokens": rng.randrange(100),
                "output_tokens": rng.randrange(1000),
                "cache_read_input_tokens": rng.choice([0, rng.randrange(300_000)]),
                "cache_creation_input_tokens": rng.randrange(50),
            }
            lines.append(orjson.dumps(line_) + b"\n")
        append(agent if rng.random() < 0.25 else trunk, *lines)
        passes.sessions_pass(home_locations(), Options(ways=False))
        session = Session.objects.get(sid=SID)
        found = fields.session_usage(session)
        assert [getattr(session, name) for name in fields.USAGE_FIELDS] == [
            getattr(found, name) for name in fields.USAGE_FIELDS
        ]
        assert (session.cost_usd, session.unpriced_messages) == (found.cost_usd, found.unpriced_messages)
    assert extended.count(True) > 30, extended
    assert snapshot() == rebuilt_whole()
