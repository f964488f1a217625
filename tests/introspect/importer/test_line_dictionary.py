"""Transcript lines packed with a zstd dictionary trained on the database's own lines read back byte
for byte, beside the lines packed before it; a row never names a dictionary the database lacks."""

from __future__ import annotations

import json

import orjson
import pytest
import zstandard

from introspect.importer import line_dictionary
from introspect.models import LineDictionary, TranscriptEntry
from lib import linepack
from tests.conftest import ingest

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def small_training(monkeypatch):
    """A dictionary after 300 lines, not 1,000: the mechanics are the same."""
    monkeypatch.setattr(line_dictionary, "TRAIN_LINES", 300)
    monkeypatch.setattr(line_dictionary, "TRAIN_BYTES", 100_000)
    monkeypatch.setattr(line_dictionary, "DICTIONARY_BYTES", 16_384)


def entry(n: int, session: str = "s1") -> dict:
    words = " ".join(f"word{(n * 7 + k) % 97}" for k in range(40 + n % 60))
    return {
        "type": "user",
        "uuid": f"{session}-u{n}",
        "parentUuid": f"{session}-u{n - 1}" if n else None,
        "sessionId": session,
        "cwd": "/work/project",
        "version": "2.1.0",
        "timestamp": f"2026-12-01T10:{n // 60 % 60:02d}:{n % 60:02d}.000Z",
        "message": {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": f"t{n}", "content": words}],
        },
    }


def dictionary_of(row: TranscriptEntry) -> int:
    return zstandard.get_frame_parameters(bytes(row.raw)).dict_id if row.raw_compressed else 0


def test_lines_after_the_first_hundreds_are_packed_with_a_dictionary_stored_beside_them(home):
    path = home.transcript("/p", "s1", *(entry(n) for n in range(200)))
    ingest()
    assert not LineDictionary.objects.exists()  # too few lines seen to learn from
    home.transcript("/p", "s1", *(entry(n) for n in range(200, 600)))
    ingest()
    (stored,) = LineDictionary.objects.all()
    rows = list(TranscriptEntry.objects.order_by("offset"))
    assert {dictionary_of(row) for row in rows[:200]} == {0}
    assert {dictionary_of(row) for row in rows[200:]} == {stored.dict_id}
    # Every row, of either format, gives back its line byte for byte.
    assert [row.line for row in rows] == path.read_bytes().splitlines()


def test_with_a_dictionary_a_line_packs_smaller_than_without(home):
    home.transcript("/p", "s1", *(entry(n) for n in range(700)))
    ingest()
    rows = list(TranscriptEntry.objects.order_by("offset"))[-100:]
    assert {dictionary_of(row) for row in rows} == {LineDictionary.objects.get().dict_id}
    plain = sum(len(linepack.pack(row.line)[0]) for row in rows)
    assert sum(len(bytes(row.raw)) for row in rows) < 0.8 * plain


def test_a_dictionary_trained_in_a_batch_that_rolled_back_is_stored_with_the_next_rows(home):
    home.transcript("/p", "s1", *(entry(n) for n in range(400)))
    ingest()
    trained = LineDictionary.objects.get()
    LineDictionary.objects.all().delete()  # as if its batch had rolled back after training
    home.transcript("/p", "s2", *(entry(n, "s2") for n in range(10)))
    ingest()
    assert LineDictionary.objects.get().dict_id == trained.dict_id
    assert {dictionary_of(row) for row in TranscriptEntry.objects.filter(session_key="s2")} == {
        trained.dict_id
    }


def test_a_dictionary_stored_by_another_importer_is_the_one_used(home):
    home.transcript("/p", "s1", *(entry(n) for n in range(400)))
    ingest()
    theirs = LineDictionary.objects.get().dict_id
    line_dictionary.TRAINER = line_dictionary.Trainer()  # a second process: nothing seen yet
    home.transcript("/p", "s2", *(entry(n, "s2") for n in range(10)))
    ingest()
    assert {dictionary_of(row) for row in TranscriptEntry.objects.filter(session_key="s2")} == {theirs}


def test_a_line_holding_a_secret_is_not_learnt_from(home):
    secret = "ghp_" + "Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2"
    leaky = {**entry(0), "uuid": "leak", "message": {"role": "user", "content": f"token {secret} " * 20}}
    home.transcript("/p", "s1", *([leaky] * 5), *(entry(n) for n in range(1, 400)))
    ingest()
    assert TranscriptEntry.objects.filter(has_secret=True).exists()
    assert secret.encode() not in bytes(LineDictionary.objects.get().data)


def test_a_row_naming_a_dictionary_the_database_lacks_is_a_corrupt_line():
    trained = linepack.train([orjson.dumps(entry(n)) for n in range(400)], 16_384)
    packed, compressed = linepack.pack(orjson.dumps(entry(1)), trained)
    linepack._dictionaries.pop(trained.dict_id)  # another process: only the database to ask
    vars(linepack._local).clear()
    with pytest.raises(linepack.CorruptLine):
        linepack.unpack(packed, compressed)
    LineDictionary.objects.create(dict_id=trained.dict_id, data=trained.data, lines=400)
    assert json.loads(linepack.unpack(packed, compressed))["uuid"] == "s1-u1"


def test_a_long_pass_read_by_the_worker_packs_with_a_dictionary_trained_ahead_of_it(home, settings):
    # The worker packs lines before any batch of them is written: the dictionary is trained on the
    # pass's first lines before it starts, stored before any row names it.
    settings.WAYSWEB_PREPARE_WORKER_BYTES = 1
    paths = [home.transcript("/p", f"s{k}", *(entry(n, f"s{k}") for n in range(300))) for k in range(2)]
    ingest()
    (stored,) = LineDictionary.objects.all()
    rows = list(TranscriptEntry.objects.all())
    assert {dictionary_of(row) for row in rows if row.raw_compressed} == {stored.dict_id}
    assert sorted(row.line for row in rows) == sorted(b"".join(p.read_bytes() for p in paths).splitlines())
