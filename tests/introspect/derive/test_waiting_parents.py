"""Session.waiting_parents: what an extension asks instead of every older line's parent.

A new trunk line that an older line names as its parent makes the session rebuild whole
(derive/extend.py). The question used to be asked of every older line (no index serves
parent_uuid); now of the parents the session keeps as waiting. Here random growth — lines naming
the line before, an older one, one not written yet or never, none; repeated uuids; compactions;
subagent files; a trunk cut back and written again — gets the old query's answer on every
extension, and the kept parents equal a count over the built lines after every pass.
"""

from __future__ import annotations

import random

import orjson
import pytest
from django.db.models import Q

from introspect.derive import extend, trunk_facts
from introspect.importer.run import Options
from introspect.models import Session, TranscriptEntry
from tests.conftest import append
from tests.introspect.derive.test_extend import (
    SID,
    entry,
    fire,
    grow,
    home_locations,
    rebuilt_whole,
    reply,
    snapshot,
    start,
    user,
)
from waysweb import passes

pytestmark = pytest.mark.django_db


def old_answer(session: Session, trunk, trunk_new: list[TranscriptEntry]) -> bool:
    """entries_extend as it was: every older line of the trunk asked by parent and by uuid."""
    if session.project_id is None and any(e.cwd for e in trunk_new):
        return False
    uuids = [e.uuid for e in trunk_new if e.uuid]
    if not uuids:
        return True
    older = TranscriptEntry.objects.filter(source=trunk, pk__lte=session.built_entry_id)
    return not older.filter(Q(parent_uuid__in=uuids) | Q(uuid__in=uuids)).exists()


def counted(session: Session) -> list[str] | None:
    """The waiting parents counted over every built line of the session's trunk."""
    if session.transcript_id is None:
        return []
    lines = TranscriptEntry.objects.filter(source_id=session.transcript_id, pk__lte=session.built_entry_id)
    uuids = {uuid for uuid in lines.values_list("uuid", flat=True) if uuid}
    waiting = {parent for parent in lines.values_list("parent_uuid", flat=True) if parent} - uuids
    return sorted(waiting) if len(waiting) <= trunk_facts.WAITING_KEPT else None


@pytest.fixture
def answers(monkeypatch) -> list[tuple[bool, bool]]:
    """(new, old) answer of every entries_extend call."""
    found: list[tuple[bool, bool]] = []
    real = extend.entries_extend

    def spy(session, trunk, trunk_new):
        old = old_answer(session, trunk, trunk_new)
        answer = real(session, trunk, trunk_new)
        found.append((answer[0], old))
        return answer

    monkeypatch.setattr(extend, "entries_extend", spy)
    return found


