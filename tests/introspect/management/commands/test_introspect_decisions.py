"""`introspect stats --json` and `introspect decisions SESSION --json` from the imported decision log
print what the rules print over the files themselves (upstream's reader and stats, reproduced in
tests/introspect/rules), so the import loses, adds and reorders nothing upstream would read."""

from __future__ import annotations

import io

import orjson
import pytest
from django.conf import settings
from django.core.management import call_command

from introspect.documents.decisions import stats_document
from introspect.importer import run
from introspect.rules import decision_stats
from introspect.rules.agent_fmt_when import parse_utc_iso
from introspect.rules.decision_session import session_document
from tests.conftest import append
from tests.introspect.rules.decision_log import (
    READER_ARCHIVE,
    READER_LIVE,
    STATS_ARCHIVE,
    STATS_LIVE,
    source_lines,
    write_log,
)

pytestmark = pytest.mark.django_db


def introspect(*args: str) -> dict:
    out = io.StringIO()
    call_command("introspect", *args, stdout=out)
    return orjson.loads(out.getvalue())


def imported(home, archive: list[str], live: list[str]):
    write_log(home.state, archive, live)
    run.import_pass(settings.WAYSWEB_LOCATIONS, run.Options(ways=False, transcripts=False))
    return home.state


def upstream_stats(directory, **options) -> dict:
    return decision_stats.json_value(decision_stats.report(source_lines(directory), **options))


def test_stats_are_upstreams_for_the_same_log(home):
    directory = imported(home, STATS_ARCHIVE, STATS_LIVE)
    document = introspect("stats", "--json")
    assert document["decisions"] == upstream_stats(directory)
    assert document["decisions"]["skipped_lines"] == 1
    assert document["decisions"]["records"] == len(STATS_ARCHIVE) + len(STATS_LIVE) - 1


def test_stats_of_one_project_are_upstreams(home):
    directory = imported(home, STATS_ARCHIVE, STATS_LIVE)
    assert introspect("stats", "--json", "--project", "/p")["decisions"] == upstream_stats(
        directory, project="/p"
    )


def test_stats_of_the_last_days_are_upstreams(home):
    directory = imported(home, STATS_ARCHIVE, STATS_LIVE)
    now = parse_utc_iso("2026-09-03T09:00:00Z")
    window, span = decision_stats.days_window(2, now)
    assert stats_document(days=2, now=now)["decisions"] == upstream_stats(directory, window=window, span=span)


def test_no_decision_log_is_not_present(home):
    assert introspect("stats", "--json") == {"decisions": {"present": False}}


def test_a_line_in_both_the_archive_and_the_live_file_counts_once(home):
    # A crash between archiving and trimming (§1.8): upstream would read it twice, waysweb once.
    directory = imported(home, STATS_ARCHIVE, [STATS_ARCHIVE[-1], *STATS_LIVE])
    assert introspect("stats", "--json")["decisions"] == upstream_stats(
        write_log(directory.parent / "once", STATS_ARCHIVE, STATS_LIVE)
    )


@pytest.mark.parametrize("session", ["s1", "s2", "nobody"])
def test_a_sessions_decisions_are_upstreams_turns_and_pulls(home, session):
    directory = imported(home, READER_ARCHIVE, READER_LIVE)
    assert introspect("decisions", session, "--json") == session_document(source_lines(directory), session)


def test_an_appended_pull_is_in_the_next_document(home):
    directory = imported(home, READER_ARCHIVE, READER_LIVE[:1])
    assert introspect("decisions", "s2", "--json")["pulls"] == []
    append(directory / "decisions.jsonl", *(f"{text}\n".encode() for text in READER_LIVE[1:]))
    run.import_pass(settings.WAYSWEB_LOCATIONS, run.Options(ways=False, transcripts=False))
    after = introspect("decisions", "s2", "--json")
    assert [pull["join"] for pull in after["pulls"]] == ["no_scan_id", "recall_miss"]
    assert after == session_document(source_lines(directory), "s2")
