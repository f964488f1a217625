"""A session's tokens and cost are its messages' final counts, at each message's model's price.

The expected figures are worked out here from the JSONL files themselves (json, a dict, max):
not by the deriver's rule, and not from ccusage 17.2.1, whose first-line counts undercount
output (peers.md §8). ccusage 20's own figures are held to in test_fields_ccusage.py.
"""

from __future__ import annotations

import json
import shutil
from collections import defaultdict
from decimal import Decimal
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from introspect.models import Session
from introspect.rules import pricing
from tests.fixtures import TRANSCRIPTS

pytestmark = pytest.mark.django_db

REPO = Path(__file__).resolve().parents[3]
SAMPLE_PROJECTS = REPO / "sample" / "home" / ".claude" / "projects"
FIELDS = ("input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
ONE_HOUR = "ephemeral_1h_input_tokens"


def expected_usage(files: list[Path]) -> tuple[tuple[int, ...], Decimal | None]:
    """(input, output, cache write, cache read) and cost of the session these files make up.

    Every assistant line with a usage; lines sharing message.id + requestId are one message whose
    count of each field is the largest any of its lines gives; a line without both ids stands alone.
    Cost: the tokens of each model summed, times that model's list prices, the 1-hour cache writes
    (usage.cache_creation) at theirs; `<synthetic>` is not priced. No message of these files
    reaches a long-context tier or runs in fast mode.
    """
    messages: dict[object, dict] = {}
    for path in files:
        for number, raw in enumerate(path.read_bytes().splitlines()):
            try:
                line = json.loads(raw)
            except ValueError:
                continue
            message = line.get("message") if isinstance(line, dict) else None
            if line.get("type") != "assistant" or not isinstance(message, dict):
                continue
            counts = message.get("usage")
            if not isinstance(counts, dict):
                continue
            ids = (message.get("id"), line.get("requestId"))
            key = ids if all(isinstance(part, str) and part for part in ids) else (str(path), number)
            found = messages.setdefault(
                key, {"model": message.get("model"), **dict.fromkeys((*FIELDS, ONE_HOUR), 0)}
            )
            split = counts.get("cache_creation") or {}
            for name, value in [
                *((name, counts.get(name)) for name in FIELDS),
                (ONE_HOUR, split.get(ONE_HOUR)),
            ]:
                if isinstance(value, int) and not isinstance(value, bool):
                    found[name] = max(found[name], value)
    totals = tuple(sum(m[name] for m in messages.values()) for name in FIELDS)
    by_model: dict[str, dict[str, int]] = defaultdict(lambda: dict.fromkeys((*FIELDS, ONE_HOUR), 0))
    for m in messages.values():
        for name in (*FIELDS, ONE_HOUR):
            by_model[m["model"]][name] += m[name]
    cost = None
    for model, tokens in by_model.items():
        price = pricing.price_for(model)
        if model == "<synthetic>" or price is None:
            continue
        cost = (cost or 0) + (
            tokens["input_tokens"] * price.input
            + tokens["output_tokens"] * price.output
            + (tokens["cache_creation_input_tokens"] - tokens[ONE_HOUR]) * price.cache_write
            + tokens[ONE_HOUR] * price.cache_write_1h
            + tokens["cache_read_input_tokens"] * price.cache_read
        ) / 1_000_000
    return totals, cost  # exact: the stored cost is never rounded


def stored(session: Session) -> tuple[int, ...]:
    return tuple(getattr(session, name) for name in FIELDS)


def session_files(projects: Path, sid: str) -> list[Path]:
    """A session's trunk file and its subagent files (formats-claude-code.md §1, §11)."""
    trunks = list(projects.glob(f"*/{sid}.jsonl"))
    return trunks + sorted(projects.glob(f"*/{sid}/subagents/*.jsonl"))


def ingest() -> None:
    call_command("ingest", stdout=StringIO())


def session_ids(path: Path) -> list[str]:
    found = []
    for raw in path.read_bytes().splitlines():
        line = json.loads(raw)
        if isinstance(line, dict) and isinstance(line.get("sessionId"), str):
            found.append(line["sessionId"])
    return found


def test_each_fixture_transcripts_totals_and_cost_are_its_messages_final_counts(home):
    projects = home.root / ".claude" / "projects"
    laid_out = {}
    for n, path in enumerate(sorted(TRANSCRIPTS.glob("*.jsonl")), start=1):
        ids = session_ids(path)
        if not any(json.loads(raw).get("type") == "assistant" for raw in path.read_bytes().splitlines()):
            continue  # the fasthooks hook log is not a transcript
        target = projects / f"-fixture-{n}" / f"{ids[0]}.jsonl"
        target.parent.mkdir(parents=True)
        shutil.copy(path, target)
        laid_out[ids[0]] = target
    ingest()
    assert len(laid_out) == 5
    for sid, path in laid_out.items():
        tokens, cost = expected_usage([path])
        session = Session.objects.get(sid=sid)
        assert stored(session) == tokens, path.name
        assert (session.cost_usd, session.unpriced_messages) == (cost, 0), path.name
        assert cost is not None


def test_each_sample_sessions_totals_and_cost_cover_its_trunk_and_subagent_files(home):
    projects = home.root / ".claude" / "projects"
    shutil.copytree(SAMPLE_PROJECTS, projects)
    ingest()
    sids = sorted(path.stem for path in projects.glob("*/*.jsonl"))
    # S03-S05 and S07-S14, and S15-S18 for the effectiveness arms (sample/README.md).
    assert len(sids) == 15 and Session.objects.count() == 15
    with_subagents = 0
    for sid in sids:
        files = session_files(projects, sid)
        with_subagents += len(files) > 1
        tokens, cost = expected_usage(files)
        session = Session.objects.get(sid=sid)
        assert stored(session) == tokens, sid
        assert (session.cost_usd, session.unpriced_messages) == (cost, 0), sid
    assert with_subagents == 1  # the subagent's own messages (another model) are in its session's totals


def test_a_fixtures_output_is_its_final_rows_not_ccusages_first_rows(home):
    # marot/spotter's subagent.jsonl (Claude Code 2.1.38): 28 usage lines, 12 messages.
    source = TRANSCRIPTS / "marot_spotter_subagent.jsonl"
    target = home.root / ".claude" / "projects" / "-p" / "491e126e-1e71-469c-ade2-fcc8af567c74.jsonl"
    target.parent.mkdir(parents=True)
    shutil.copy(source, target)
    ingest()
    session = Session.objects.get(sid=target.stem)
    assert session.output_tokens == 1586  # ccusage 17.2.1 reports 534, the messages' first lines
