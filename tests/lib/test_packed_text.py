"""An entry's long text is stored packed on SQLite and nothing that reads it can tell: the ORM, search
(every word, the snippet, identical lines grouped), pattern lookups, edits that re-index, old rows."""

from __future__ import annotations

import importlib
from io import StringIO

import pytest
from django.apps import apps
from django.core.management import call_command
from django.db import connection

from introspect.models import TranscriptEntry
from introspect.queries import search_text
from introspect.queries.search_filters import SearchFilters
from lib import linepack
from tests.introspect.queries.test_search import P, S, assistant, imported, prompt, tool_result

pytestmark = pytest.mark.django_db

migration = importlib.import_module("introspect.migrations.0034_entry_text_packed")

WORDS = " ".join(f"lemma{n:03d}" for n in range(400))  # 3,200 bytes: packed on SQLite
LONG_PROMPT = f"please look at these words: {WORDS} and then stop"


def stored_type(uuid: str) -> str:
    """How the database holds an entry's text: "text" or "blob" (PostgreSQL's type name as SQLite's)."""
    typeof = "typeof(text)"
    if connection.vendor != "sqlite":
        typeof = "CASE pg_typeof(text) WHEN 'bytea'::regtype THEN 'blob' ELSE 'text' END"
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {typeof} FROM {TranscriptEntry._meta.db_table} WHERE uuid = %s", [uuid])
        return cursor.fetchone()[0]


def with_long_lines(home) -> None:
    imported(home, prompt_text=LONG_PROMPT)
    home.transcript(
        P,
        S,
        assistant(
            "a3", "r2", 30, {"type": "tool_use", "id": "toolu_2", "name": "Bash", "input": {"command": "ls"}}
        ),
        tool_result("r3", "a3", 31, "toolu_2", WORDS),
        prompt("u4", "r3", 40, "short"),
        tool_result("r4", "u4", 41, "toolu_2", WORDS),  # the same text again: one hit
    )
    call_command("ingest", stdout=StringIO())


def test_a_long_text_is_stored_packed_on_sqlite_and_read_as_it_was(home):
    with_long_lines(home)
    entry = TranscriptEntry.objects.get(uuid="u1")
    assert entry.text == LONG_PROMPT
    assert TranscriptEntry.objects.values_list("text", flat=True).get(uuid="r3") == WORDS
    if connection.vendor == "sqlite":
        assert stored_type("u1") == "blob"
        assert stored_type("u4") == "text"  # a short text stays as it is


def test_search_finds_every_word_of_a_long_text(home):
    with_long_lines(home)
    for n in (0, 199, 399):
        assert search_text.text_count([f"lemma{n:03d}"]) == 2  # the prompt, and the result text once
    assert search_text.text_count(["stop"]) == 1


def test_identical_long_texts_of_a_session_are_one_hit(home):
    with_long_lines(home)
    groups = search_text.text_groups(["lemma123"], SearchFilters(), limit=10, offset=0)
    assert sorted(group.count for group in groups) == [1, 2]  # the prompt; the result seen twice


def test_the_snippet_of_a_long_text_shows_the_words_around_the_match(home):
    with_long_lines(home)
    entry = TranscriptEntry.objects.get(uuid="u1")
    marked = search_text.snippets(["lemma200"], [entry.pk])[entry.pk]
    assert f"{search_text.OPEN}lemma200{search_text.CLOSE}" in marked
    assert "lemma199" in marked and "lemma201" in marked


def test_a_pattern_lookup_matches_the_text_not_its_stored_bytes(home):
    with_long_lines(home)
    assert TranscriptEntry.objects.filter(text__icontains="LEMMA250", is_prompt=True).count() == 1
    assert TranscriptEntry.objects.filter(text__startswith="please look").count() == 1
    assert TranscriptEntry.objects.filter(text=LONG_PROMPT).count() == 1


def test_an_edited_long_text_is_indexed_as_edited(home):
    with_long_lines(home)
    TranscriptEntry.objects.filter(uuid="u1").update(text=LONG_PROMPT.replace("lemma007", "replaced"))
    assert search_text.text_count(["replaced"]) == 1
    assert search_text.text_count(["lemma007"]) == 1  # the tool result still holds it
    TranscriptEntry.objects.filter(uuid="r3").delete()
    assert search_text.text_count(["lemma007"]) == 1  # r4 holds the same text


@pytest.mark.django_db(transaction=True)
def test_texts_stored_before_packing_are_packed_by_the_migration_and_still_found(home):
    # On PostgreSQL the migration leaves every text as it is: its TOAST compresses long values already.
    packed = "blob" if connection.vendor == "sqlite" else "text"
    with_long_lines(home)
    with connection.schema_editor() as editor:
        migration.unpack_texts(apps, editor)
    assert stored_type("u1") == "text"
    assert search_text.text_count(["lemma300"]) == 2
    with connection.schema_editor() as editor:
        migration.pack_texts(apps, editor)
    assert stored_type("u1") == packed
    assert TranscriptEntry.objects.get(uuid="u1").text == LONG_PROMPT
    assert search_text.text_count(["lemma300"]) == 2
    assert search_text.text_count(["stop"]) == 1


def test_a_text_packs_to_the_same_bytes_every_time():
    assert linepack.pack_text(WORDS) == linepack.pack_text(WORDS) != WORDS
    assert linepack.unpack_text(linepack.pack_text(WORDS)) == WORDS
    assert linepack.pack_text("short") == "short"
