"""Long text is whole everywhere (issue 24): a prompt or reply past the 20,000 characters the
`text` column keeps is on its session page in full, collapsed behind "show all (N characters)"
(a <details>, no JavaScript needed), and in full in the HTML, Markdown and JSON exports."""

from __future__ import annotations

from io import StringIO

import orjson
import pytest
from django.core.management import call_command

from introspect.importer.transcripts import TEXT_LIMIT
from introspect.models import TranscriptEntry

pytestmark = pytest.mark.django_db

SID = "1f0e2d3c-4b5a-4697-8877-665544332211"


def words(tag: str, size: int) -> str:
    """`size` characters of numbered words ending in `tag`: any cut shows as a missing word or end."""
    text, n = [], 0
    while sum(map(len, text)) < size:
        text.append(f"{tag}{n} ")
        n += 1
    return ("".join(text)[: size - len(tag) - 4] + f" END{tag}").ljust(size, ".")


PROMPT = words("p", 30_000)
REPLY = words("r", 30_000)


def long_session(home) -> None:
    home.transcript(
        "/src/long",
        SID,
        {
            "type": "user",
            "uuid": "p1",
            "sessionId": SID,
            "timestamp": "2026-11-03T10:00:00.000Z",
            "message": {"role": "user", "content": PROMPT},
        },
        {
            "type": "assistant",
            "uuid": "a1",
            "sessionId": SID,
            "timestamp": "2026-11-03T10:00:05.000Z",
            "requestId": "q1",
            "message": {
                "id": "m1",
                "role": "assistant",
                "model": "claude-opus-4-6",
                "content": [{"type": "text", "text": REPLY}],
            },
        },
    )
    call_command("ingest", stdout=StringIO())


def download(client, fmt: str) -> str:
    return b"".join(client.get(f"/sessions/{SID}/export.{fmt}").streaming_content).decode()


def test_the_column_search_reads_keeps_the_start_and_the_raw_line_the_whole(home):
    long_session(home)
    prompt = TranscriptEntry.objects.get(uuid="p1")
    assert len(PROMPT) == 30_000 and prompt.text == PROMPT[:TEXT_LIMIT]
    assert orjson.loads(prompt.line)["message"]["content"] == PROMPT


def test_a_30000_character_prompt_is_whole_on_its_page_behind_show_all(client, home):
    long_session(home)
    body = client.get(f"/sessions/{SID}/").content.decode()
    assert PROMPT in body and REPLY in body
    assert body.count("show all (30,000 characters)") == 2
    assert '<details class="show-all long-text"><summary>' in body  # closed, and opens without JavaScript


def test_the_html_export_carries_the_whole_prompt_and_reply(client, home):
    long_session(home)
    html = download(client, "html")
    assert PROMPT in html and REPLY in html


def test_the_markdown_export_carries_the_whole_prompt_and_reply(client, home):
    long_session(home)
    markdown = download(client, "md")
    assert f"> {PROMPT}\n" in markdown and REPLY in markdown


def test_the_json_export_carries_the_whole_text_as_well_as_the_line(client, home):
    long_session(home)
    document = orjson.loads(download(client, "json"))
    texts = {item["entry"]["uuid"]: item["entry"]["text"] for item in document["conversation"]}
    assert texts == {"p1": PROMPT, "a1": REPLY}
