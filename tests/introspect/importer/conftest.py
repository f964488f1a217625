"""Fixtures of the importer tests."""

from __future__ import annotations

import pytest

from introspect.importer import tailer


@pytest.fixture(autouse=True)
def thousand_line_batches(monkeypatch):
    """The batch mechanics these tests spell out are for batches of 1,000 lines."""
    monkeypatch.setattr(tailer, "BATCH_LINES", 1000)
