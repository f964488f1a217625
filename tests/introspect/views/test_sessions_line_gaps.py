"""A transcript line the importer could not read is marked where it was on its session page
(issue 24): "line N of FILE could not be read: why", linked to the line on the import status
page, so a reader knows something is missing there."""

from __future__ import annotations

from io import StringIO

import orjson
import pytest
from django.core.management import call_command

from introspect.models import Quarantine
from introspect.queries import line_gaps
from tests.conftest import append

pytestmark = pytest.mark.django_db

SID = "2a1b0c9d-8e7f-4a6b-9c5d-4e3f2a1b0c9d"


def entry(n: int, kind: str, text: str) -> bytes:
    return (
        orjson.dumps(
            {
                "type": kind,
                "uuid": f"{kind}{n}",
                "sessionId": SID,
                "timestamp": f"2026-11-03T10:00:{n:02d}.000Z",
                "message": {"role": kind, "content": text},
            }
        )
        + b"\n"
    )


def torn_session(home, *bad: bytes) -> str:
    """A transcript of a prompt, a blank line, the `bad` lines and a reply; its path under its root."""
    path = home.transcript("/src/torn", SID)
    append(path, entry(1, "user", "first prompt"), b"\n", *bad, entry(4, "assistant", "the reply"))
    call_command("ingest", stdout=StringIO())
    return f"{path.parent.name}/{path.name}"


def test_an_unreadable_line_is_marked_at_its_place_with_its_number_and_reason(client, home):
    file = torn_session(home, b'{"type": "user", "message": "caf\xe9"}\n')
    body = client.get(f"/sessions/{SID}/").content.decode()
    mark = body.index("could not be read")
    assert body.index("first prompt") < mark < body.index("the reply")
    assert f'line 3 of <span class="mono">{file}</span> could not be read: invalid UTF-8' in body


def test_the_mark_links_to_the_line_on_the_import_status_page(client, home):
    torn_session(home, b"{not json\n")
    quarantined = Quarantine.objects.get()
    body = client.get(f"/sessions/{SID}/").content.decode()
    link = f"/status/?qpage=1#q-{quarantined.pk}"
    assert f'<a href="{link}">see import status</a>' in body
    assert "could not be read: not valid JSON" in body
    assert f'<tr id="q-{quarantined.pk}">' in client.get(link).content.decode()


def test_a_run_of_unreadable_lines_is_marked_a_page_at_most_then_counted(client, home, monkeypatch):
    monkeypatch.setattr(line_gaps, "GAPS_SHOWN", 2)
    torn_session(home, b"{one\n", b"{two\n", b"{three\n", b"{four\n")
    body = client.get(f"/sessions/{SID}/").content.decode()
    assert body.count("could not be read: not valid JSON") == 2
    assert "line 3 of" in body and "line 4 of" in body and "line 5 of" not in body
    assert "and 2 more lines after it on this page, not shown one by one" in body


def test_a_page_of_a_file_without_quarantined_lines_reads_no_quarantine(
    client, home, django_assert_max_num_queries
):
    torn_session(home)
    with django_assert_max_num_queries(50) as queries:
        body = client.get(f"/sessions/{SID}/").content.decode()
    assert "could not be read" not in body
    assert not any("introspect_quarantine" in query["sql"] for query in queries.captured_queries)


def test_every_export_marks_the_unread_line_at_its_place(client, home):
    file = torn_session(home, b"{not json\n")

    def download(fmt: str) -> str:
        return b"".join(client.get(f"/sessions/{SID}/export.{fmt}").streaming_content).decode()

    html, markdown = download("html"), download("md")
    for text, mark in (
        (html, f'line 3 of <span class="mono">{file}</span> could not be read: not valid JSON'),
        (markdown, f"*Line 3 of `{file}` could not be read: not valid JSON.*"),
    ):
        assert text.index("first prompt") < text.index(mark) < text.index("the reply")
    conversation = orjson.loads(download("json"))["conversation"]
    assert [item["kind"] for item in conversation] == ["entry", "unread_line", "entry"]
    assert conversation[1]["unread_line"]["line"] == 3
    assert conversation[1]["unread_line"]["reason"] == "not valid JSON"


def test_a_subagents_unread_line_is_marked_in_its_conversation(client, home):
    torn_session(home)
    path = home.transcript("/src/torn", SID).parent / SID / "subagents" / "agent-a7.jsonl"
    path.parent.mkdir(parents=True)
    path.write_bytes(entry(5, "user", "sub prompt") + b"{torn\n" + entry(6, "assistant", "sub reply"))
    call_command("ingest", stdout=StringIO())
    body = client.get(f"/sessions/{SID}/agents/a7/").content.decode()
    mark = body.index("line 2 of")
    assert body.index("sub prompt") < mark < body.index("sub reply")
    assert "agent-a7.jsonl</span> could not be read: not valid JSON" in body
