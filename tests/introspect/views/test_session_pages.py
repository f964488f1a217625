"""The session page shows the whole conversation: following its own pages finds every entry.

The oracle is the transcript file itself, read here with json: every user or assistant line that
carries text, and every tool_use, of the session's trunk file must be on one of the pages reached
from the first one by its "next" links (as a reader scrolling, or clicking without JavaScript).
"""

from __future__ import annotations

import json
import re
import shutil
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from introspect.models import Session, TranscriptEntry
from lib import locations
from lib.converters import dom_id
from tests.fixtures import TREE, lay_out_tree

pytestmark = pytest.mark.django_db
NEXT = re.compile(r'<a href="(\?turn=[^"]+)" rel="next"')
ANCHOR = re.compile(r'id="u-([^"]+)"')


def expected_anchors(path: Path, copies: set[str]) -> set[str]:
    """Every trunk line a reader must find: user/assistant lines with text, and every tool call."""
    wanted = set()
    for raw in path.read_bytes().splitlines():
        try:
            line = json.loads(raw)
        except ValueError:
            continue
        if (
            not isinstance(line, dict)
            or line.get("type") not in ("user", "assistant")
            or not line.get("uuid")
        ):
            continue
        if line["uuid"] in copies:
            continue  # a resumed session's replayed prefix: shown once, in the file that wrote it first
        content = (
            (line.get("message") or {}).get("content") if isinstance(line.get("message"), dict) else None
        )
        blocks = content if isinstance(content, list) else []
        # A line of nothing but blank lines ("\n\n" before a thinking block) has nothing to find.
        has_text = (isinstance(content, str) and content.strip()) or any(
            isinstance(b, dict)
            and b.get("type") in ("text", "thinking")
            and (b.get("text") or b.get("thinking") or "").strip()
            for b in blocks
        )
        tool_use = any(isinstance(b, dict) and b.get("type") == "tool_use" for b in blocks)
        if has_text or tool_use:
            wanted.add(dom_id(line["uuid"]))
    return wanted


def walk(client, sid: str) -> tuple[set[str], int]:
    """The anchors on every page reached by following "next" from the first page."""
    url, seen, pages = f"/sessions/{sid}/", set(), 0
    while url and pages < 500:
        body = client.get(url).content.decode()
        pages += 1
        seen |= set(ANCHOR.findall(body))
        found = NEXT.search(body)
        url = f"/sessions/{sid}/{found.group(1).replace('&amp;', '&')}" if found else None
    return seen, pages


def assert_every_entry_shown(client, sessions):
    checked = 0
    for session in sessions:
        trunk = session.transcript
        path = Path(trunk.root) / trunk.rel_path
        copies = set(
            TranscriptEntry.objects.filter(source=trunk, is_copy=True)
            .exclude(uuid=None)
            .values_list("uuid", flat=True)
        )
        wanted = expected_anchors(path, copies)
        seen, pages = walk(client, session.sid)
        missing = wanted - seen
        assert not missing, (
            f"{session.sid}: {len(missing)} of {len(wanted)} entries on none of its {pages} pages"
        )
        checked += 1
    assert checked


def test_every_sample_session_shows_every_entry_on_its_pages(client, tmp_path, settings):
    home = tmp_path / "home"
    shutil.copytree(locations.SAMPLE_HOME, home, symlinks=True)
    settings.WAYSWEB_LOCATIONS = locations.resolve({"HOME": str(home)})
    call_command("ingest", stdout=StringIO())
    sessions = list(Session.objects.exclude(transcript=None).select_related("transcript"))
    assert any(s.turn_count for s in sessions) and any(s.keyed_turns for s in sessions)
    assert any(s.turn_count > s.keyed_turns for s in sessions)  # heuristic turns are walked too
    assert_every_entry_shown(client, sessions)


def test_every_fixture_transcript_shows_every_entry_on_its_pages(client, home, settings):
    lay_out_tree(home.root / ".claude" / "projects")
    call_command("ingest", stdout=StringIO())
    sessions = list(Session.objects.exclude(transcript=None).select_related("transcript"))
    assert len(sessions) >= len(TREE)
    assert_every_entry_shown(client, sessions)


def test_a_session_longer_than_a_page_is_walked_whole(client, home, monkeypatch):
    # One prompt followed by 450 tool calls and results: one turn over three pages (parts).
    sid = "one-long-turn"
    entries = [
        {
            "type": "user",
            "uuid": "p0",
            "sessionId": sid,
            "timestamp": "2026-11-01T00:00:00.000Z",
            "message": {"role": "user", "content": "refactor everything"},
        }
    ]
    for n in range(450):
        entries.append(
            {
                "type": "assistant",
                "uuid": f"c{n}",
                "sessionId": sid,
                "timestamp": f"2026-11-01T00:{n // 60:02d}:{n % 60:02d}.100Z",
                "requestId": f"r{n}",
                "message": {
                    "id": f"m{n}",
                    "role": "assistant",
                    "content": [
                        {"type": "tool_use", "id": f"t{n}", "name": "Bash", "input": {"command": f"ls {n}"}}
                    ],
                },
            }
        )
        entries.append(
            {
                "type": "user",
                "uuid": f"r{n}",
                "sessionId": sid,
                "timestamp": f"2026-11-01T00:{n // 60:02d}:{n % 60:02d}.500Z",
                "message": {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": f"t{n}", "content": f"out {n}"}],
                },
            }
        )
    path = home.transcript("/p", sid, *entries)
    call_command("ingest", stdout=StringIO())
    seen, pages = walk(client, sid)
    assert pages == 5  # 901 entries, 200 a page
    assert expected_anchors(path, set()) <= seen
    assert {f"r{n}" for n in range(450)} <= seen  # each result, inside its call or at its place
