"""The imported sample a test gets back (tests/kept_imports.py) is the one importing it would give:
a line appended afterwards is read on from the checkpoint, as after a fresh import."""

from __future__ import annotations

import pytest

from introspect.models import SourceFile, TranscriptEntry
from tests.browser import conftest as browser

# The browser tests' fixtures, taken here so this runs (and does not skip) without Playwright.
kept_imports = browser.kept_imports
sample_home = browser.sample_home
ingest = browser.ingest

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


@pytest.mark.parametrize("run", ["built", "restored"])
def test_a_line_appended_after_the_import_is_read_on_from_the_checkpoint(sample_home, kept_imports, run):
    # The first run imports the sample and keeps it; the second gets it back, its file written to.
    assert run != "restored" or kept_imports.restored
    rows, added = appended_then_imported(sample_home)
    assert added == 1
    assert all(generation == 1 for _, generation in rows), rows
