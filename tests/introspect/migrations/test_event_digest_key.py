"""Events stored before the digest key get the digest the importer gives their line (migration 0038)."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest
from django.db import connection

from lib import hashing

pytestmark = pytest.mark.django_db

MIGRATIONS = Path(__file__).resolve().parents[3] / "introspect" / "migrations"
# Found by its name, not its number: numbers are given when branches merge.
[MIGRATION] = MIGRATIONS.glob("*_event_digest_key.py")
migration = importlib.import_module(f"introspect.migrations.{MIGRATION.stem}")
SHAS = [hashing.sha256(bytes([i])) for i in range(64)]


def test_postgresqls_fill_reads_a_hash_as_digest64_does():
    if connection.vendor != "postgresql":
        pytest.skip("SQLite's fill calls digest64 itself")
    with connection.cursor() as cursor:
        cursor.execute("SELECT s, ('x' || left(s, 16))::bit(64)::bigint FROM unnest(%s::text[]) AS s", [SHAS])
        filled = dict(cursor.fetchall())
    assert filled == {sha: hashing.digest64(sha) for sha in SHAS}
    assert min(filled.values()) < 0 < max(filled.values())  # both halves of the signed range


def test_the_rebuilt_table_keeps_no_unique_key_on_the_hex():
    if connection.vendor != "sqlite":
        pytest.skip("PostgreSQL drops the constraint in place")
    with connection.cursor() as cursor:
        cursor.execute("SELECT sql FROM sqlite_master WHERE name = %s", [migration.TABLE])
        (sql,) = cursor.fetchone()
    assert migration.SHA_UNIQUE not in sql and '"digest" bigint NULL' in sql
