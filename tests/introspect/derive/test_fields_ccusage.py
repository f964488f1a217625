"""Each session's tokens and cost equal ccusage 20's on the same files (peers.md §9).

The reference is ccusage's own output, committed: tests/fixtures/ccusage/sample-session.json and
fixtures-session.json, made with ccusage 20.0.24 by

    TZ=UTC CLAUDE_CONFIG_DIR=<tree> ccusage session --json --offline

where <tree>/projects is the bundled sample's projects folder (sample/home/.claude/projects) or
the real transcripts of tests/fixtures/transcripts/ laid out as tests/fixtures/ccusage/
fixtures-tree.json says (one of them a subagent file whose main transcript is missing).
`sh tests/fixtures/ccusage/regenerate.sh` makes both files again.

ccusage 20 reports one row per session id (its `period`), the session's subagent files counted
in; its cost is a float of the exact sum, so the two agree to the cent and to a billionth of one.
"""

from __future__ import annotations

import json
import shutil
from decimal import Decimal
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from introspect.models import Session
from tests.fixtures import FIXTURES, TRANSCRIPTS

pytestmark = pytest.mark.django_db

REFERENCE = FIXTURES / "ccusage"
SAMPLE_PROJECTS = FIXTURES.parents[1] / "sample" / "home" / ".claude" / "projects"
TOKENS = {
    "inputTokens": "input_tokens",
    "outputTokens": "output_tokens",
    "cacheCreationTokens": "cache_creation_input_tokens",
    "cacheReadTokens": "cache_read_input_tokens",
}
CENT = Decimal("0.01")


def reference(name: str) -> dict[str, dict]:
    rows = json.loads((REFERENCE / name).read_text())["session"]
    return {row["period"]: row for row in rows}


def lay_out_fixtures(projects: Path) -> None:
    tree = json.loads((REFERENCE / "fixtures-tree.json").read_text())
    for rel_path, name in tree.items():
        (projects / rel_path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(TRANSCRIPTS / name, projects / rel_path)


def assert_equal_to_ccusage(rows: dict[str, dict]) -> None:
    counted = Session.objects.exclude(message_count=0, cost_usd=None)
    assert set(counted.values_list("sid", flat=True)) == set(rows)
    for sid, row in rows.items():
        session = Session.objects.get(sid=sid)
        assert {key: getattr(session, name) for key, name in TOKENS.items()} == {
            key: row[key] for key in TOKENS
        }, sid
        theirs = Decimal(repr(row["totalCost"]))
        assert session.cost_usd is not None and session.unpriced_messages == 0, sid
        assert session.cost_usd.quantize(CENT) == theirs.quantize(CENT), sid
        assert abs(session.cost_usd - theirs) < Decimal("1e-9"), sid
        assert set(row["modelsUsed"]) <= {m.strip() for m in session.models_seen.split(",")}, sid


def test_the_samples_sessions_cost_what_ccusage_20_says(home):
    shutil.copytree(SAMPLE_PROJECTS, home.root / ".claude" / "projects")
    call_command("ingest", stdout=StringIO())
    rows = reference("sample-session.json")
    assert len(rows) == 15  # the sessions with a transcript: S03-S05 and S07-S14, and S15-S18 for the arms
    assert_equal_to_ccusage(rows)
    # The sample's subagent ran on another model: its messages are in its session's cost.
    assert sum(len(row["modelsUsed"]) > 1 for row in rows.values()) == 1


def test_the_fixture_transcripts_sessions_cost_what_ccusage_20_says(home):
    lay_out_fixtures(home.root / ".claude" / "projects")
    call_command("ingest", stdout=StringIO())
    rows = reference("fixtures-session.json")
    assert len(rows) == 5
    assert_equal_to_ccusage(rows)
    orphan = Session.objects.get(sid="4d5611e5-241a-462a-8d15-5122611a9569")
    assert orphan.transcript_id is None and orphan.cost_usd == Decimal("0.13688625")


def test_the_reference_prices_one_hour_cache_writes():
    # What the reference holds, so it cannot pass by pricing every write as a 5-minute one: the
    # sample writes its caches for an hour (Opus 4.6 at $10 a million, not $6.25).
    row = reference("sample-session.json")["bdb5af59-a961-4635-a1e3-312937d2413d"]
    [model] = row["modelBreakdowns"]
    five_minute = (
        model["inputTokens"] * 5
        + model["outputTokens"] * 25
        + model["cacheCreationTokens"] * Decimal("6.25")
        + model["cacheReadTokens"] * Decimal("0.5")
    ) / 1_000_000
    assert Decimal(repr(row["totalCost"])) > five_minute + CENT
