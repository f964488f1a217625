"""The session list by width: every column named by a class (layout.css hides the ones a width has no
room for), and on a phone one cell per session whose second line carries the other columns' facts."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest

from introspect.models import Session
from introspect.templatetags.introspect_format import tokens
from tests.introspect.usage_session import SID, write_session

pytestmark = pytest.mark.django_db


class Row(HTMLParser):
    """The cells of the list's rows, and the texts of the compact line's pieces."""

    def __init__(self, body: str):
        super().__init__()
        self.heads: list[str] = []
        self.meta: list[str] = []
        self.depth = 0  # inside .row-meta: how many elements deep
        self.feed(body)

    def handle_starttag(self, tag, attrs):
        classes = (dict(attrs).get("class") or "").split()
        if tag == "th":
            self.heads.append(" ".join(c for c in classes if c.startswith("col-")))
        if self.depth:
            self.depth += 1
            if self.depth == 2:
                self.meta.append("")
        elif "row-meta" in classes:
            self.depth = 1

    def handle_endtag(self, tag):
        if self.depth:
            self.depth -= 1

    def handle_data(self, data):
        if self.depth >= 2:
            self.meta[-1] += data


def test_each_column_is_named_and_the_first_cell_carries_the_facts_for_a_phone(client, home):
    write_session(home)
    session = Session.objects.get(sid=SID)
    row = Row(client.get("/").content.decode())

    assert row.heads == [
        "",  # the session itself: shown at every width
        "col-project",
        "col-started",
        "col-duration",
        "col-ways",
        "col-compactions",
        "col-tokens",
        "col-cost",
        "col-models",
    ]
    started = session.started_at.strftime("%Y-%m-%d %H:%M")
    # No project is known for this transcript: the line starts at the date.
    assert session.project is None and row.meta[0] == started
    # "tokens" means one thing everywhere: in + out + cache read + cache write (rules/usage.py).
    total = (
        session.input_tokens
        + session.output_tokens
        + session.cache_creation_input_tokens
        + session.cache_read_input_tokens
    )
    assert row.meta[2] == f"{tokens(total)} tokens"
    assert row.meta[3] == f"${session.cost_usd:.4f}+"  # a message of an unpriced model left out
