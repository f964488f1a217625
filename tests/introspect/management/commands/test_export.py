"""`manage.py export`: each format on stdout or to a file, a session named by a prefix, clear errors."""

from __future__ import annotations

from io import StringIO

import orjson
import pytest
from django.core.management import CommandError, call_command

from introspect.models import Session
from tests.introspect.export_session import REPLY, SID, export_session

pytestmark = pytest.mark.django_db


def run(*args) -> str:
    out = StringIO()
    call_command("export", *args, stdout=out, stderr=StringIO())
    return out.getvalue()


def test_it_prints_each_format_on_stdout(home):
    export_session(home)
    assert REPLY in run(SID, "--format", "md")
    assert orjson.loads(run(SID, "--format", "json"))["conversation"][0]["entry"]["uuid"] == "p1"
    html = run(SID, "--format", "html")
    assert html.startswith("<!doctype html>") and html.rstrip().endswith("</html>") and "<style>" in html


def test_html_is_the_default_format(home):
    export_session(home)
    assert run(SID).startswith("<!doctype html>")


def test_it_writes_to_a_file_with_o(home, tmp_path):
    export_session(home)
    path = tmp_path / "out.md"
    assert run(SID[:8], "--format", "md", "-o", str(path)) == ""
    assert REPLY in path.read_text()


def test_it_finds_the_session_by_a_unique_prefix(home):
    export_session(home)
    assert f"# Session `{SID}`" in run("exp0", "--format", "md")


def test_it_says_when_no_session_matches(home):
    export_session(home)
    with pytest.raises(CommandError, match="no session matches 'zzz'"):
        run("zzz")


def test_it_names_the_sessions_an_ambiguous_prefix_starts(home):
    export_session(home)
    Session.objects.create(sid="exp00000-other")
    with pytest.raises(CommandError, match=rf"'exp0' is ambiguous, it matches {SID}, exp00000-other"):
        run("exp0")


def test_it_refuses_an_unknown_format(home):
    export_session(home)
    with pytest.raises(CommandError, match="invalid choice: 'pdf'"):
        run(SID, "--format", "pdf")


def test_it_says_when_the_file_cannot_be_written(home, tmp_path):
    export_session(home)
    with pytest.raises(CommandError, match="cannot write"):
        run(SID, "-o", str(tmp_path / "missing" / "out.html"))
