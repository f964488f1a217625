"""The zstd dictionary transcript lines are packed with (lib/linepack.py): trained once per database on
the first lines an importer stores, kept in the database beside the rows packed with it.

Until an importer has seen TRAIN_LINES lines (and TRAIN_BYTES of them) lines are packed without a
dictionary, as before; then it trains one on them and packs every later line with it. The dictionary
row is written in the transaction of every batch packed with it (an insert that a stored row ignores),
so a batch rolled back or killed never leaves a row naming a dictionary the database does not hold.
Lines in which the scan found a secret are not trained on: a dictionary is never masked or forgotten.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import dataclass, field

import zstandard

from introspect.models import LineDictionary
from introspect.rules import secrets
from lib import linepack

# Trained on the first 2,000 lines a 64 KiB dictionary packs the large tier's lines to 0.173 of their
# size, against 0.177 on 1,000 and 0.173 on 4,000 (bench/results/2026-12-03-dbsize-dictionary.txt), in ~1 s.
TRAIN_LINES = 2000
TRAIN_BYTES = 1 << 20
SAMPLE_BYTES = 64 << 10  # of a longer line only its start is learnt from: the memory stays bounded
DICTIONARY_BYTES = 64 << 10


@dataclass
class Trainer:
    """One process's dictionary: the one in the database, else the samples it will be trained on."""

    dictionary: linepack.Dictionary | None = None
    samples: list[bytes] = field(default_factory=list)
    sampled: int = 0
    looked: bool = False
    lock: threading.Lock = field(default_factory=threading.Lock)

    def for_batch(self, lines: list[tuple[bytes, bool | None]]) -> linepack.Dictionary | None:
        """The dictionary to pack this batch's lines with ((bytes, has_secret) each), stored in the
        batch's transaction; None until enough lines were seen."""
        with self.lock:
            self.look()
            if self.dictionary is None:
                self.learn(lines)
            return self.stored()

    def ahead(self, lines: Iterable[bytes]) -> linepack.Dictionary | None:
        """The dictionary a worker packs with (importer/prefetch.py), trained now on the pass's first
        lines if there is none yet (those holding a secret left out, as a batch leaves them out):
        the worker packs lines before any batch of them is written. Stored at once: a dictionary no
        row names yet is harmless, a row naming one the database lacks is not."""
        with self.lock:
            self.look()
            if self.dictionary is None:
                self.learn((data, has_secret(data)) for data in lines)
            return self.stored()

    def look(self) -> None:
        """The dictionary another importer (or an earlier run) stored, looked for once."""
        if self.dictionary is None and not self.looked:
            self.looked = True
            stored = LineDictionary.objects.order_by("created_at", "dict_id").first()
            if stored is not None:
                self.dictionary = linepack.Dictionary(stored.dict_id, bytes(stored.data))

    def stored(self) -> linepack.Dictionary | None:
        if self.dictionary is None:
            return None
        store(self.dictionary, len(self.samples) or TRAIN_LINES)
        self.samples = []
        return self.dictionary

    def learn(self, lines: Iterable[tuple[bytes, bool | None]]) -> None:
        for data, has_secret in lines:
            if data and not has_secret and len(self.samples) < 4 * TRAIN_LINES:
                self.samples.append(data[:SAMPLE_BYTES])
                self.sampled += min(len(data), SAMPLE_BYTES)
        if len(self.samples) >= TRAIN_LINES and self.sampled >= TRAIN_BYTES:
            try:
                trained = linepack.train(self.samples, DICTIONARY_BYTES)
            except zstandard.ZstdError:  # samples it cannot learn from: pack without a dictionary
                self.samples, self.sampled = [], 0
                return
            # Two dictionaries with one id (a 31-bit id derived from the content): the stored one
            # keeps it, and this importer packs without one rather than name the wrong one.
            held = load(trained.dict_id)
            if held is None or held == trained.data:
                self.dictionary = trained
            else:
                self.samples, self.sampled = [], 0


def has_secret(data: bytes) -> bool:
    return bool(
        secrets.find_secrets(
            data.decode("utf-8", "surrogateescape"), ascii_data=data if data.isascii() else None
        )
    )


def store(dictionary: linepack.Dictionary, lines: int) -> None:
    LineDictionary.objects.bulk_create(
        [LineDictionary(dict_id=dictionary.dict_id, data=dictionary.data, lines=lines)], ignore_conflicts=True
    )


def load(dict_id: int) -> bytes | None:
    """The stored dictionary with this id (lib/linepack's loader)."""
    data = LineDictionary.objects.filter(dict_id=dict_id).values_list("data", flat=True).first()
    return None if data is None else bytes(data)


TRAINER = Trainer()
