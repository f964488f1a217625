"""The imported sample a test gets back (tests/kept_imports.py) is the one importing it would give:
a line appended afterwards is read on from the checkpoint, as after a fresh import."""

from __future__ import annotations

import pytest

from introspect.models import SourceFile, TranscriptEntry
from lib import locations
from tests.conftest import import_sample, ingest
from tests.kept_imports import KeptImports

pytestmark = [pytest.mark.django_db(transaction=True)]


def appended_then_imported(home) -> tuple[list, int]:
    path = sorted((home / ".claude" / "projects").rglob("*.jsonl"))[0]
    before = TranscriptEntry.objects.count()
    with open(path, "ab") as fh:
        fh.write(b'{"type":"user","uuid":"kept-1","message":{"role":"user","content":"one more"}}\n')
    ingest()
    rows = list(
        SourceFile.objects.order_by("root", "rel_path", "generation").values_list("rel_path", "generation")
    )
    return rows, TranscriptEntry.objects.count() - before


def test_a_line_appended_after_the_import_is_read_on_from_the_checkpoint(tmp_path, settings):
    # A keeper of its own, so the first start builds here whichever test ran before on this worker
    # (the session's keeper may hold the sample already); the second gets it back, its file written to.
    kept = KeptImports(tmp_path / "kept")
    settings.WAYSWEB_LOCATIONS = locations.resolve({"HOME": str(kept.home)})
    for run in ("built", "restored"):
        home = kept.start("sample", import_sample)
        assert kept.restored == (run == "restored")
        rows, added = appended_then_imported(home)
        assert added == 1, run
        assert all(generation == 1 for _, generation in rows), (run, rows)
