"""What every page's frame (templates/base.html) offers: the theme switch, the command palette, and
the `?` overlay listing the keys that work on the page at hand."""

from __future__ import annotations

from datetime import UTC, datetime
from html.parser import HTMLParser

import pytest
from django.urls import reverse

from introspect.models import Session, Subagent

pytestmark = pytest.mark.django_db


class Frame(HTMLParser):
    """The theme switch's options, the key-help rows (keys, what they do) and the palette's parts."""

    def __init__(self):
        super().__init__()
        self.stack: list[tuple[str, dict]] = []
        self.theme_options: list[tuple[str, str]] = []
        self.theme_hidden = None
        self.keys: list[tuple[str, str]] = []
        self.palette: dict = {}
        self.head_scripts: list[dict] = []
        self.dark_code_link: dict | None = None
        self.in_head = False
        self.text: list[str] = []
        self.key_text = ""

    def inside(self, tag: str, **attrs) -> bool:
        return any(t == tag and all(a.get(k) == v for k, v in attrs.items()) for t, a in self.stack)

    def in_switch(self) -> bool:
        return any(t == "select" and "data-theme-switch" in a for t, a in self.stack)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "head":
            self.in_head = True
        if tag == "script" and self.in_head:
            self.head_scripts.append(attrs)
        if tag == "link" and attrs.get("id") == "pygments-dark":
            self.dark_code_link = attrs
        if tag == "label" and "theme-switch" in (attrs.get("class") or ""):
            self.theme_hidden = "hidden" in attrs
        if tag == "input" and "data-palette-input" in attrs:
            self.palette["input"] = attrs
        if tag == "ul" and attrs.get("id") == "palette-results":
            self.palette["results"] = attrs
        if tag == "form" and self.inside("dialog", id="palette"):
            self.palette["form"] = attrs
        if tag in ("option", "dt", "dd"):
            self.text = []
        if tag not in ("link", "meta", "input", "br"):
            self.stack.append((tag, attrs))
        if tag == "option" and self.in_switch():
            self.option_value = attrs.get("value")

    def handle_endtag(self, tag):
        if tag == "head":
            self.in_head = False
        if tag == "option" and self.in_switch():
            self.theme_options.append((self.option_value, "".join(self.text).strip()))
        if tag == "dt" and self.inside("dialog", id="key-help"):
            self.key_text = " ".join("".join(self.text).split())
        if tag == "dd" and self.inside("dialog", id="key-help"):
            self.keys.append((self.key_text, "".join(self.text).strip()))
        while self.stack:
            if self.stack.pop()[0] == tag:
                break

    def handle_data(self, data):
        self.text.append(data)


def frame(client, url: str) -> Frame:
    response = client.get(url)
    assert response.status_code == 200, url
    parsed = Frame()
    parsed.feed(response.content.decode())
    return parsed


EVERY_PAGE_KEYS = [
    ("/", "focus search"),
    ("Ctrl K or ⌘ K", "go to a session, way, decision or page"),
    ("g s", "go to sessions"),
    ("Esc", "leave a field, close a dialog"),
    ("?", "this help"),
]


def test_every_page_offers_light_dark_and_auto_shown_only_once_its_script_runs(client):
    for url in ("/", "/ways/", "/ledger/", "/status/", "/search/"):
        page = frame(client, url)
        assert page.theme_options == [("auto", "◐ auto"), ("light", "☀ light"), ("dark", "☾ dark")], url
        # Without JavaScript there is nothing to switch: the system setting (auto) applies.
        assert page.theme_hidden is True, url


def test_the_theme_is_applied_by_a_blocking_script_before_first_paint(client):
    page = frame(client, "/")
    theme = [s for s in page.head_scripts if s.get("src", "").endswith("js/theme.js")]
    assert len(theme) == 1
    assert "defer" not in theme[0] and "async" not in theme[0]
    assert theme[0]["nonce"]  # the CSP nonce every script carries
    # The dark code colours follow the system until theme.js says otherwise.
    assert page.dark_code_link["media"] == "(prefers-color-scheme: dark)"


def test_every_page_has_the_palette_which_falls_back_to_a_search_form(client):
    page = frame(client, "/ways/")
    assert page.palette["results"]["data-palette-url"] == "/palette.json"
    assert page.palette["form"]["action"] == "/search/" and page.palette["input"]["name"] == "q"


def test_the_help_lists_only_the_keys_every_page_has_on_a_page_without_rows(client):
    for url in ("/ways/", "/ledger/", "/status/"):
        assert frame(client, url).keys == EVERY_PAGE_KEYS, url


@pytest.mark.parametrize(
    ("url", "rows"),
    [
        ("/", [("j k", "next / previous session"), ("Enter", "open the selected session")]),
        ("/search/", [("j k", "next / previous result"), ("Enter", "open the selected result")]),
        ("/ledger/decisions/", [("j k", "next / previous record"), ("Enter", "open the selected record")]),
        (
            "/ledger/knowledge/",
            [("j k", "next / previous candidate"), ("Enter", "open the selected candidate")],
        ),
    ],
)
def test_a_list_page_adds_its_row_keys_to_the_help(client, url, rows):
    assert frame(client, url).keys == rows + EVERY_PAGE_KEYS


def test_a_conversation_page_adds_prompt_jumps_and_the_replay_keys(client, sample):
    keys = frame(client, "/sessions/3f12dab8-ee65-4941-ae6f-11e4d6a398ba/").keys
    assert keys == [
        ("n p", "next / previous prompt"),
        ("j k", "next / previous agent-ways turn"),
        ("Space", "replay: play / pause (panel open)"),
        ("← →", "replay: previous / next frame (panel open)"),
        *EVERY_PAGE_KEYS,
    ]


def test_a_session_without_a_transcript_lists_turns_so_it_adds_turn_keys_but_no_prompt_jumps(client):
    Session.objects.create(sid="s-1", turn_count=1, started_at=datetime(2026, 11, 8, tzinfo=UTC))
    assert frame(client, "/sessions/s-1/").keys[:3] == [
        ("j k", "next / previous agent-ways turn"),
        ("Space", "replay: play / pause (panel open)"),
        ("← →", "replay: previous / next frame (panel open)"),
    ]


def test_a_session_without_turns_has_no_turn_or_replay_keys(client):
    Session.objects.create(sid="s-0", started_at=datetime(2026, 11, 8, tzinfo=UTC))
    assert frame(client, "/sessions/s-0/").keys == EVERY_PAGE_KEYS


def test_a_subagent_page_adds_prompt_jumps(client, sample):
    agent = Subagent.objects.select_related("session").order_by("pk").first()
    url = reverse("introspect:subagent-detail", args=[agent.session.sid, agent.agent_id])
    # The prompt the subagent was given is one n/p stops at (app.js looks for [data-prompt]).
    assert "data-prompt" in client.get(url).content.decode()
    assert frame(client, url).keys == [("n p", "next / previous prompt"), *EVERY_PAGE_KEYS]
