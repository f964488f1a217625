"""`manage.py ingest` on a HOME laid out as agent-ways writes it: every line accounted for, once."""

from __future__ import annotations

import os
import signal
import threading
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import OperationalError, connections

from introspect.importer import watch
from introspect.importer.lock import importer_lock
from introspect.models import PhysicalLine, Quarantine, RawLine, Session, SourceFile, Turn, Way, WaysEvent
from tests.conftest import append, gzip_member, line
from waysweb import passes

pytestmark = pytest.mark.django_db

S = "8f3a2c1d-5e6f-4a7b-9c8d-0e1f2a3b4c5d"

# One line of every event type in formats-agent-ways.md §6, current generation.
CURRENT = [
    line(ts="2026-11-02T10:00:00Z", event="session_start", project="/p", session=S),
    line(
        ts="2026-11-02T10:00:05Z",
        event="way_judged",
        way="d/a",
        p_yes="0.812",
        threshold="0.30",
        verdict="pass",
        mode="enforce",
        engine="anthropic",
        model="claude-haiku-4-5",
        judge_ms="412",
        gate_ms="430",
        candidates="3",
        hook="UserPromptSubmit",
        scope="agent",
        project="/p",
        session=S,
        agent_id="main",
    ),
    line(
        ts="2026-11-02T10:00:05Z",
        event="way_fired",
        way="d/a",
        domain="d",
        trigger="keyword",
        scope="agent",
        project="/p",
        session=S,
        token_position="1204",
        model="claude-opus-4-6",
        agent_id="main",
        matched_span="commit",
    ),
    line(
        ts="2026-11-02T10:00:06Z",
        event="way_fired",
        way="d/s",
        domain="d",
        trigger="semantic:embedding:en",
        scope="agent",
        project="/p",
        session=S,
        token_position="1204",
        fire_score="0.6220",
        surface="how do I",
    ),
    line(
        ts="2026-11-02T10:00:06Z",
        event="way_keyword_gated",
        way="d/g",
        corpus_id="d/g",
        domain="d",
        matched_span="remember",
        prob_en="0.0759",
        prob_multi="",
        floor="0.1500",
        trigger="prompt",
        scope="agent",
        project="/p",
        session=S,
        token_position="1204",
    ),
    line(
        ts="2026-11-02T10:00:07Z",
        event="way_nearmiss",
        way="d/n",
        corpus_id="d/n",
        domain="d",
        prob_en="0.4791",
        prob_multi="",
        tau_s="0.5000",
        margin="0.0209",
        trigger="prompt",
        scope="agent",
        project="/p",
        session=S,
        query_tokens="42",
    ),
    line(
        ts="2026-11-02T10:00:07Z",
        event="scan_candidates",
        lane="en",
        basis="single",
        session=S,
        project="/p",
        sidecar=False,
        candidates=[{"way": "d/a", "cosine": 0.61, "share": 0.44, "margin": None}],
    ),
    line(
        ts="2026-11-02T10:05:00Z",
        event="way_suppressed",
        kind="way",
        way="d/b",
        domain="d",
        trigger="bash",
        reason="refire",
        scope="agent",
        project="/p",
        session=S,
        agent_id="main",
    ),
    line(
        ts="2026-11-02T10:05:01Z",
        event="check_fired",
        check="d/a/lint",
        domain="d",
        trigger="bash",
        epoch="14",
        way_epoch="9",
        distance="5",
        fire_count="0",
        match_score="1.20",
        effective_score="3.35",
        anchored="true",
        scope="agent",
        project="/p",
        session=S,
    ),
    line(
        ts="2026-11-02T10:05:02Z",
        event="judge_call",
        outcome="judged",
        engine="anthropic",
        session=S,
        project="/p",
        input_tokens="10",
        output_tokens="1",
        cost_usd="0.01000000",
        cost_source="provider",
    ),
    line(
        ts="2026-11-02T10:05:03Z",
        event="injection_suppressed",
        reason="subagents_off",
        switch="session",
        lane="subagent_start",
        agent="Explore",
        scope="subagent",
        project="/p",
        session=S,
    ),
    line(
        ts="2026-11-02T10:05:04Z",
        event="gate_fallback",
        reason="deadline",
        gate_ms="1500",
        candidates="4",
        hook="UserPromptSubmit",
        scope="agent",
        project="/p",
        session=S,
    ),
    line(
        ts="2026-11-02T10:05:04Z",
        event="gate_capped",
        judged="8",
        unjudged="2",
        ways="w/8,w/9",
        hook="UserPromptSubmit",
        scope="agent",
        project="/p",
        session=S,
    ),
    line(
        ts="2026-11-02T10:06:00Z",
        event="way_pulled",
        way="d/c",
        domain="d",
        window="first_fire",
        scope="agent",
        project="/p",
        session=S,
        agent_id="main",
        out_of_band=False,
        stamped=True,
    ),
    line(
        ts="2026-11-02T10:07:00Z",
        event="way_judged",
        way="d/b/c",
        p_yes="0.050",
        threshold="0.30",
        verdict="block",
        reason="ancestor",
        ancestor="d/b",
        session=S,
    ),
    line(ts="2026-11-02T10:09:00Z", event="session_start", project="/p", session=S),
    line(
        ts="2026-11-02T10:09:30Z",
        event="way_redisclosed",
        way="d/s",
        domain="d",
        trigger="semantic:embedding:en",
        scope="agent",
        project="/p",
        session=S,
        fire_score=0.52,
        surface="again",
    ),
    line(ts="2026-11-02T10:09:40+00:00", event="way_fired", way="d/x", trigger="file", session=S),
    line(ts="2026-11-02T10:10:00Z", event="event_log_dropped", bytes=41943040, reason="archive failed"),
]
# The older generation (before ADR-156 and before 1.0), as archives and the legacy log hold it.
OLDER = [
    line(ts="2026-10-01T09:00:00Z", event="session_start", project="/old", session="old-1"),
    line(
        ts="2026-10-01T09:00:02Z",
        event="way_fired",
        way="softwaredev/delivery/commits",
        domain="softwaredev",
        trigger="bash",
        scope="agent",
        project="/old",
        session="old-1",
    ),
    line(
        ts="2026-10-01T09:00:03Z",
        event="way_nearmiss",
        way="d/x",
        corpus_id="d/x",
        domain="d",
        score_en="0.4410",
        score_multi="",
        thr_en="0.4600",
        thr_multi="",
        margin="0.0190",
        trigger="prompt",
        scope="agent",
        project="/old",
        session="old-1",
        query_tokens="31",
    ),
    line(
        ts="2026-10-01T09:00:04Z",
        event="way_keyword_gated",
        way="d/g",
        corpus_id="d/g",
        domain="d",
        matched_span="remember",
        score_en="0.0700",
        score_multi="0.0600",
        floor_en="0.1500",
        floor_multi="0.1200",
        trigger="prompt",
        scope="agent",
        project="/old",
        session="old-1",
    ),
]
EVERY_EVENT_TYPE = {
    "session_start",
    "way_fired",
    "way_redisclosed",
    "way_suppressed",
    "way_nearmiss",
    "way_keyword_gated",
    "check_fired",
    "way_judged",
    "judge_call",
    "injection_suppressed",
    "gate_fallback",
    "gate_capped",
    "scan_candidates",
    "way_pulled",
    "event_log_dropped",
}


