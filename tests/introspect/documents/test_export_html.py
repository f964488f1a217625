"""The HTML export is one self-contained file: every entry, every fire turn, nothing fetched."""

from __future__ import annotations

import re
import shutil
from html.parser import HTMLParser
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from introspect.documents import export_html
from introspect.models import Session, TranscriptEntry
from introspect.queries import conversation
from introspect.queries import export as queries
from lib import locations
from lib.converters import dom_id
from tests.introspect.export_session import COMMAND, export_session
from tests.introspect.views.test_session_pages import expected_anchors

pytestmark = pytest.mark.django_db


class Document(HTMLParser):
    """The tags, ids, text and inline styles of a document."""

    def __init__(self, html: str):
        super().__init__()
        self.tags: list[tuple[str, dict]] = []
        self.ids: set[str] = set()
        self.text: list[str] = []
        self.styles: list[str] = []
        self._in_style = False
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        self.tags.append((tag, attributes))
        if attributes.get("id"):
            self.ids.add(attributes["id"])
        self._in_style = tag == "style"

    def handle_endtag(self, tag):
        self._in_style = False

    def handle_data(self, data):
        (self.styles if self._in_style else self.text).append(data)

    @property
    def visible(self) -> str:
        return " ".join(" ".join(self.text).split())


def exported(session: Session) -> str:
    return "".join(export_html.html_export(session, queries.export_chunks(session)))


def test_it_holds_every_entry_and_fire_turn_of_the_session(home):
    session = export_session(home)
    doc = Document(exported(session))
    uuids = set(conversation.conversation_entries(session).exclude(uuid=None).values_list("uuid", flat=True))
    assert uuids and {f"u-{dom_id(uuid)}" for uuid in uuids} <= doc.ids
    assert {f"turn-{epoch}" for epoch in session.turns.values_list("epoch", flat=True)} == {
        i for i in doc.ids if i.startswith("turn-")
    }
    assert {"t-1", "t-2"} <= doc.ids  # the conversation turn headings
    text = doc.visible
    assert "Here is the plan for the release." in text  # REPLY's Markdown, rendered
    assert COMMAND in text and "not a fence end" in text
    assert "delivery/release" in text and "withheld: context_cap" in text and "softwaredev/testing" in text


def test_it_fetches_nothing_when_opened(home):
    session = export_session(home)
    html = exported(session)
    doc = Document(html)
    assert [tag for tag, _ in doc.tags if tag in ("link", "script", "img", "iframe", "object", "embed")] == []
    fetching = [
        (tag, name, value)
        for tag, attrs in doc.tags
        for name, value in attrs.items()
        if name in ("src", "srcset", "poster", "data", "action")
        or (name.startswith("hx-") and name != "hx-disable")
    ]
    assert fetching == []
    links = [attrs.get("href", "") for tag, attrs in doc.tags if tag == "a"]
    assert not [href for href in links if href.startswith(("http:", "https:", "//", "/"))]
    css = "".join(doc.styles)
    assert ".entry" in css  # the dashboard's styles, inlined
    assert not re.search(r"url\(|@import", css)


def test_it_shows_agent_html_as_text(home):
    session = export_session(home)
    doc = Document(exported(session))
    assert "<script>alert('x')</script>" in doc.visible  # as text, never a tag
    assert ("script", {}) not in doc.tags


def test_it_colours_every_code_box_in_place_past_the_page_budget(home):
    session = export_session(home)
    # Plenty of code: the session page would defer what is past its 4 KiB to a dashboard URL.
    TranscriptEntry.objects.filter(uuid="r1").update(text="x = 1\n" * 3000)
    html = exported(session)
    assert "data-colour-url" not in html and "needs JavaScript" not in html


def test_every_sample_session_exports_every_entry(tmp_path, settings):
    home = tmp_path / "home"
    shutil.copytree(locations.SAMPLE_HOME, home, symlinks=True)
    settings.WAYSWEB_LOCATIONS = locations.resolve({"HOME": str(home)})
    call_command("ingest", stdout=StringIO())
    sessions = list(Session.objects.exclude(transcript=None).select_related("project", "transcript"))
    assert sessions
    for session in sessions:
        trunk = session.transcript
        copies = set(
            TranscriptEntry.objects.filter(source=trunk, is_copy=True)
            .exclude(uuid=None)
            .values_list("uuid", flat=True)
        )
        wanted = {f"u-{anchor}" for anchor in expected_anchors(Path(trunk.root) / trunk.rel_path, copies)}
        doc = Document(exported(session))
        assert wanted - doc.ids == set(), session.sid
        assert {f"turn-{n}" for n in range(1, session.turn_count + 1)} <= doc.ids, session.sid


def test_a_session_without_a_transcript_exports_its_fire_turns(home):
    session = export_session(home)
    Session.objects.filter(pk=session.pk).update(transcript=None)
    session.refresh_from_db()
    doc = Document(exported(session))
    assert "No transcript was imported" in doc.visible
    assert {"turn-1", "turn-2"} <= doc.ids
