"""The full-text index of transcript entries (SQLite's FTS5, its content the unpacking view) holds
exactly the texts the entries store: filled from the batch's own texts, as the view would give them,
whether a worker prepared the lines or the writer did, a secret's text masked in both."""

from __future__ import annotations

import pytest
from django.db import connection

from introspect.importer import entry_rows
from introspect.importer.run import Options
from introspect.models import TranscriptEntry
from tests.introspect.importer import test_prefetch
from waysweb import passes

pytestmark = pytest.mark.django_db


def index_matches_content() -> None:
    """FTS5's own check of the index against its content (`rank` 1: the external content too)."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {entry_rows.FTS_TABLE}({entry_rows.FTS_TABLE}, rank) VALUES ('integrity-check', 1)"
        )


def hits(word: str) -> set[int]:
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT rowid FROM {entry_rows.FTS_TABLE} WHERE {entry_rows.FTS_TABLE} MATCH %s", [f'"{word}"']
        )
        return {pk for (pk,) in cursor.fetchall()}


@pytest.mark.parametrize("least", [0, 1], ids=["one process", "a worker"])
def test_the_index_holds_the_texts_the_entries_store(home, least, settings):
    if connection.vendor != "sqlite":
        pytest.skip("PostgreSQL indexes the column itself (a GIN expression index)")
    test_prefetch.corpus(home, sessions=3, lines=120)
    settings.WAYSWEB_PREPARE_WORKER_BYTES = least
    passes.sessions_pass(settings.WAYSWEB_LOCATIONS, Options(ways=False))
    passes.sessions_pass(settings.WAYSWEB_LOCATIONS, Options(ways=False))  # a re-run indexes nothing twice
    index_matches_content()
    indexed = TranscriptEntry.objects.filter(inert=False)
    assert hits("crlf") == set(indexed.filter(text="crlf").values_list("pk", flat=True))
    assert len(hits("crlf")) == 3
    assert not hits(test_prefetch.TOKEN)  # masked in the text, so in the index