def ingest(*args: str) -> str:
    out = StringIO()
    call_command("ingest", *args, stdout=out, stderr=StringIO())
    return out.getvalue()


def test_it_imports_every_event_type_of_both_generations(home):
    append(home.archive("2026-10-01"), gzip_member(*OLDER[:2]), gzip_member(*OLDER[2:]))
    append(home.live, *CURRENT)
    home.way(home.core_ways, "d/a", "pattern: commit\nscope: agent, subagent")
    output = ingest()
    assert "Imported 2 files" in output
    assert set(WaysEvent.objects.values_list("event", flat=True)) == EVERY_EVENT_TYPE
    assert WaysEvent.objects.count() == len(CURRENT) + len(OLDER)
    gens = {event.session_key: event.schema_gen for event in WaysEvent.objects.filter(event="way_nearmiss")}
    assert gens == {S: "calibrated", "old-1": "raw_score"}
    gated_old = WaysEvent.objects.get(event="way_keyword_gated", session_key="old-1")
    assert (gated_old.score_en, gated_old.floor_multi, gated_old.schema_gen) == (0.07, 0.12, "raw_score")
    assert Way.objects.get(way_id="d/a").criteria == {"pattern": "commit", "scope": "agent, subagent"}


def test_it_imports_nothing_the_second_time_and_exactly_one_appended_line(home):
    append(home.live, *CURRENT)
    ingest()
    before = WaysEvent.objects.count()
    assert "0 lines, 0 imported" in ingest()
    assert WaysEvent.objects.count() == before
    append(
        home.live, line(ts="2026-11-02T10:11:00Z", event="way_fired", way="d/z", trigger="bash", session=S)
    )
    assert "1 lines, 1 imported" in ingest()
    assert WaysEvent.objects.count() == before + 1