class Growth:
    """A trunk and a subagent file grown at random, a second a line."""

    def __init__(self, home, rng: random.Random):
        self.rng = rng
        self.trunk = home.transcript("/home/dev/app", SID)
        self.agent = self.trunk.with_suffix("") / "subagents" / "agent-x.jsonl"
        self.second = 10
        self.written: list[str] = []  # uuids written to the trunk, in order
        self.unborn = [f"later-{n}" for n in range(12)]  # named as parents before they are written
        self.lines: list[bytes] = []

    def uuid(self) -> str | None:
        roll = self.rng.random()
        if roll < 0.1 and self.unborn:
            return self.unborn.pop(self.rng.randrange(len(self.unborn)))  # a parent waited for it
        if roll < 0.14 and self.written:
            return self.rng.choice(self.written)  # a repeated uuid
        if roll < 0.2:
            return None  # a line without one
        return f"u{len(self.written)}-{self.rng.randrange(10**6)}"

    def parent(self) -> str | None:
        roll = self.rng.random()
        if roll < 0.55 and self.written:
            return self.written[-1]
        if roll < 0.65 and self.written:
            return self.rng.choice(self.written)
        if roll < 0.75 and self.unborn:
            return self.rng.choice(self.unborn)
        if roll < 0.82:
            return f"never-{self.rng.randrange(10**6)}"
        return None

    def trunk_line(self) -> bytes:
        self.second += 1
        uuid, parent = self.uuid(), self.parent()
        roll = self.rng.random()
        if roll < 0.08:  # a compaction: no parent, a logical one
            found = entry(
                "system", uuid, None, self.second, subtype="compact_boundary", logicalParentUuid=parent
            )
        elif roll < 0.5 or uuid is None:  # a line without a uuid: a reply (every prompt has one)
            found = reply(uuid or "none", parent, self.second, {"type": "text", "text": "ok"})
            if uuid is None:
                del found["uuid"]
        else:
            found = user(uuid, parent, self.second, f"prompt {self.second}")
        if uuid:
            self.written.append(uuid)
        return orjson.dumps(found) + b"\n"

    def agent_line(self) -> bytes:
        """A subagent's line that may carry a uuid the trunk waits for, or name one of the trunk's."""
        self.second += 1
        uuid = self.rng.choice([*self.unborn, "side-1", "side-2"]) if self.unborn else "side-1"
        parent = self.rng.choice(self.written) if self.written else None
        found = {**user(uuid, parent, self.second, "go"), "isSidechain": True, "agentId": "x"}
        return orjson.dumps(found) + b"\n"

    def step(self) -> None:
        roll = self.rng.random()
        if roll < 0.04 and self.lines:
            # The trunk cut back and written again (a new generation): its first lines, then more.
            keep = self.lines[: self.rng.randrange(len(self.lines))]
            self.trunk.write_bytes(b"".join(keep))
            self.lines = keep
            return
        if roll < 0.15:
            append(self.agent, self.agent_line())
            return
        new = [self.trunk_line() for _ in range(self.rng.choice([1, 1, 1, 2, 3]))]
        append(self.trunk, *new)
        self.lines += new


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize(("kept", "chunk"), [(32, 5000), (32, 3), (2, 3)])
def test_random_growth_gets_the_old_answer_and_keeps_the_waiting_parents_counted(
    home, answers, monkeypatch, seed, kept, chunk
):
    monkeypatch.setattr(trunk_facts, "WAITING_KEPT", kept)  # 2: past it, the lines are asked
    monkeypatch.setattr(trunk_facts, "CHUNK", chunk)  # 3: a rebuild looks parents up chunk by chunk
    grow(home, start(0), fire(1, "a/one"))
    growth = Growth(home, random.Random(seed))
    for _ in range(60):
        growth.step()
        passes.sessions_pass(home_locations(), Options(ways=False))
        session = Session.objects.get(sid=SID)
        assert session.waiting_parents == counted(session)

    assert all(new == old for new, old in answers), answers
    assert sum(new for new, _ in answers) > 10  # the tail path really ran
    assert any(not old for _, old in answers)  # and a parent or a repeat really sent it to a rebuild
    assert snapshot() == rebuilt_whole()


def test_a_parent_waited_for_arriving_rebuilds_the_session_and_stops_waiting(home, extended):
    grow(home, start(0), fire(1, "a/one"))
    trunk = home.transcript("/home/dev/app", SID, user("u1", None, 2, "first"), user("u3", "u2", 4, "third"))
    passes.sessions_pass(home_locations(), Options(ways=False))
    assert Session.objects.get(sid=SID).waiting_parents == ["u2"]

    append(trunk, orjson.dumps(user("u4", "u3", 5, "fourth")) + b"\n")  # nothing waited for it
    passes.sessions_pass(home_locations(), Options(ways=False))
    assert extended[-1] is True
    assert Session.objects.get(sid=SID).waiting_parents == ["u2"]

    append(trunk, orjson.dumps(user("u2", "u1", 3, "second, written late")) + b"\n")
    passes.sessions_pass(home_locations(), Options(ways=False))
    assert extended[-1] is False  # u3 now walks to u2: rebuilt whole
    assert Session.objects.get(sid=SID).waiting_parents == []
    assert snapshot() == rebuilt_whole()
