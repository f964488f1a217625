"""Several machines feed one database: each importer's files are its own, even at the same paths."""

from __future__ import annotations

import shutil
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection, connections

from introspect.importer.lock import importer_lock
from introspect.models import SourceFile, WaysEvent
from tests.conftest import append, line

pytestmark = pytest.mark.django_db


def ingest() -> str:
    out = StringIO()
    call_command("ingest", stdout=out)
    return out.getvalue()


def event(second: int, session: str) -> bytes:
    return line(
        ts=f"2026-11-29T10:00:{second:02d}Z", event="way_fired", way="a/b", trigger="bash", session=session
    )


def test_two_machines_with_the_same_paths_keep_their_own_files(home, settings):
    settings.WAYSWEB_HOST = "alice"
    append(home.live, event(1, "alice-1"), event(2, "shared"))
    ingest()
    # Alice's state folder set aside whole, so that her log keeps its identity (its inode) for her
    # return: written back as new bytes it is another file, unless the inode number came back.
    alices = home.state.rename(home.state.with_name("alices-state"))

    settings.WAYSWEB_HOST = "bob"  # bob's machine: the same path, other lines
    append(home.live, event(3, "bob-1"), event(2, "shared"))
    ingest()
    assert sorted(SourceFile.objects.values_list("host", "rel_path", "generation", "status")) == [
        ("alice", "events.jsonl", 1, "active"),
        ("bob", "events.jsonl", 1, "active"),
    ]
    assert sorted(WaysEvent.objects.values_list("session_key", flat=True)) == ["alice-1", "bob-1", "shared"]

    settings.WAYSWEB_HOST = "alice"  # back on alice's machine, where one more line was written
    shutil.rmtree(home.state)
    alices.rename(home.state)
    append(home.live, event(4, "alice-1"))
    assert "Imported 1 files: 1 lines, 1 imported" in ingest()
    assert SourceFile.objects.get(host="alice").generation == 1
    assert WaysEvent.objects.count() == 4


def test_a_second_importer_is_refused_on_its_machine_and_on_a_shared_sqlite_file(home, settings):
    """PostgreSQL takes one importer per machine (an advisory lock per WAYSWEB_HOST): bob's runs
    beside alice's. One SQLite file takes one importer whatever the host (a lock file beside it):
    bob's is refused like alice's second, and imports every line once the first is done."""
    append(home.live, event(1, "s"))
    other = connections.create_connection("default")
    try:
        settings.WAYSWEB_HOST = "alice"
        with importer_lock(other):
            with pytest.raises(CommandError, match="Only one importer"):
                ingest()
            settings.WAYSWEB_HOST = "bob"
            if connection.vendor == "postgresql":
                assert "1 imported" in ingest()
            else:
                with pytest.raises(CommandError, match="Only one importer"):
                    ingest()
                assert not WaysEvent.objects.exists()  # refused before reading anything
        if connection.vendor != "postgresql":
            assert "1 imported" in ingest()
        assert list(WaysEvent.objects.values_list("session_key", flat=True)) == ["s"]
    finally:
        other.close()