def test_it_writes_no_rows_when_ignoring_checkpoints(home):
    append(home.live, *CURRENT)
    ingest()
    counts = (WaysEvent.objects.count(), RawLine.objects.count(), SourceFile.objects.get().offset)
    assert "0 imported" in ingest("--ignore-checkpoints")
    assert (WaysEvent.objects.count(), RawLine.objects.count(), SourceFile.objects.get().offset) == counts


def test_it_imports_a_torn_last_line_once_after_it_is_completed(home):
    torn = line(ts="2026-11-02T10:00:00Z", event="session_start", project="/p", session=S)
    append(home.live, torn[:20])
    ingest()
    assert WaysEvent.objects.count() == 0 and SourceFile.objects.get().offset == 0
    append(home.live, torn[20:])
    ingest()
    ingest()
    assert list(WaysEvent.objects.values_list("event", flat=True)) == ["session_start"]


def test_it_reads_a_truncated_file_as_a_new_generation_and_keeps_old_rows(home):
    append(home.live, *CURRENT[:5])
    ingest()
    home.live.write_bytes(CURRENT[5])  # shorter than before: truncated and rewritten
    output = ingest()
    assert "new generation" in output
    assert WaysEvent.objects.count() == 6
    assert list(SourceFile.objects.order_by("generation").values_list("generation", "status")) == [
        (1, "superseded"),
        (2, "active"),
    ]


def test_it_reads_a_replaced_file_from_the_start_without_duplicating_kept_lines(home):
    append(home.live, *CURRENT[:5])
    ingest()
    replacement = append(home.state / "tmp.jsonl", *CURRENT[3:8])  # compaction: kept tail + new lines
    os.replace(replacement, home.live)
    ingest()
    assert WaysEvent.objects.count() == 8
    generation_two = SourceFile.objects.get(generation=2)
    assert (generation_two.imported, generation_two.duplicate) == (3, 2)


def test_it_unions_archives_live_and_legacy_without_duplicates(home):
    append(home.archive("2026-11-01"), gzip_member(*CURRENT[:3]))
    append(home.archive("2026-11-02"), gzip_member(*CURRENT[3:6]), gzip_member(*CURRENT[6:8]))
    append(home.live, *CURRENT[5:12])  # overlaps the newest archive by three lines
    append(home.legacy, *OLDER, CURRENT[0])  # split-brain: one line in both logs
    append(home.state / "events-preserved-2026-01-01.jsonl.gz", gzip_member(line(event="ignored")))
    ingest()
    assert WaysEvent.objects.count() == 12 + len(OLDER)
    assert not WaysEvent.objects.filter(event="ignored").exists()
    assert PhysicalLine.objects.count() == 3 + 5 + 7 + len(OLDER) + 1
    # The copy in the newest archive ranks before the live one (formats-agent-ways.md §2.3 rule 4),
    # though the live log, written last, is read first: the event sits at the archive's place.
    shared = WaysEvent.objects.get(raw=CURRENT[6].decode().strip())
    assert (shared.order_rank, shared.occurrences) == (20261102, 1)
    assert Session.objects.get(sid="old-1").origin == "events"


def test_it_orders_events_the_same_whatever_order_sources_arrive_in(home):
    append(home.live, *CURRENT[5:8])
    ingest()
    append(home.archive("2026-11-02"), gzip_member(*CURRENT[:8]))
    ingest()
    first_copy = WaysEvent.objects.get(raw=CURRENT[6].decode().strip())
    assert (first_copy.order_rank, first_copy.occurrences) == (20261102, 1)


