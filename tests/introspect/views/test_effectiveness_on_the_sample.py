"""The effectiveness page and `introspect effectiveness --json` on the bundled sample, recomputed by hand.

Nothing here goes through waysweb's code: the sample's files are read as JSON lines (the transcripts,
the decision log and its archive, the event logs), each prompt opens a conversation turn, a way is
placed in the turn whose prompt came last at most 3 s after it was logged (a hook logs a prompt's scan
just after its line), and the rates, differences and 95 % intervals are computed below from their
formulas. A correction is decided by a person's reading of the next prompt (CORRECTIONS), not by the
rule. The three ways with enough turns in both arms must show exactly these numbers; a way with fewer
must say "too few turns".
"""

from __future__ import annotations

import gzip
import json
import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from io import StringIO
from math import sqrt
from pathlib import Path

import pytest
from django.core.management import call_command

from lib.locations import SAMPLE_HOME

pytestmark = pytest.mark.django_db

WAYS = ("softwaredev/code/testing", "softwaredev/delivery/commits", "softwaredev/architecture/design")
FEW = "softwaredev/docs/adr"  # shown on 6 turns, matched and not shown on 2
MINIMUM = 10
LEAD = timedelta(seconds=3)
STATE = SAMPLE_HOME / ".local/state/agent-ways"
SHOWN = {"fired", "redisclosed"}
NOT_SHOWN = {"near_miss", "keyword_gated", "judge_block", "held_refire", "held_context_cap"}
EVENT_ARM = {
    "way_fired": "shown",
    "way_redisclosed": "shown",
    "way_nearmiss": "other",
    "way_keyword_gated": "other",
    "way_suppressed": "other",
}
# The sample's prompts that reject or redirect the reply before them, as a person reads them (the
# first seven are labelled so in tests/introspect/rules/correction_labels.jsonl; the rest are S15-S18's).
CORRECTIONS = frozenset(
    {
        "I say finished, not done",
        "I can't commit to a migration date yet, leave the rollout section open",
        "still failing, same assertion",
        "fix the lua script, the refill uses the wrong time unit",
        "allow the node security group instead of the CIDR",
        "write unit tests for the login form, vitest not jest, and mock the api client",
        "still failing, test_refill_after_idle is red",
        "no, don't patch time.monotonic in the test, inject the clock",
        "that broke the integration tests, the lua script uses the wrong time unit",
        "the metric name is wrong, counters must end in _total",
        "the snapshot is still failing",
        "no, write a proper conventional commit message",
        "move the country list into its own module, not inline in the form",
        "the e2e spec uses the wrong label, it's Postcode now",
        "no, no separate worker process, we run on a single dyno",
        "the tolerance belongs in settings, not in the code",
        "still failing: the admin check is missing on the route",
        "that's not what I asked, I meant for replays only",
        "the argument is still wrong, it is parameter_group_name",
        "no, give it a proper conventional message",
        "no, one module with workspaces is enough for two environments",
    }
)
Z = 1.959963984540054


