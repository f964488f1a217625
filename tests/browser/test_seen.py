"""New since you looked: open a session, let a line be written into it, see the list's badge and
the page's divider; and the short ids the list shows open their sessions."""

from __future__ import annotations

from io import StringIO

import orjson
import pytest
from django.core.management import call_command

pytestmark = [pytest.mark.django_db(transaction=True)]

SID = "2f26ecc6-b036-4e3a-9e70-c96246897548"
TRANSCRIPT = f".claude/projects/-home-dev-notes/{SID}.jsonl"


def written(home, uuid: str, role: str, text: str, stamp: str) -> None:
    """A line Claude Code appends to the session's transcript, imported as serve's importer would."""
    last = orjson.loads((home / TRANSCRIPT).read_bytes().splitlines()[-1])
    content = text if role == "user" else [{"type": "text", "text": text}]
    message = {"role": role, "content": content} | ({"id": f"m-{uuid}"} if role == "assistant" else {})
    entry = {
        "type": role,
        "uuid": uuid,
        "parentUuid": last["uuid"],
        "sessionId": SID,
        "cwd": last.get("cwd", ""),
        "timestamp": stamp,
        "message": message,
    }
    with open(home / TRANSCRIPT, "ab") as fh:
        fh.write(orjson.dumps(entry) + b"\n")
    call_command("ingest", stdout=StringIO())


def test_it_marks_what_is_new_since_the_last_visit(tab, sample_home):
    tab.go("/")
    row = tab.page.locator("table.sessions tbody tr", has=tab.page.get_by_role("link", name=SID[:8]))
    assert row.locator(".badge--new").count() == 0  # never opened: no badge
    row.get_by_role("link", name=SID[:8]).click()
    tab.page.wait_for_url(f"**/sessions/{SID}/")
    assert tab.page.locator("#new-since").count() == 0
    written(sample_home, "seen-p1", "user", "one more question", "2026-11-04T18:40:00.000Z")
    written(sample_home, "seen-r1", "assistant", "One more answer.", "2026-11-04T18:40:05.000Z")
    tab.page.get_by_role("link", name="Sessions").first.click()
    tab.page.wait_for_url("**/")
    assert row.locator(".badge--new").inner_text() == "2 new"
    row.scroll_into_view_if_needed()
    tab.shot("seen-01-unseen-badge")
    row.get_by_role("link", name=SID[:8]).click()
    tab.page.wait_for_url(f"**/sessions/{SID}/")
    divider = tab.page.locator("#new-since")
    assert divider.inner_text() == "new since your last visit"
    # The divider sits right before the new turn: its heading, then the new prompt.
    # The heading, then the new prompt; the turn's outcome signals (p.turn-signals) may sit between.
    follows = divider.evaluate(
        "d => { const h = d.nextElementSibling; let n = h.nextElementSibling;"
        " if (n.classList.contains('turn-signals')) n = n.nextElementSibling; return [h.className, n.id]; }"
    )
    assert follows == ["cturn", "u-seen-p1"]
    jump = tab.page.locator(".new-since-jump a")
    assert jump.inner_text() == "↓ 2 new entries since your last visit"
    jump.click()
    tab.page.wait_for_url("**#new-since")
    assert divider.is_visible()
    tab.shot("seen-02-divider")
    tab.page.reload()
    assert tab.page.locator("#new-since").count() == 0  # the mark moved when the page opened
    tab.go("/")
    assert row.locator(".badge--new").count() == 0


def test_it_opens_a_session_by_the_short_id_the_list_shows(tab):
    tab.go(f"/sessions/{SID[:8]}/")
    tab.page.wait_for_url(f"**/sessions/{SID}/")
    assert tab.page.locator(".session-bar [title^='session ']").inner_text() == SID[:8]
    assert SID in tab.page.text_content(".session-more")