def test_it_counts_a_genuinely_repeated_line_as_two_occurrences(home):
    repeated = line(ts="2026-11-02T10:00:05Z", event="way_fired", way="d/a", trigger="keyword", session=S)
    append(home.live, CURRENT[0], repeated, repeated)
    ingest()
    assert WaysEvent.objects.get(way="d/a").occurrences == 2
    assert Session.objects.get(sid=S).way_fires == 2


def test_it_quarantines_invalid_json_and_utf8_with_raw_bytes_and_goes_on(home):
    append(home.live, CURRENT[0], b"{not json\n", b'{"ts":"\xff"}\n', CURRENT[2])
    output = ingest()
    assert "2 quarantined" in output
    reasons = dict(Quarantine.objects.values_list("reason", "raw"))
    assert bytes(reasons["invalid_json"]) == b"{not json"
    assert bytes(reasons["invalid_utf8"]) == b'{"ts":"\xff"}'
    assert WaysEvent.objects.count() == 2
    source = SourceFile.objects.get()
    assert source.lines_seen == source.imported + source.quarantined + source.inert + source.duplicate == 4


def test_it_keeps_unknown_event_types_raw_and_flagged(home):
    append(home.live, line(ts="2026-11-02T10:00:00Z", event="way_capped", session=S, ways="a,b"))
    ingest()
    event = WaysEvent.objects.get()
    assert event.event == "way_capped" and "unknown_type" in event.flags
    assert '"ways":"a,b"' in event.raw


def test_it_parses_string_valued_and_native_numbers_alike(home):
    append(home.live, CURRENT[3], CURRENT[16])
    ingest()
    scores = dict(WaysEvent.objects.values_list("event", "fire_score"))
    assert scores == {"way_fired": 0.622, "way_redisclosed": 0.52}
    assert WaysEvent.objects.get(event="way_fired").token_position == 1204


def test_it_keeps_missing_and_empty_fields_distinct(home):
    append(
        home.live,
        CURRENT[4],
        line(ts="2026-11-02T10:00:09Z", event="way_fired", way="d/e", surface="", session=S),
    )
    ingest()
    gated = WaysEvent.objects.get(event="way_keyword_gated")
    assert gated.empty_fields == ["prob_multi"] and gated.prob_multi is None
    fired = WaysEvent.objects.get(event="way_fired")
    assert fired.surface == "" and fired.matched_span is None and fired.model is None


def test_it_imports_non_utc_rows_flagged_and_leaves_them_out_of_turns(home):
    append(home.live, CURRENT[0], CURRENT[2], CURRENT[17])
    ingest()
    odd = WaysEvent.objects.get(way="d/x")
    assert odd.ts is None and odd.ts_raw == "2026-11-02T10:09:40+00:00" and "ts_invalid" in odd.flags
    session = Session.objects.get(sid=S)
    assert session.event_count == 3
    assert list(Turn.objects.values_list("ways__way_id", flat=True)) == ["d/a"]


def test_it_marks_a_deleted_source_gone_and_keeps_its_rows(home):
    append(home.legacy, *OLDER)
    ingest()
    home.legacy.unlink()
    assert "gone upstream" in ingest()
    assert SourceFile.objects.get().status == "gone"
    assert WaysEvent.objects.count() == len(OLDER)


def test_it_refuses_to_run_beside_another_importer(home):
    append(home.live, CURRENT[0])
    other = connections.create_connection("default")  # the other importer's own database session
    try:
        with importer_lock(other), pytest.raises(CommandError, match="Only one importer"):
            ingest()
    finally:
        other.close()
    assert WaysEvent.objects.count() == 0


def test_a_failed_pass_is_shown_on_the_status_page_until_a_pass_completes(home, monkeypatch, client):
    append(home.live, CURRENT[0])

    def failing(*args, **kwargs):
        raise OperationalError("disk I/O error")

    monkeypatch.setattr(passes, "sessions_pass", failing)
    with pytest.raises(CommandError, match="disk I/O error"):
        ingest()
    page = client.get("/status/").content.decode()
    assert 'role="alert"' in page and "The importer stopped" in page and "disk I/O error" in page
    monkeypatch.undo()
    ingest()
    assert 'role="alert"' not in client.get("/status/").content.decode()


