"""The terminal bar of a long ingest pass: one line redrawn in place, what is said going above it."""

from __future__ import annotations

import io
import os
from datetime import UTC, datetime

import pytest

from introspect.importer.progress import Snapshot
from waysweb.management.commands.ingest import Command
from waysweb.progress_bar import CLEAR_LINE, Bar, clock, mib


@pytest.fixture(autouse=True)
def eighty_columns(monkeypatch):
    monkeypatch.setattr("shutil.get_terminal_size", lambda: os.terminal_size((80, 24)))


def test_it_redraws_one_line_in_place_filled_as_far_as_the_pass_is():
    out = io.StringIO()
    bar = Bar(out, "Importing")
    bar.update(0.0, "  0%", "files")
    bar.update(0.5, " 50%", "files")
    lines = out.getvalue().split(CLEAR_LINE)[1:]
    assert "\n" not in out.getvalue()
    assert [line.count("━") for line in lines] == [0, lines[1].count("─")]
    assert all(line.startswith("Importing ") and line.endswith(" files") and len(line) < 80 for line in lines)


def test_what_is_said_goes_above_the_bar_and_the_bar_is_drawn_again():
    out = io.StringIO()
    bar = Bar(out, "Importing")
    bar.update(0.25, "25%")
    bar.say("  events.jsonl: +3 rows")
    assert out.getvalue().endswith(CLEAR_LINE + "  events.jsonl: +3 rows\n" + bar.line)
    drawn = bar.line
    bar.stop()
    bar.stop()  # the cursor goes to the next line once
    assert out.getvalue().endswith(drawn + "\n") and out.getvalue().count("\n") == 2


def test_a_narrow_terminal_gets_a_line_no_wider_than_itself(monkeypatch):
    monkeypatch.setattr("shutil.get_terminal_size", lambda: os.terminal_size((30, 24)))
    out = io.StringIO()
    Bar(out, "Putting sessions together").update(0.5, "120/349", "0:00:41")
    assert len(out.getvalue().split(CLEAR_LINE)[-1]) < 30


def test_sizes_and_times_read_as_the_bar_shows_them():
    assert mib(3 * 2**20 / 2) == "1.5" and mib(2**30) == "1,024.0"
    assert clock(None) == "-:--:--" and clock(41.7) == "0:00:41" and clock(3723) == "1:02:03"


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def snapshot(**values) -> Snapshot:
    now = datetime.now(UTC)
    fields = {"files_done": 3, "files_total": 10, "bytes_done": 2**20, "bytes_total": 4 * 2**20}
    return Snapshot(**{**fields, "started_at": now, "updated_at": now, "seconds": 2.0, **values})


def test_ingest_draws_its_reading_then_its_deriving_on_a_terminal_and_says_files_above_them():
    out = Terminal()
    command = Command(stdout=out)
    command.verbosity = 1
    command.bar = None
    command.draw_progress(snapshot())
    command.say("  transcript a.jsonl: +3 rows")
    command.draw_progress(snapshot(bytes_done=4 * 2**20, files_done=10, finished=True))
    assert command.bar is None  # the reading's bar closed when it finished
    command.draw_progress(snapshot(sessions_done=1, sessions_total=4))
    command.draw_progress(snapshot(sessions_done=4, sessions_total=4))
    shown = out.getvalue()
    assert "Importing" in shown and " 25% 1.0/4.0 MiB 0.5 MiB/s 3/10 files" in shown
    assert "100% 4.0/4.0 MiB" in shown and "  transcript a.jsonl: +3 rows\n" in shown
    assert "Putting sessions together" in shown and " 4/4 0:00:00" in shown
    assert command.bar is None and shown.endswith("\n")


def test_ingest_draws_no_bar_into_a_file():
    out = io.StringIO()
    command = Command(stdout=out)
    command.verbosity = 1
    command.bar = None
    command.draw_progress(snapshot())
    assert command.bar is None and out.getvalue() == ""
