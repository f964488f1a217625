"""0036: the sessions built before Session.waiting_parents get the parents a rebuild would keep."""

from __future__ import annotations

import importlib
import shutil
from pathlib import Path

import pytest
from django.apps import apps
from django.conf import settings

from introspect.importer.run import Options
from introspect.models import Session
from tests.introspect.derive.test_extend import SID, fire, grow, start, user
from waysweb import passes

pytestmark = pytest.mark.django_db

migration = importlib.import_module("introspect.migrations.0036_session_waiting_parents")
SAMPLE = Path(__file__).resolve().parents[3] / "sample" / "home"


def test_it_finds_the_parents_a_rebuild_keeps(home):
    shutil.copytree(SAMPLE, home.root, dirs_exist_ok=True)
    grow(home, start(0), fire(1, "a/one"))
    home.transcript("/home/dev/app", SID, user("u1", None, 2, "first"), user("u3", "u2", 4, "third"))
    passes.sessions_pass(settings.WAYSWEB_LOCATIONS, Options(ways=False))
    built = dict(Session.objects.values_list("sid", "waiting_parents"))
    assert built[SID] == ["u2"] and sum(1 for sid, parents in built.items() if parents == []) > 5
    Session.objects.update(waiting_parents=[])  # as the column's default left them

    migration.find_waiting_parents(apps, None)

    assert dict(Session.objects.values_list("sid", "waiting_parents")) == built