class Following:
    """`ingest --follow` run in this process: `react(n)` runs after its n-th pass (1 is the first),
    and SIGTERM, as a service manager stops it, once `react` returns True."""

    def __init__(self, monkeypatch, react, *, most_passes: int = 20):
        self.passes: list[tuple[frozenset | None, int]] = []  # (the paths it was told, lines imported)
        real = passes.sessions_pass

        def recorded(locs, options, **kwargs):
            result = real(locs, options, **kwargs)
            self.passes.append((options.only, result.totals.imported))
            if react(len(self.passes)) or len(self.passes) >= most_passes:
                os.kill(os.getpid(), signal.SIGTERM)
            return result

        monkeypatch.setattr(passes, "sessions_pass", recorded)

    def run(self, *args: str) -> tuple[str, str]:
        out, err = StringIO(), StringIO()
        call_command("ingest", "--follow", "--no-ways", *args, stdout=out, stderr=err)
        return out.getvalue(), err.getvalue()


def fire(second: int) -> bytes:
    return line(ts=f"2026-11-02T10:12:{second:02d}Z", event="way_fired", way="d/z", trigger="bash", session=S)


def test_following_it_reads_an_appended_line_alone_as_soon_as_inotify_tells_it(home, monkeypatch):
    append(home.live, *CURRENT)

    def react(n: int) -> bool:
        if n == 1:
            append(home.live, fire(1))  # polling, it would be read after the 60 s interval
        return n == 2

    follower = Following(monkeypatch, react)
    before = signal.getsignal(signal.SIGTERM)
    _, err = follower.run("--interval", "60")

    assert follower.passes == [(None, len(CURRENT)), (frozenset({home.live}), 1)]
    assert WaysEvent.objects.filter(way="d/z").count() == 1
    assert err == ""  # watching: no notice
    assert signal.getsignal(signal.SIGTERM) is before  # its own handler is gone with it


def test_following_it_stops_while_it_waits_for_changes(home, monkeypatch):
    append(home.live, CURRENT[0])
    stop = threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGTERM))

    def react(n: int) -> bool:
        stop.start()  # while the follower waits for inotify
        return False

    follower = Following(monkeypatch, react)
    try:
        follower.run("--interval", "60")
    finally:
        stop.cancel()
    assert follower.passes == [(None, 1)]


def test_following_with_poll_it_reads_every_file_on_every_pass(home, monkeypatch):
    append(home.live, *CURRENT)
    append(home.legacy, *OLDER)

    def react(n: int) -> bool:
        if n == 1:
            append(home.live, fire(1))
        return WaysEvent.objects.filter(way="d/z").exists()

    follower = Following(monkeypatch, react)
    _, err = follower.run("--poll", "--interval", "0.05")

    assert all(only is None for only, _ in follower.passes)
    assert sum(imported for _, imported in follower.passes[1:]) == 1
    assert err == ""


class NoWatches:
    """RustNotify when inotify's watches are used up, with notify's message."""

    def __init__(self, paths, *args):
        raise OSError(f"OS file watch limit reached. about {paths} (Error {{ kind: MaxFilesWatch }})")


def test_following_it_polls_saying_so_once_when_it_cannot_watch(home, monkeypatch):
    monkeypatch.setattr(watch, "RustNotify", NoWatches)
    append(home.live, *CURRENT)

    def react(n: int) -> bool:
        if n == 2:
            append(home.live, fire(1))
        return WaysEvent.objects.filter(way="d/z").exists()

    follower = Following(monkeypatch, react)
    _, err = follower.run("--interval", "0.05")

    assert all(only is None for only, _ in follower.passes) and len(follower.passes) >= 3
    assert err.splitlines() == [
        "not watching for changes (OS file watch limit reached. about "
        f"{[str(home.state)]}; `sysctl fs.inotify.max_user_watches` raises it); polling every 0.05 s instead"
    ]


def test_the_help_names_poll(capsys):
    with pytest.raises(SystemExit):
        call_command("ingest", "--help")
    assert "--poll" in capsys.readouterr().out
