"""Fault case 28 (importer-reliability.md §14), scaled to the suite's time budget.

The full case — 10,000 small files and three 500 MB files — writes 1.5 GB: it is a benchmark
(bench/scale_files.py; bench/run.py --tier large for throughput), not a test. Here: 250
small files beside a big one; an idle pass over them reads nothing and costs a stat per file, not
a query per file; and the big file holds no small one back: every file's new lines land in the
same pass.
"""

from __future__ import annotations

import pytest
from django.conf import settings
from django.db import connection
from django.test.utils import CaptureQueriesContext

from introspect.importer.run import Options, import_pass
from tests.conftest import append
from tests.faults.conftest import assert_rows, entry, event, expected, ingest, jsonl

pytestmark = pytest.mark.django_db

# Enough files that a query per file would break the idle pass's bound many times over; the count
# itself proves nothing more at 1,000 (bench/scale_files.py runs 10,000).
FILES = 250


def small_files(home) -> list[bytes]:
    written = [jsonl(entry("s1", 0))]
    append(home.transcript("/p", "s1"), written[0])
    folder = home.root / ".claude" / "projects" / "-p" / "s1" / "subagents"
    for n in range(FILES):
        line = jsonl(entry("s1", n, isSidechain=True, agentId=f"a{n}") | {"uuid": f"a{n}"})
        append(folder / f"agent-a{n}.jsonl", line)
        written.append(line)
    return written


def test_case_28_idle_pass_over_many_small_files_reads_nothing_in_a_few_queries(home):
    said = small_files(home)
    big = [event(n, surface="b" * 400) for n in range(5_000)]  # ~2 MB, five batches
    append(home.live, *big)
    ingest()
    assert_rows(expected(events=big, entries=said, raw=[*big, *said]))
    with CaptureQueriesContext(connection) as queries:
        idle = import_pass(settings.WAYSWEB_LOCATIONS, Options(ways=False), record_only_changes=True)
    assert idle.totals.lines == 0 and {f.status for f in idle.files} == {"unchanged"}
    assert len(queries) <= 10, [q["sql"] for q in queries][:20]  # not one per file
    print(f"idle pass over {len(idle.files)} files: {len(queries)} queries")


def test_case_28_a_big_file_holds_no_small_file_back(home):
    said = small_files(home)
    big = [event(n, surface="b" * 400) for n in range(5_000)]
    append(home.live, *big)
    ingest()
    more_big = [event(n, surface="c" * 400) for n in range(5_000, 10_000)]
    append(home.live, *more_big)
    late = []
    for n in range(0, FILES, FILES // 10):  # new lines in ten small files, appended with the big ones
        line = jsonl(entry("s1", 10_000 + n, isSidechain=True, agentId=f"a{n}") | {"uuid": f"late-{n}"})
        append(home.root / ".claude" / "projects" / "-p" / "s1" / "subagents" / f"agent-a{n}.jsonl", line)
        late.append(line)
    result = import_pass(settings.WAYSWEB_LOCATIONS, Options(ways=False))
    assert result.totals.imported == len(more_big) + len(late)  # one pass took every file's new lines
    assert_rows(
        expected(events=[*big, *more_big], entries=[*said, *late], raw=[*big, *more_big, *said, *late])
    )
