"""0028: lines stored before the scanner are scanned once: their text (and so the search index) masked,
a finding per secret, as a new import leaves them."""

from __future__ import annotations

import importlib

import pytest
from django.apps import apps
from django.db import connection

from introspect.models import SecretFinding, TranscriptEntry
from tests.introspect.views import test_secrets as corpus

pytestmark = pytest.mark.django_db

migration = importlib.import_module("introspect.migrations.0028_secrets")


def fts_hits(word: str) -> int:
    """Rows of the full-text index holding `word` (SQLite's FTS5 table; PostgreSQL indexes the column)."""
    if connection.vendor != "sqlite":
        return TranscriptEntry.objects.filter(text__contains=word).count()
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM introspect_transcriptentry_fts WHERE introspect_transcriptentry_fts MATCH %s",
            [f'"{word}"'],
        )
        return cursor.fetchone()[0]


def test_it_masks_and_notes_what_an_import_before_it_stored(home, settings):
    settings.WAYSWEB_SECRET_SCAN = False  # as an importer before the scanner stored them
    settings.WAYSWEB_SECRETS_MASKED_ONLY = False
    corpus.write_corpus(home)
    corpus.ingest()
    token = corpus.SECRETS["github-token"]
    assert token in TranscriptEntry.objects.get(uuid="p1").text
    assert fts_hits(token) > 0
    assert not SecretFinding.objects.exists()
    assert not TranscriptEntry.objects.exclude(has_secret=None).exists()

    migration.rescan(apps, None)

    assert corpus.leaks("\n".join(TranscriptEntry.objects.values_list("text", flat=True))) == []
    assert fts_hits(token) == 0  # the index followed the column
    assert set(SecretFinding.objects.values_list("kind", flat=True)) == set(corpus.SECRETS)
    assert SecretFinding.objects.filter(spill_name="env.txt").count() == len(corpus.SECRETS)
    # Every line scanned: a page reads again only those that hold one.
    assert TranscriptEntry.objects.get(uuid="p1").has_secret is True
    assert TranscriptEntry.objects.get(uuid="c2").has_secret is False
    assert not TranscriptEntry.objects.filter(has_secret=None).exists()
    # Run again (a re-applied migration): nothing added.
    count = SecretFinding.objects.count()
    migration.rescan(apps, None)
    assert SecretFinding.objects.count() == count
