"""A derive's plans computed by a second process are written only where they are still current, and
any chunk it could not plan is planned by the writer (introspect/derive/planner.py). The worker
process itself, and a kill of it, are in tests/faults/test_planner_process.py."""

from __future__ import annotations

import shutil
from datetime import datetime

import pytest
from django.conf import settings
from django.db import connection

from introspect.derive import planner, rebuild, turn_rows
from introspect.importer.run import Options
from introspect.models import Session, WaysEvent
from lib import locations
from tests.introspect.derive.test_extend import snapshot
from waysweb import passes

pytestmark = pytest.mark.django_db


@pytest.fixture
def derived(home) -> list[Session]:
    """The sample imported and derived; its sessions with events, oldest first."""
    shutil.copytree(locations.SAMPLE_HOME, home.root, symlinks=True, dirs_exist_ok=True)
    passes.sessions_pass(settings.WAYSWEB_LOCATIONS, Options(ways=False))
    chosen = list(Session.objects.filter(event_count__gt=0).order_by("pk"))
    assert len(chosen) >= 3
    return chosen


def planned_by_worker(sessions: list[Session]) -> planner.Planned:
    """What the worker sends for these sessions (planner.work, run here)."""
    sent = []
    planner.work([tuple(session.sid for session in sessions)], sent.append)
    [(index, item)] = sent
    assert index == 0 and isinstance(item, planner.Planned)
    return item


def fresh(sessions: list[Session]) -> list[Session]:
    """The sessions as the writer reads them before it writes (sessions.rebuild_sessions)."""
    return [Session.objects.get(pk=session.pk) for session in sessions]


def test_plans_still_current_are_used_in_the_writers_order(derived):
    item = planned_by_worker(derived)
    writers = list(reversed(fresh(derived)))

    plans = planner.current(item, writers)

    assert plans is not None
    assert [plan.session.pk for plan in plans] == [session.pk for session in writers]


def test_a_session_with_an_event_stored_since_its_plan_is_planned_again_by_the_writer(derived):
    item = planned_by_worker(derived)
    newest = WaysEvent.objects.filter(session=derived[1]).order_by("-pk").first()
    newest.pk, newest.sha256, newest.digest = None, "f" * 64, None  # a copy stored after the plan
    newest.save()

    assert planner.current(item, fresh(derived)) is None


def test_a_session_marked_for_a_rebuild_since_its_plan_is_planned_again_by_the_writer(derived):
    # An event of it moved or counted again: the importer marks it (event_rows.settle).
    item = planned_by_worker(derived)
    Session.objects.filter(pk=derived[0].pk).update(derived_version=0)

    assert planner.current(item, fresh(derived)) is None


def test_a_session_the_worker_did_not_plan_is_planned_by_the_writer(derived):
    item = planned_by_worker(derived[:-1])

    assert planner.current(item, fresh(derived)) is None
    assert planner.current(None, fresh(derived)) is None


def test_a_chunk_the_worker_cannot_plan_is_left_to_the_writer(derived, monkeypatch):
    real = rebuild.plans_for

    def failing(sessions):
        if any(session.pk == derived[0].pk for session in sessions):
            raise ValueError("a session it cannot read")
        return real(sessions)

    monkeypatch.setattr(rebuild, "plans_for", failing)
    sent = []
    planner.work([(derived[0].sid,), (derived[1].sid,)], sent.append)

    assert [index for index, _ in sent] == [0, 1]
    assert sent[0][1] == planner.Unplanned("ValueError: a session it cannot read")
    assert [plan.session.pk for plan in sent[1][1].plans] == [derived[1].pk]


def test_plans_written_as_the_worker_made_them_equal_the_writers_own(derived):
    item = planned_by_worker(derived)
    rebuild.write_plans(planner.current(item, fresh(derived)))
    from_worker = snapshot()

    rebuild.rebuild_many(fresh(derived))

    assert snapshot() == from_worker


def test_the_worker_hands_its_turns_over_with_the_stamps_the_writer_stores(derived):
    item = planned_by_worker(derived)
    stamps = [turn[turn_rows.TS_AT] for plan in item.plans for turn in plan.turns]
    assert stamps
    assert {type(stamp) for stamp in stamps} == ({str} if connection.vendor == "sqlite" else {datetime})


def test_no_second_process_inside_a_transaction(derived):
    # The test's own transaction: the worker could not see what it holds.
    assert planner.Planner.start([("a",), ("b",)]) is None


@pytest.mark.django_db(transaction=True)
def test_no_second_process_for_a_single_chunk():
    assert planner.Planner.start([("a",)]) is None
