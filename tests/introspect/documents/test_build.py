"""dump, list and fires as agent-ways prints them, from what the importer stored."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command

from introspect.documents import build as documents
from introspect.documents import schema as api_models
from introspect.models import Session
from lib import locations
from tests.conftest import append, line

pytestmark = pytest.mark.django_db

S = "8f3a2c1d-5e6f-4a7b-9c8d-0e1f2a3b4c5d"
P = "/home/dev/proj"


def ts(second: int, ms: int = 0) -> str:
    return f"2026-07-03T16:40:{second:02d}.{ms:03d}Z"


def prompt(uuid: str, parent: str | None, second: int, text: str) -> dict:
    return {
        "type": "user",
        "uuid": uuid,
        "parentUuid": parent,
        "timestamp": ts(second),
        "sessionId": S,
        "version": "2.1.180",
        "message": {"role": "user", "content": text},
    }


def injection(uuid: str, parent: str, second: int, ms: int = 200) -> dict:
    return {
        "type": "attachment",
        "uuid": uuid,
        "parentUuid": parent,
        "timestamp": ts(second, ms),
        "sessionId": S,
        "attachment": {
            "type": "hook_additional_context",
            "hookEvent": "UserPromptSubmit",
            "content": ["[ways]"],
        },
    }


def reply(uuid: str, parent: str, second: int, model: str = "claude-opus-4-6") -> dict:
    return {
        "type": "assistant",
        "uuid": uuid,
        "parentUuid": parent,
        "timestamp": ts(second),
        "sessionId": S,
        "requestId": f"req_{uuid}",
        "message": {
            "id": f"msg_{uuid}",
            "role": "assistant",
            "model": model,
            "content": [{"type": "text", "text": "ok"}],
            "usage": {
                "input_tokens": 3,
                "output_tokens": 5,
                "cache_creation_input_tokens": 100,
                "cache_read_input_tokens": 1000,
            },
        },
    }


def ev(second: int, event: str, **fields) -> bytes:
    return line(ts=f"2026-07-03T16:40:{second:02d}Z", event=event, session=S, project=P, **fields)


def build(home, *, transcript: bool = True) -> None:
    append(
        home.live,
        ev(0, "session_start"),
        ev(
            2,
            "way_judged",
            way="softwaredev/delivery/commits",
            p_yes="0.812",
            threshold="0.30",
            verdict="pass",
            mode="enforce",
            engine="anthropic",
            model="claude-haiku-4-5",
            judge_ms="412",
        ),
        ev(
            2,
            "way_fired",
            way="softwaredev/delivery/commits",
            trigger="keyword",
            token_position="1204",
            matched_span="commit",
        ),
        ev(
            3,
            "way_keyword_gated",
            way="d/g",
            trigger="prompt",
            matched_span="remember",
            prob_en="0.0759",
            prob_multi="",
            floor="0.1500",
        ),
        ev(
            20,
            "way_fired",
            way="softwaredev/code/testing",
            trigger="semantic:embedding:en",
            fire_score="0.7100",
            surface="write the tests",
            token_position="48211",
        ),
        ev(21, "way_fired", way="softwaredev/docs/adr", trigger="file", matched_span="docs/adr/ADR-1.md"),
        ev(21, "way_suppressed", way="d/b", trigger="bash", reason="refire"),
        ev(
            40,
            "way_redisclosed",
            way="softwaredev/delivery/commits",
            trigger="semantic:embedding:en",
            fire_score="0.52",
            surface="again",
        ),
        ev(
            40,
            "way_judged",
            way="d/b/c",
            p_yes="0.050",
            threshold="0.30",
            verdict="block",
            reason="ancestor",
            ancestor="d/b",
        ),
        ev(50, "way_fired", way="unknown/way", trigger="bash", matched_span="make"),
    )
    home.way(
        home.core_ways,
        "softwaredev/delivery/commits",
        "description: commits\nvocabulary: commit message branch\npattern: commit\nscope: [agent, subagent]\n"
        "refire: 0.2",
    )
    home.way(home.core_ways, "softwaredev/code/testing", "vocabulary: test tdd unit\nthreshold: 2.0")
    home.way(home.user_ways, "softwaredev/docs/adr", "files: docs/adr/.*\\.md$")
    if transcript:
        home.transcript(
            P,
            S,
            prompt("u1", None, 1, "please commit this"),
            injection("i1", "u1", 1),
            reply("a1", "i1", 3),
            prompt("u2", "a1", 19, "write the tests"),
            injection("i2", "u2", 19),
            reply("a2", "i2", 22),
            prompt("u3", "a2", 45, "and again"),
            injection("i3", "u3", 46),
            prompt("u4", "i3", 47, "sorry, one more"),
            injection("i4", "u4", 47, 900),
            reply("a4", "i4", 55, model="claude-sonnet-4-6"),
        )
    call_command("ingest", stdout=StringIO())


def test_it_dumps_the_session_introspection_model(home):
    build(home)
    doc = documents.dump_document(S, matched=True)
    api_models.SessionIntrospection.model_validate(doc)
    assert (doc["id"], doc["project"], doc["window_k"]) == (S, P, 1000)
    assert doc["summary"] == {
        "turns": 4,
        "distinct_ways": 4,
        "total_fires": 4,
        "redisclosures": 1,
        "gated_candidates": 1,
        "suppressed_candidates": 2,
        "judge_blocked": 1,
        "keyed_turns": 2,
    }
    first, second, third, fourth = doc["turns"]
    assert first == {
        "epoch": 1,
        "token_position": 1204,
        "ts": "2026-07-03T16:40:02Z",
        "transcript_uuid": "u1",
        "join_confidence": "keyed",
        "fired_ways": [
            {
                "way_id": "softwaredev/delivery/commits",
                "trigger_channel": "keyword",
                "way_path": str(home.core_ways / "softwaredev/delivery/commits/commits.md"),
                "criteria": {
                    "pattern": "commit",
                    "vocabulary": "commit message branch",
                    "scope": "agent, subagent",
                },
                "match_detail": {"matched_span": "commit", "confidence": "keyed"},
                "judge": {
                    "verdict": "pass",
                    "p_yes": 0.812,
                    "threshold": 0.3,
                    "mode": "enforce",
                    "engine": "anthropic",
                    "model": "claude-haiku-4-5",
                    "judge_ms": 412,
                },
            },
            {
                "way_id": "d/g",
                "trigger_channel": "keyword:gated",
                "gated": True,
                "criteria": {},
                "match_detail": {"matched_span": "remember", "confidence": "keyed"},
            },
        ],
    }
    assert second["transcript_uuid"] == "u2" and second["token_position"] == 48211
    assert [w["way_id"] for w in second["fired_ways"]] == [
        "softwaredev/code/testing",
        "softwaredev/docs/adr",
        "d/b",
    ]
    semantic, file_fire, held = second["fired_ways"]
    assert semantic["fire_score"] == 0.71 and "match_detail" not in semantic
    assert semantic["criteria"] == {"vocabulary": "test tdd unit"}  # threshold is never a criterion
    assert file_fire["way_path"] == str(home.user_ways / "softwaredev/docs/adr/adr.md")
    assert file_fire["match_detail"]["matched_span"] == "docs/adr/ADR-1.md"
    assert held == {"way_id": "d/b", "trigger_channel": "bash", "suppressed": "refire", "criteria": {}}
    # Two prompts (u3, u4) within 8 s of turn 3: it stays heuristic, whatever is nearest.
    assert third["join_confidence"] == "heuristic" and "transcript_uuid" not in third
    assert third["fired_ways"][0]["redisclosed"] is True
    assert third["fired_ways"][1] == {
        "way_id": "d/b/c",
        "trigger_channel": "judge",
        "suppressed": "judge",
        "criteria": {},
        "judge": {
            "verdict": "block",
            "p_yes": 0.05,
            "threshold": 0.3,
            "mode": "",
            "engine": "",
            "model": "",
            "judge_ms": 0,
            "reason": "ancestor",
            "ancestor": "d/b",
        },
    }
    # Fired from a way with no file today: empty criteria and no path, never invented.
    assert fourth["fired_ways"][0] == {
        "way_id": "unknown/way",
        "trigger_channel": "bash",
        "criteria": {},
        "match_detail": {"matched_span": "make", "confidence": "keyed"},
    }
    assert fourth["join_confidence"] == "heuristic"


def test_it_hides_judged_out_rows_by_default_and_keeps_the_counts(home):
    build(home)
    doc = documents.dump_document(S, matched=False)
    third = doc["turns"][2]
    assert [w["way_id"] for w in third["fired_ways"]] == ["softwaredev/delivery/commits"]
    assert doc["summary"]["judge_blocked"] == 1 and doc["summary"]["turns"] == 4


def test_it_leaves_every_turn_heuristic_without_a_transcript(home):
    build(home, transcript=False)
    doc = documents.dump_document(S, matched=True)
    assert {turn["join_confidence"] for turn in doc["turns"]} == {"heuristic"}
    assert doc["summary"]["keyed_turns"] == 0 and doc["window_k"] == 200


def test_it_answers_with_upstreams_error_objects(home):
    assert documents.dump_document(None, matched=False) == {"error": "no events recorded yet"}
    build(home)
    empty = documents.dump_document("no-such-session", matched=False)
    assert empty == {
        "id": "no-such-session",
        "project": "",
        "window_k": 200,
        "summary": {"turns": 0, "distinct_ways": 0, "total_fires": 0, "keyed_turns": 0},
        "turns": [],
    }
    assert documents.dump_document(None, matched=False)["id"] == S  # the newest session by default


def test_it_lists_sessions_with_a_session_start_newest_first(home):
    build(home)
    append(
        home.live,
        line(ts="2026-07-04T09:00:00Z", event="session_start", session="s2", project=P + "/"),
        line(ts="2026-07-04T09:00:30Z", event="judge_call", session="s2"),
        line(ts="2026-07-05T09:00:00Z", event="way_fired", way="x", session="no-start"),
    )
    call_command("ingest", stdout=StringIO())
    doc = documents.list_document()
    api_models.SessionList.model_validate(doc)
    assert doc["scope"] is None and doc["count"] == 2
    newest, older = doc["sessions"]
    assert newest == {
        "id": "s2",
        "ts": "2026-07-04T09:00:00Z",
        "project": P + "/",
        "event_count": 2,
        "way_fires": 0,
        "duration_secs": 30,
        "transcript": "none",
        "usage": {
            "input_tokens": 0,
            "output_tokens": 0,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
        },
    }
    assert (older["id"], older["event_count"], older["way_fires"], older["duration_secs"]) == (S, 10, 4, 50)
    assert older["usage"] == {
        "input_tokens": 9,
        "output_tokens": 15,
        "cache_creation_input_tokens": 300,
        "cache_read_input_tokens": 3000,
    }
    assert older["transcript"] == "present"
    scoped = documents.list_document(project=P)
    assert scoped["scope"] == P and scoped["count"] == 2  # a trailing / is ignored on either side


def test_it_adds_transcript_only_sessions_on_request(home):
    build(home)
    home.transcript(
        "/elsewhere",
        "plain-claude",
        {**prompt("p1", None, 1, "hi"), "sessionId": "plain-claude", "cwd": "/elsewhere"},
    )
    call_command("ingest", stdout=StringIO())
    assert "plain-claude" not in [s["id"] for s in documents.list_document()["sessions"]]
    listed = {s["id"]: s for s in documents.list_document(with_transcripts=True)["sessions"]}
    assert listed["plain-claude"]["event_count"] == 0 and listed["plain-claude"]["project"] == "/elsewhere"


def test_it_lists_a_sessions_usage_by_each_messages_final_line(home):
    # One response streamed as three lines (thinking, text, tool call): output grows to 412.
    lines = [
        {**prompt("p1", None, 1, "hi"), "sessionId": "streamed"},
        *(
            {
                **reply(f"a{n}", "p1", 2),
                "sessionId": "streamed",
                "requestId": "req_1",
                "message": {
                    **reply(f"a{n}", "p1", 2)["message"],
                    "id": "msg_1",
                    "usage": {"input_tokens": 3, "output_tokens": out, "cache_read_input_tokens": 1000},
                },
            }
            for n, out in enumerate((8, 8, 412))
        ),
    ]
    home.transcript(P, "streamed", *lines)
    call_command("ingest", stdout=StringIO())
    [listed] = [
        s for s in documents.list_document(with_transcripts=True)["sessions"] if s["id"] == "streamed"
    ]
    assert listed["usage"] == {
        "input_tokens": 3,
        "output_tokens": 412,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 1000,
    }
    assert set(listed) == {
        "id",
        "ts",
        "project",
        "event_count",
        "way_fires",
        "duration_secs",
        "usage",
        "transcript",
    }


def test_it_lists_semantic_fires_lowest_score_first(home):
    build(home)
    doc = documents.fires_document(S, matched=False)
    api_models.Fires.model_validate(doc)
    assert doc == {
        "session": S,
        "total": 2,
        "fires": [
            {"score": 0.52, "way": "softwaredev/delivery/commits", "surface": "again", "redisclosed": True},
            {
                "score": 0.71,
                "way": "softwaredev/code/testing",
                "surface": "write the tests",
                "redisclosed": False,
            },
        ],
    }
    matched = documents.fires_document(S, matched=True, max_score=0.6, limit=0)
    assert (matched["total"], matched["fires"]) == (1, [])
    assert matched["judge_blocks"] == [
        {
            "way": "d/b/c",
            "ts": "2026-07-03T16:40:40Z",
            "verdict": "block",
            "p_yes": 0.05,
            "threshold": 0.3,
            "mode": "",
            "engine": "",
            "model": "",
            "judge_ms": 0,
            "reason": "ancestor",
            "ancestor": "d/b",
        }
    ]


def test_it_prints_one_json_document_per_command(home):
    build(home)
    for args in (
        ["dump", S, "--matched"],
        ["list", "--json"],
        ["fires", "--json", S],
        ["fires", "--session", S],
        ["replay", S, "--json"],
    ):
        out = StringIO()
        call_command("introspect", *args, stdout=out)
        assert isinstance(json.loads(out.getvalue()), dict)


def test_it_serves_the_documents_under_api(client, home):
    build(home)
    assert client.get(f"/api/sessions/{S}/dump.json").json() == documents.dump_document(S, matched=False)
    assert client.get(f"/api/sessions/{S}/dump.json?matched=1").json() == documents.dump_document(
        S, matched=True
    )
    assert client.get("/api/sessions/").json()["count"] == 1
    assert client.get(f"/api/sessions/{S}/fires.json?max_score=0.6").json()["total"] == 1
    assert client.get(f"/api/sessions/{S}/replay.json").json()["session"] == S
    assert client.get("/api/sessions/nope/replay.json").status_code == 404


def test_it_builds_the_replay_document_to_its_schema(home, settings):

    settings.WAYSWEB_LOCATIONS = locations.resolve({"WAYSWEB_DATA_DIR": str(settings.DATA_DIR)}, demo=True)
    call_command("ingest", stdout=StringIO())
    for sid in ("d9253f7d-53c6-40ee-932c-a3cba232d3a0", "624f720e-9e95-4496-9c1a-bbb81681fbd4"):
        for matched in (False, True):
            doc = documents.replay_document(sid, matched=matched)
            assert api_models.dump(api_models.SessionDump.model_validate(doc)) == doc
    assert documents.replay_document("nope", matched=False) == {
        "error": "no events for session",
        "session": "nope",
    }


def test_it_serves_one_replay_window_as_a_slice_of_the_whole_document(client, settings):
    settings.WAYSWEB_LOCATIONS = locations.resolve({"WAYSWEB_DATA_DIR": str(settings.DATA_DIR)}, demo=True)
    call_command("ingest", stdout=StringIO())
    many = 0
    for session in Session.objects.filter(event_count__gt=0):
        for matched in ("", "1"):
            url = f"/api/sessions/{session.sid}/replay.json?matched={matched}"
            full = client.get(url).json()
            total = 0
            for count in client.get(url + "&window=1").json()["windows"]:
                doc = client.get(url + f"&window={count['window']}").json()
                assert api_models.dump(api_models.ReplayWindow.model_validate(doc)) == doc
                assert doc["frames"] == full["frames"][count["offset"] : count["offset"] + count["frames"]]
                assert doc["frames_total"] == len(full["frames"])
                total += count["frames"]
            assert total == len(full["frames"])
            many = max(many, len(doc["windows"]))
    assert many >= 3  # the sample's long session has three windows
    # Not a window number: the whole document, as before.
    sid = Session.objects.filter(event_count__gt=0).first().sid
    whole = client.get(f"/api/sessions/{sid}/replay.json?matched=1").content
    assert client.get(f"/api/sessions/{sid}/replay.json?matched=1&window=x").content == whole
    assert client.get(f"/api/sessions/{sid}/replay.json?matched=1&window=0").content == whole
    assert client.get("/api/sessions/nope/replay.json?window=1").status_code == 404


def test_it_builds_every_sample_document_to_its_schema(settings):

    settings.WAYSWEB_LOCATIONS = locations.resolve({"WAYSWEB_DATA_DIR": str(settings.DATA_DIR)}, demo=True)
    call_command("ingest", stdout=StringIO())
    for session in Session.objects.all():
        dump = documents.dump_document(session.sid, matched=True)
        assert api_models.dump(api_models.SessionIntrospection.model_validate(dump)) == dump
        fires = documents.fires_document(session.sid, matched=True)
        assert api_models.dump(api_models.Fires.model_validate(fires)) == fires
    listed = documents.list_document(with_transcripts=True)
    assert api_models.dump(api_models.SessionList.model_validate(listed)) == listed