def when(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


@dataclass
class HandTurn:
    prompt: str
    at: datetime
    tool_error: bool = False
    interrupted: bool = False
    retried: bool = False
    churned: bool = False
    corrected: bool = False

    @property
    def trouble(self) -> bool:
        return self.tool_error or self.corrected or self.interrupted or self.retried or self.churned


def prompt_text(line: dict) -> str | None:
    """A person's prompt: a trunk user line whose content is words, not a tool result or a summary."""
    if line.get("type") != "user" or line.get("isMeta") or line.get("isCompactSummary"):
        return None
    content = line.get("message", {}).get("content")
    return content if isinstance(content, str) and content.strip() else None


def blocks(line: dict) -> list[dict]:
    content = line.get("message", {}).get("content")
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def failed(block: dict) -> bool:
    text = block.get("content") if isinstance(block.get("content"), str) else ""
    return block.get("is_error") is True or text.startswith(("Exit code", "Error: Exit code"))


def session_turns(path: Path) -> list[HandTurn]:
    """A trunk's turns, each with what followed its prompt up to the next one."""
    turns: list[HandTurn] = []
    calls: dict[str, dict] = {}  # tool_use id → its block, in this turn
    failed_calls: list[dict] = []
    edits: dict[str, int] = {}
    for raw in path.read_text().splitlines():
        line = json.loads(raw)
        text = prompt_text(line)
        if text is not None:
            if turns and text in CORRECTIONS:
                turns[-1].corrected = True
            turns.append(HandTurn(text, when(line["timestamp"])))
            calls, failed_calls, edits = {}, [], {}
            continue
        if not turns:
            continue
        turn = turns[-1]
        for block in blocks(line):
            if block.get("type") == "tool_use":
                same = (block["name"], json.dumps(block["input"], sort_keys=True))
                turn.retried |= same in failed_calls
                calls[block["id"]] = block
                target = block["input"].get("file_path") if block["name"] in ("Edit", "Write") else None
                if target:
                    edits[target] = edits.get(target, 0) + 1
                    turn.churned |= edits[target] >= 3
            elif block.get("type") == "tool_result" and failed(block):
                turn.tool_error = True
                call = calls.get(block.get("tool_use_id"))
                if call:
                    failed_calls.append((call["name"], json.dumps(call["input"], sort_keys=True)))
            elif block.get("type") == "text" and block.get("text", "").startswith("[Request interrupted"):
                turn.interrupted = True
    return turns


def transcripts() -> dict[str, list[HandTurn]]:
    projects = SAMPLE_HOME / ".claude/projects"
    return {path.stem: session_turns(path) for path in sorted(projects.glob("*/*.jsonl"))}


def records(path: Path) -> list[dict]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt") as handle:
        return [json.loads(raw) for raw in handle if raw.strip()]


def placed(turns: list[HandTurn], at: datetime) -> int | None:
    """The index of the turn in progress at `at`: its prompt the last one at most LEAD after it."""
    found = None
    for index, turn in enumerate(turns):
        if turn.at <= at + LEAD:
            found = index
    return found


def arms_by_hand() -> tuple[dict, dict[str, list[HandTurn]]]:
    """Per way, the (session, turn) keys of each arm: from the decision log for a session that has
    one, else from its event logs."""
    sessions = transcripts()
    arms: dict[str, dict[str, set]] = {way: {"shown": set(), "other": set()} for way in (*WAYS, FEW)}
    decided: set[str] = set()
    for path in sorted(STATE.glob("decisions*.jsonl*")):
        for record in records(path):
            if record["kind"] != "scan":
                continue
            decided.add(record["session"])
            turns = sessions.get(record["session"])
            at = placed(turns, when(record["ts"])) if turns else None
            for outcome in record["outcomes"]:
                arm = (
                    "shown"
                    if outcome["result"] in SHOWN
                    else "other"
                    if outcome["result"] in NOT_SHOWN
                    else None
                )
                if at is not None and arm and outcome["way"] in arms:
                    arms[outcome["way"]][arm].add((record["session"], at))
    logs = [p for p in STATE.glob("events*.jsonl*") if "preserved" not in p.name]
    logs.append(SAMPLE_HOME / ".claude/stats/events.jsonl")
    for path in logs:
        for row in records(path):
            session, arm = row.get("session"), EVENT_ARM.get(row.get("event"))
            if session in decided or row.get("way") not in arms or not arm or session not in sessions:
                continue
            at = placed(sessions[session], when(row["ts"]))
            if at is not None:
                arms[row["way"]][arm].add((session, at))
    for way in arms.values():
        way["other"] -= way["shown"]  # a turn that showed the way is in the shown arm
    return arms, sessions


def wilson(hits: int, n: int) -> tuple[float, float]:
    p = hits / n
    centre = (p + Z * Z / (2 * n)) / (1 + Z * Z / n)
    half = Z * sqrt(p * (1 - p) / n + Z * Z / (4 * n * n)) / (1 + Z * Z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def newcombe(a: int, n: int, b: int, m: int) -> tuple[float, float, float]:
    """Difference of two proportions with Newcombe's hybrid score interval (his method 10)."""
    p, q = a / n, b / m
    (l1, u1), (l2, u2) = wilson(a, n), wilson(b, m)
    d = p - q
    return d, d - sqrt((p - l1) ** 2 + (u2 - q) ** 2), d + sqrt((u1 - p) ** 2 + (q - l2) ** 2)


def test_the_interval_formulas_here_give_newcombes_published_example():
    # Newcombe (1998), Statistics in Medicine 17:873, table II, example (a): 56/70 − 48/80.
    d, low, high = newcombe(56, 70, 48, 80)
    assert (round(d, 4), round(low, 4), round(high, 4)) == (0.2, 0.0524, 0.3339)


def counted(turns: dict[str, list[HandTurn]], keys: set, signal: str) -> tuple[int, int]:
    return sum(getattr(turns[s][i], signal) for s, i in keys), len(keys)


def pct(value: float) -> str:
    return f"{value * 100:.0f} %"


def arm_text(hits: int, n: int) -> str:
    low, high = wilson(hits, n)
    return f"{hits} of {n} · {pct(hits / n)} ({pct(low)}–{pct(high)})"


@pytest.fixture(scope="module")
def by_hand():
    return arms_by_hand()


def ingested(client) -> tuple[str, dict]:
    """The page and the command's document, from one import of the sample (it takes a while)."""
    page = client.get("/ways/effectiveness/").content.decode()
    out = StringIO()
    call_command("introspect", "effectiveness", "--json", stdout=out)
    return page, json.loads(out.getvalue())


def row_of(page: str, way: str) -> str:
    """The way's row as it reads (its tags left out)."""
    row = page[page.index(f">{way}</a>") :]
    return re.sub(r"<[^>]+>", "", row[: row.index("</tr>")])


def three_signals(sessions, shown: set, other: set):
    for signal, hand in (("trouble", "trouble"), ("tool_errors", "tool_error"), ("correction", "corrected")):
        yield signal, counted(sessions, shown, hand), counted(sessions, other, hand)


def test_three_ways_have_enough_turns_in_both_arms(by_hand):
    arms, _ = by_hand
    for way in WAYS:
        assert len(arms[way]["shown"]) >= MINIMUM and len(arms[way]["other"]) >= MINIMUM, way


def test_the_page_and_the_json_show_the_arms_counted_by_hand(client, sample, by_hand):
    arms, sessions = by_hand
    page, document = ingested(client)
    total = sum(len(turns) for turns in sessions.values())
    assert document["turns"] == total and f"{total} conversation turns in the frame" in page
    for way in WAYS:
        found = next(w for w in document["ways"] if w["way"] == way)
        shown, other = arms[way]["shown"], arms[way]["other"]
        assert (found["shown_turns"], found["not_shown_turns"]) == (len(shown), len(other)), way
        for signal, (a, n), (b, m) in three_signals(sessions, shown, other):
            rates = found["rates"][signal]
            assert (rates["shown"]["hits"], rates["shown"]["n"]) == (a, n), (way, signal)
            assert (rates["not_shown"]["hits"], rates["not_shown"]["n"]) == (b, m), (way, signal)
            assert (rates["shown"]["low"], rates["shown"]["high"]) == tuple(round(x, 4) for x in wilson(a, n))
            assert (rates["not_shown"]["low"], rates["not_shown"]["high"]) == tuple(
                round(x, 4) for x in wilson(b, m)
            )
            d, low, high = newcombe(a, n, b, m)
            assert rates["difference"] == {
                "estimate": round(d, 4),
                "low": round(low, 4),
                "high": round(high, 4),
            }
            assert rates["too_few_turns"] is False
        # The page's row prints the trouble arms and their difference.
        _, (a, n), (b, m) = next(three_signals(sessions, shown, other))
        d, low, high = newcombe(a, n, b, m)
        # The same on the whole page and on the way's own (its tab: the page framed to the way).
        own = client.get("/ways/effectiveness/", {"way": way}).content.decode()
        for row in (row_of(page, way), row_of(own, way)):
            assert arm_text(a, n) in row and arm_text(b, m) in row, way
            assert f"{d * 100:+.0f} points ({low * 100:+.0f} to {high * 100:+.0f})" in row, way
            assert f"{len(shown)} · {len(other)}" in row, way
    # A way matched on too few turns says so instead of a number.
    few = next(w for w in document["ways"] if w["way"] == FEW)
    assert (few["shown_turns"], few["not_shown_turns"]) == (len(arms[FEW]["shown"]), len(arms[FEW]["other"]))
    assert 0 < few["not_shown_turns"] < MINIMUM
    assert all(r["too_few_turns"] and r["difference"] is None for r in few["rates"].values())
    assert "too few turns (needs 10 in each arm)" in row_of(page, FEW)


def test_the_sample_has_a_way_shown_with_less_trouble_and_one_with_more(by_hand):
    """The story the sample tells (sample/story/s15-s18): tests written first go with fewer failures;
    the design way's answers are often corrected."""
    arms, sessions = by_hand
    testing, design = arms["softwaredev/code/testing"], arms["softwaredev/architecture/design"]
    _, _, high = newcombe(
        *counted(sessions, testing["shown"], "trouble"), *counted(sessions, testing["other"], "trouble")
    )
    assert high < 0
    d, _, _ = newcombe(
        *counted(sessions, design["shown"], "trouble"), *counted(sessions, design["other"], "trouble")
    )
    assert d > 0
