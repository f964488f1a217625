"""Fault cases 17, 18, 24–27 and 33–35 (importer-reliability.md §14): what the content says.

Re-imports add nothing; repeated transcript lines are one logical entry; missing and deleted
sources keep their rows; hostile paths are never opened and hostile content never runs; front
matter is read safely; odd timestamps and numbers are kept as written; majordomus ledgers keep
their first `event` key and survive `history --rotate`.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import ClassVar

import orjson
import pytest
from django.db.models import F

from introspect.models import (
    PhysicalLine,
    RawLine,
    Session,
    SourceFile,
    Spill,
    TranscriptEntry,
    Turn,
    WaysEvent,
)
from ledger.models import KnowledgeRecord, LedgerEntry, MjLedgerLine
from lib import locations
from tests.conftest import append, gzip_member
from tests.faults.conftest import (
    assert_counters_add_up,
    assert_rows,
    entry,
    event,
    expected,
    ingest,
    jsonl,
    sha,
    stored,
)
from tests.introspect.views.test_sessions import elements
from tests.ledger.conftest import record_file

pytestmark = pytest.mark.django_db


def aggregates() -> list[tuple]:
    return sorted(
        Session.objects.values_list(
            "sid",
            "origin",
            "event_count",
            "way_fires",
            "turn_count",
            "total_fires",
            "input_tokens",
            "output_tokens",
            "message_count",
            "transcript_status",
        )
    )


def test_case_17_running_twice_and_ignoring_checkpoints_adds_nothing(home):
    archived = [event(n, session="s1") for n in range(6)]
    live = [*archived[3:], *(event(n, session="s1") for n in range(6, 12)), b"{broken\n", b"\n"]
    legacy = [event(0, name="session_start", project="/p", session="s1"), archived[0]]
    append(home.archive("2026-11-01"), gzip_member(*archived[:3]), gzip_member(*archived[3:]))
    append(home.live, *live)
    append(home.legacy, *legacy)
    said = [jsonl(entry("s1", n, kind="user" if n % 2 == 0 else "assistant")) for n in range(6)]
    append(home.transcript("/p", "s1"), *said)
    ingest()
    rows, sums, offsets = stored(), aggregates(), sorted(SourceFile.objects.values_list("rel_path", "offset"))
    valid = [*archived, *live[:-2], legacy[0]]
    assert_rows(
        expected(
            events=valid,
            entries=said,
            raw=[*archived, *live, *legacy, *said],
            quarantine=[("invalid_json", sum(map(len, live[:-2])))],
        ),
        got=rows,
    )
    assert "0 lines, 0 imported" in ingest()
    replay = ingest("--ignore-checkpoints")
    assert " 0 imported" in replay and "0 quarantined" in replay
    assert_rows(rows)
    assert aggregates() == sums and Turn.objects.exists()
    assert sorted(SourceFile.objects.values_list("rel_path", "offset")) == offsets
    assert_counters_add_up()


def test_case_17_replaying_a_file_imported_in_several_runs_adds_nothing(home):
    lines = [event(n, session="s1") for n in range(30)]
    for part in (lines[:10], lines[10:25], lines[25:]):  # each run starts reading at another offset
        append(home.live, *part)
        ingest()
    rows = stored()
    assert_rows(expected(events=lines, raw=lines), got=rows)
    assert set(PhysicalLine.objects.values_list("index", flat=True)) == {0}  # a plain line is its offset
    assert " 0 imported" in ingest("--ignore-checkpoints")
    assert_rows(rows)
    # Rows written before plain lines were indexed 0 held their place in a read buffer instead.
    for raw in RawLine.objects.all():
        RawLine.objects.filter(pk=raw.pk).update(index=raw.offset % 7)
    WaysEvent.objects.update(order_index=F("order_offset") % 7)  # the line an event stands for
    assert set(PhysicalLine.objects.values_list("index", flat=True)) != {0}
    assert " 0 imported" in ingest("--ignore-checkpoints")
    assert_rows(rows)
    assert_counters_add_up()


def test_case_18_resumed_session_file_repeating_lines_is_one_logical_entry(home):
    first = [
        entry("s1", 0),
        entry("s1", 1, kind="assistant"),
        entry("s1", 2),
        entry("s1", 3, kind="assistant"),
    ]
    trunk = [jsonl(obj) for obj in first]
    append(home.transcript("/p", "s1"), *trunk)
    # The same session written again under another project folder, repeating the earlier lines
    # byte for byte (same sessionId, uuid, message.id, requestId), then going on.
    resumed = [*trunk, jsonl(entry("s1", 4)), jsonl(entry("s1", 5, kind="assistant"))]
    append(home.transcript("/other", "s1"), *resumed)
    # Another session whose gateway reuses s1's message and request ids: not merged with s1.
    other = [
        jsonl(entry("s2", 0)),
        jsonl(entry("s2", 1, kind="assistant") | {"requestId": "req-s1-1", "message": first[1]["message"]}),
    ]
    append(home.transcript("/p", "s2"), *other)
    ingest()
    assert_rows(expected(entries=[*trunk, *resumed, *other], raw=[*trunk, *resumed, *other]))
    logical = TranscriptEntry.objects.filter(session_key="s1", is_copy=False)
    assert sorted(logical.values_list("uuid", flat=True)) == [f"s1-u{n}" for n in range(6)]
    assert TranscriptEntry.objects.filter(session_key="s1", is_copy=True).count() == len(trunk)
    s1, s2 = Session.objects.get(sid="s1"), Session.objects.get(sid="s2")
    # Usage once per (message.id, requestId): 2 + 4 + 6 output tokens, not the copies' again.
    assert (s1.input_tokens, s1.output_tokens) == (30, 2 + 4 + 6)
    assert (s2.input_tokens, s2.output_tokens) == (10, 2)


def test_case_24_missing_transcript_is_picked_up_and_deleted_sources_keep_their_rows(home, client):
    lines = [event(0, name="session_start", project="/p", session="s1"), event(1, session="s1")]
    append(home.live, *lines)
    ingest()
    assert Session.objects.get(sid="s1").transcript_status == "none"
    assert "none imported" in client.get("/sessions/s1/").content.decode()
    said = [jsonl(entry("s1", 0)), jsonl(entry("s1", 1, kind="assistant"))]
    path = home.transcript("/p", "s1", *(orjson.loads(line) for line in said))
    ingest()
    assert_rows(expected(events=lines, entries=said, raw=[*lines, *said]))
    assert Session.objects.get(sid="s1").transcript_status == "present"
    path.unlink()  # Claude Code's 30-day retention
    home.live.unlink()  # agent-ways' rotation took the live log away
    ingest()
    assert_rows(expected(events=lines, entries=said, raw=[*lines, *said]))
    assert set(SourceFile.objects.values_list("status", flat=True)) == {"gone"}
    assert Session.objects.get(sid="s1").transcript_status == "gone"
    page = client.get("/sessions/s1/").content.decode()
    assert "deleted upstream; kept here" in page and "prompt 0 of s1" in page


@pytest.fixture
def opened():
    """Paths opened by this process while `opened.watching` is set (an audit hook, PEP 578)."""

    class Watch:
        watching = False
        paths: ClassVar[list[str]] = []

    def hook(event_name, args):
        if (
            Watch.watching
            and event_name == "open"
            and args
            and isinstance(args[0], (str, bytes, os.PathLike))
        ):
            Watch.paths.append(os.fsdecode(args[0]))

    sys.addaudithook(hook)  # cannot be removed; inert while `watching` is off
    yield Watch
    Watch.watching = False


def test_case_25_hostile_paths_are_never_opened_or_served_and_discovery_ends(
    home, tmp_path, settings, client, opened
):
    secret = tmp_path / "outside" / "secret.txt"
    secret.parent.mkdir()
    secret.write_text("TOP-SECRET")
    hostile = ["../../etc/passwd", "/etc/passwd", str(secret), "../../../outside/secret.txt"]
    lines = [
        event(0, name="session_start", project="/p", session="s1", transcript_path=hostile[0]),
        event(1, session="s1", way="../../etc/passwd", transcript_path=str(secret)),
    ]
    append(home.live, *lines)
    stub = (
        "<persisted-output>\nOutput too large (2KB). Full output saved to: {}\n\nPreview:\nx\n"
        "</persisted-output>"
    )
    said = [jsonl(entry("s1", n, text=stub.format(path), isMeta=True)) for n, path in enumerate(hostile)]
    trunk = home.transcript("/p", "s1", *(orjson.loads(line) for line in said))
    # Symlink loops under the transcripts and way roots: discovery must still end.
    (trunk.with_suffix("") / "subagents").mkdir(parents=True)
    (trunk.with_suffix("") / "subagents" / "loop").symlink_to("../..")
    home.core_ways.mkdir(parents=True)
    (home.core_ways / "loop").symlink_to(".")
    ledger = home.root / ".claude" / "ledger" / "-p"
    ledger.mkdir(parents=True)
    (ledger / "2026-11-02T1000Z_e1.md").write_text(f"---\nsession: s1\ntranscript: {secret}\n---\nbody\n")
    (ledger.parent / "escape").symlink_to(tmp_path / "outside")
    opened.watching = True
    ingest_output = ingest()
    pages = [
        client.get(url).content.decode()
        for url in (
            "/",
            "/sessions/s1/",
            "/sessions/s1/events/",
            "/status/",
            "/ledger/",
            "/api/sessions/s1/dump.json",
        )
    ]
    opened.watching = False
    assert "Imported" in ingest_output
    assert_rows(expected(events=lines, entries=said, raw=[*lines, *said]))
    outside = [p for p in opened.paths if Path(p).resolve() in (secret.resolve(), Path("/etc/passwd"))]
    assert outside == []
    assert not any("TOP-SECRET" in page or "root:x:0:0" in page for page in pages)
    assert Spill.objects.filter(found=True).count() == 0
    assert LedgerEntry.objects.get().transcript_path == str(secret)  # kept as text, never opened


def test_case_26_hostile_content_is_rendered_inert(home, client, tmp_path, settings):
    hostile = (
        "<script>alert(1)</script> <img src=x onerror=alert(2)> [click](javascript:alert(3)) "
        '<a href="/x" hx-post="/ledger/x">go</a> <div hx-get="/">raw</div>'
    )
    said = [jsonl(entry("s1", 0, text=hostile)), jsonl(entry("s1", 1, kind="assistant", text=hostile))]
    append(home.transcript("/p", "s1"), *said)
    lines = [
        event(0, name="session_start", project="/p", session="s1"),
        event(1, session="s1", surface=hostile, matched_span="<b onmouseover=alert(4)>x</b>"),
    ]
    append(home.live, *lines)
    repo = tmp_path / "repo"
    record_file(repo / ".ai" / "repo" / "knowledge", "s-20260911000001-aaaa-3f9c2a1b7d0e", title=hostile)
    settings.WAYSWEB_LOCATIONS = locations.resolve({"HOME": str(home.root), "WAYSWEB_REPOS": str(repo)})
    ingest()
    assert_rows(expected(events=lines, entries=said, raw=[*lines, *said]))
    record = KnowledgeRecord.objects.get()
    for url in (
        "/sessions/s1/",
        "/sessions/s1/events/",
        "/search/?q=alert",
        "/ledger/knowledge/",
        f"/ledger/knowledge/{record.pk}/",
    ):
        response = client.get(url)
        assert response.status_code == 200, url
        tags = elements(response.content.decode())
        attributes = [(name, value or "") for _, attrs in tags for name, value in attrs]
        assert not [name for name, _ in attributes if name.startswith("on")], url
        assert not [
            v for name, v in attributes if name in ("href", "src") and v.lower().startswith("javascript:")
        ]
        assert not [
            v for name, v in attributes if name.startswith(("hx-", "data-hx")) and "/ledger/x" in v
        ], url
        scripts = [attrs for tag, attrs in tags if tag == "script"]
        assert all(dict(attrs).get("nonce") for attrs in scripts), url  # only our own, nonce'd scripts
        assert "<img src=x" not in response.content.decode(), url


def test_case_27_front_matter_is_read_safely_capped_quarantined_and_never_merged(home, tmp_path, settings):
    ledger = home.root / ".claude" / "ledger" / "-p"
    ledger.mkdir(parents=True)
    template = "---\nsession: s1\nepoch: 1\nphase: progress\ntimestamp: 2026-11-02T10:00:00Z\n---\n"
    files = {
        "2026-11-02T1000Z_e1.md": "---\nsession: [unclosed\n---\nbody\n",
        "2026-11-02T1001Z_e2.md": "---\nsession: !!python/object/apply:os.system ['touch pwned']\n---\nbody\n",
        "2026-11-02T1002Z_e3.md": "---\nsession: s1\npad: '" + "x" * (10 << 20) + "'\n---\nbody\n",
        "2026-11-02T1003Z_e4.md": "---\nsession: s1\npad: '" + "y" * (100 << 10) + "'\n---\nbody\n",
        "2026-11-02T1004Z_e5.md": "---\nsession: s1\nsession: s2\n---\nduplicate keys\n",
    }
    for n in range(6, 12):  # identical template headers, distinct files
        files[f"2026-11-02T10{n:02d}Z_e{n}.md"] = template + f"entry {n}\n"
    for name, text in files.items():
        (ledger / name).write_text(text)
    repo = tmp_path / "repo"
    knowledge = repo / ".ai" / "repo" / "knowledge" / "candidates"
    knowledge.mkdir(parents=True)
    (knowledge / "s-1-aaaa-000000000001.md").write_text("---\nid: !!python/name:os.system\n---\nx\n")
    for n in range(2, 5):
        record_file(knowledge.parent, f"s-1-aaaa-00000000000{n}", title="Same template title")
    settings.WAYSWEB_LOCATIONS = locations.resolve({"HOME": str(home.root), "WAYSWEB_REPOS": str(repo)})
    cwd = os.getcwd()
    os.chdir(tmp_path)  # where `touch pwned` would land if a tag ever ran
    try:
        ingest()
    finally:
        os.chdir(cwd)
    assert not (tmp_path / "pwned").exists()
    reasons = dict(LedgerEntry.objects.values_list("rel_path", "quarantine_reason"))
    assert reasons == {
        "-p/2026-11-02T1000Z_e1.md": "yaml_invalid",
        "-p/2026-11-02T1001Z_e2.md": "yaml_invalid",
        "-p/2026-11-02T1002Z_e3.md": "document_too_large",
        "-p/2026-11-02T1003Z_e4.md": "yaml_too_large",
        "-p/2026-11-02T1004Z_e5.md": "yaml_invalid",
        **{f"-p/2026-11-02T10{n:02d}Z_e{n}.md": "" for n in range(6, 12)},
    }
    shas = dict(LedgerEntry.objects.values_list("rel_path", "sha256"))
    for name, text in files.items():
        capped = text.encode()[: (1 << 20) + 1]
        assert shas[f"-p/{name}"] == sha(capped + b"\n"), name  # one row per file, its own content
    records = {r.record_id: r for r in KnowledgeRecord.objects.all()}
    assert len(records) == 4 and records["s-1-aaaa-000000000001"].problem.startswith("yaml_invalid")
    assert {r.title for k, r in records.items() if k != "s-1-aaaa-000000000001"} == {"Same template title"}


def test_case_33_odd_timestamps_numerics_and_empty_fields_are_kept_as_written(home):
    utc = event(0, name="session_start", project="/p", session="s1")
    offset_ts = (
        b'{"ts":"2026-11-02T10:00:05+00:00","event":"way_fired","session":"s1","way":"d/x","trigger":"k"}\n'
    )
    texty = event(6, fire_score="0.6220", token_position="1204")
    native = event(7, fire_score=0.5, token_position=99)
    empty = event(8, surface="", prob_multi="")
    absent = event(9)
    huge = event(10, token_position="123456789012345678901234567890")  # past 64 bits (§7.7)
    lines = [utc, offset_ts, texty, native, empty, absent, huge]
    append(home.live, *lines)
    said = [
        jsonl(entry("s1", 0)),
        jsonl(
            entry("s1", 1, kind="assistant")
            | {"message": {"id": "m", "role": "assistant", "content": [], "usage": {"input_tokens": 12345}}}
        ),
    ]
    said[1] = said[1].replace(b"12345", str(2**70).encode())  # orjson writes no integer past 64 bits
    append(home.transcript("/p", "s1"), *said)
    ingest()
    assert_rows(expected(events=lines, entries=said, raw=[*lines, *said]))
    odd = WaysEvent.objects.get(sha256=sha(offset_ts))
    assert odd.ts is None and odd.ts_raw == "2026-11-02T10:00:05+00:00" and "ts_invalid" in odd.flags
    assert "d/x" not in Turn.objects.values_list("ways__way_id", flat=True)  # excluded from turns
    by_sha = {e.sha256: e for e in WaysEvent.objects.all()}
    assert (by_sha[sha(texty)].fire_score, by_sha[sha(texty)].token_position) == (0.622, 1204)
    assert (by_sha[sha(native)].fire_score, by_sha[sha(native)].token_position) == (0.5, 99)
    assert by_sha[sha(empty)].surface == "" and by_sha[sha(empty)].empty_fields == ["prob_multi", "surface"]
    assert by_sha[sha(absent)].surface is None and by_sha[sha(absent)].empty_fields == []
    assert by_sha[sha(huge)].token_position is None  # never trusted as a number; the raw line keeps it
    assert "123456789012345678901234567890" in by_sha[sha(huge)].raw
    assert TranscriptEntry.objects.get(uuid="s1-u1").input_tokens is None


def mj_line(n: int, **fields) -> bytes:
    body = {
        "ts": f"2026-11-05T13:00:{n:02d}Z",
        "event": "briefing.rendered",
        "head": "7c3e9a0",
        "branch": "main",
        "by": "majordomus/0.6.0",
        "session": "s-20261105130042-1cb9",
        "n": n,
    }
    return orjson.dumps(body | fields) + b"\n"


@pytest.fixture
def mj_repo(home, tmp_path, settings):
    repo = tmp_path / "repo"
    state = repo / ".ai" / "local" / "state"
    state.mkdir(parents=True)
    settings.WAYSWEB_LOCATIONS = locations.resolve({"HOME": str(home.root), "WAYSWEB_REPOS": str(repo)})
    return state


def test_case_34_majordomus_line_with_two_event_keys_keeps_the_first(mj_repo):
    two = (
        b'{"ts":"2026-11-05T13:00:42Z","event":"provider.event.received","head":"7c3e9a0","by":"majordomus/0.6.0",'
        b'"provider":"claude","event":"SessionStart","provider_session":"d9253f7d"}\n'
    )
    lines = [mj_line(1), two, mj_line(2)]
    append(mj_repo / "ledger.jsonl", *lines)
    ingest()
    assert_rows(expected(raw=lines))
    assert sorted(MjLedgerLine.objects.values_list("sha256", flat=True)) == sorted(
        sha(line) for line in lines
    )
    line = MjLedgerLine.objects.get(sha256=sha(two))
    assert (line.event, line.provider_event) == ("provider.event.received", "SessionStart")


def test_case_35_majordomus_history_rotate_adds_no_logical_line(mj_repo):
    lines = [mj_line(n) for n in range(12)]
    append(mj_repo / "ledger.jsonl", *lines)
    ingest()
    # `history --rotate`: the head goes to ledger.<stamp>.jsonl.archived, the live file is rewritten.
    append(mj_repo / "ledger.20261105T000000Z.jsonl.archived", *lines[:8])
    rewritten = mj_repo / "ledger.jsonl.tmp"
    rewritten.write_bytes(b"".join(lines[8:]))
    os.replace(rewritten, mj_repo / "ledger.jsonl")
    ingest()
    assert sorted(MjLedgerLine.objects.values_list("sha256", flat=True)) == sorted(
        sha(line) for line in lines
    )
    assert_rows(expected(raw=[*lines, *lines[:8], *lines[8:]]))
    assert RawLine.objects.filter(outcome="imported").count() == len(lines)
    appended = mj_line(40)
    append(mj_repo / "ledger.jsonl", appended)
    ingest()
    assert MjLedgerLine.objects.count() == len(lines) + 1
    assert_counters_add_up()
