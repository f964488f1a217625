"""The unread lines of a transcript as a page marks them (introspect/queries/line_gaps.py): each
links to its row on the import status page."""

from __future__ import annotations

from introspect.queries import line_gaps


def test_an_unread_line_links_to_its_row_on_the_import_status_page():
    gap = line_gaps.LineGap((120, 0), line=3, file="a.jsonl", reason="torn", quarantine_id=42, status_page=2)

    assert gap.status_link == "/status/?qpage=2#q-42"
