"""The search page as a person reads it: grouped hits, repeat counts, filters kept in the address."""

from __future__ import annotations

from html.parser import HTMLParser
from io import StringIO

import pytest
from django.core.management import call_command

from introspect.models import Session
from introspect.views import search as search_views
from tests.introspect.queries.test_search import P2, S2, S, every_kind, imported, prompt, read

pytestmark = pytest.mark.django_db

VOID = {"input", "br", "img", "meta", "link", "hr", "source", "wbr", "col", "area", "base", "embed"}


class Element:
    def __init__(self, tag: str, attrs: dict[str, str | None]):
        self.tag, self.attrs, self.children, self.parts = tag, attrs, [], []

    @property
    def text(self) -> str:
        return " ".join("".join(self.parts_deep()).split())

    def parts_deep(self):
        for part in self.parts:
            yield part if isinstance(part, str) else "".join(part.parts_deep())

    def classes(self) -> set[str]:
        return set((self.attrs.get("class") or "").split())

    def find_all(self, tag: str = "", cls: str = "", **attrs: str) -> list[Element]:
        found = []
        for child in self.children:
            if (
                (not tag or child.tag == tag)
                and (not cls or cls in child.classes())
                and all(child.attrs.get(key) == value for key, value in attrs.items())
            ):
                found.append(child)
            found += child.find_all(tag, cls, **attrs)
        return found

    def find(self, tag: str = "", cls: str = "", **attrs: str) -> Element:
        [element] = self.find_all(tag, cls, **attrs)[:1]
        return element


class Tree(HTMLParser):
    def __init__(self, html: str):
        super().__init__()
        self.root = Element("root", {})
        self.stack = [self.root]
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        element = Element(tag, dict(attrs))
        self.stack[-1].children.append(element)
        self.stack[-1].parts.append(element)
        if tag not in VOID:
            self.stack.append(element)

    def handle_endtag(self, tag):
        for n in range(len(self.stack) - 1, 0, -1):
            if self.stack[n].tag == tag:
                del self.stack[n:]
                return

    def handle_data(self, data):
        self.stack[-1].parts.append(data)


def page(client, **params) -> Element:
    response = client.get("/search/", params)
    assert response.status_code == 200
    return Tree(response.content.decode()).root


def groups(root: Element) -> list[Element]:
    return root.find_all("section", cls="search-group")


def badges(hit: Element) -> list[str]:
    return [badge.text for badge in hit.find_all("span", cls="badge")]


def test_it_shows_hits_under_a_heading_per_session_with_title_project_and_time(client, home):
    imported(home)
    home.transcript(P2, S2, {**prompt("o1", None, 50, "commit elsewhere"), "sessionId": S2, "cwd": P2})
    call_command("ingest", stdout=StringIO())

    root = page(client, q="commit")

    headings = {group.find("h2").find("a").attrs["href"]: group for group in groups(root)}
    assert set(headings) == {f"/sessions/{S}/", f"/sessions/{S2}/"}
    mine = headings[f"/sessions/{S}/"]
    session = Session.objects.get(sid=S)
    head = mine.find("h2")
    assert head.find("a").text == session.title
    assert "proj" in head.text
    assert head.find("time").attrs["datetime"] == session.started_at.isoformat()
    assert [badges(hit)[0] for hit in mine.find_all("li", cls="search-hit")] == ["way fired", "prompt"]


def test_it_shows_a_repeated_line_once_with_how_many_times(client, home):
    imported(home)
    home.transcript("/home/dev/proj", S, *read("x", "r2", 30), *read("y", "xr", 32), *read("z", "yr", 34))
    call_command("ingest", stdout=StringIO())

    root = page(client, q="wombat_count")

    [hit] = root.find_all("li", cls="search-hit")
    assert badges(hit) == ["tool output", "×3"]
    assert hit.find("a").attrs["href"] == f"/sessions/{S}/?u=xr&q=wombat_count#u-xr"
    assert "last 2026-07-03 16:40" in hit.text
    assert "1 result" in root.find("p", cls="count").text


def test_it_narrows_by_kind_and_keeps_the_choice_in_the_form(client, home):
    every_kind(home)

    root = page(client, q="wombat", kind=["result", "thinking"])

    assert sorted(badges(hit)[0] for hit in root.find_all("li", cls="search-hit")) == [
        "thinking",
        "tool output",
    ]
    checked = [
        box.attrs["value"]
        for box in root.find_all("input", type="checkbox", name="kind")
        if "checked" in box.attrs
    ]
    assert checked == ["result", "thinking"]


def test_it_keeps_project_dates_and_sort_in_the_form(client, home):
    imported(home)
    project = Session.objects.get(sid=S).project

    root = page(client, q="commit", project=project.pk, since="2026-07-01", until="2026-07-03", sort="newest")

    form = root.find("form", role="search")
    selected = {
        select.attrs["name"]: [
            option.attrs["value"] for option in select.find_all("option") if "selected" in option.attrs
        ]
        for select in form.find_all("select")
    }
    assert selected == {"project": [str(project.pk)], "sort": ["newest"]}
    assert form.find("input", name="since").attrs["value"] == "2026-07-01"
    assert form.find("input", name="until").attrs["value"] == "2026-07-03"
    assert (form.attrs["method"], form.attrs["action"]) == ("get", "/search/")
    assert "newest first" in root.find("p", cls="count").text
    assert len(root.find_all("li", cls="search-hit")) == 2


def test_it_says_the_filters_found_nothing(client, home):
    imported(home)

    root = page(client, q="commit", since="2027-01-01")

    empty = root.find("div", cls="empty")
    assert "No results" in empty.text and "with these filters" in empty.text and "fewer filters" in empty.text


def test_it_pages_with_every_filter_kept(client, home, monkeypatch):
    every_kind(home)
    monkeypatch.setattr(search_views, "HITS_PER_PAGE", 1)

    root = page(client, q="wombat", kind=["prompt", "reply"], sort="newest")

    pager = root.find("nav", cls="pager")
    next_link = pager.find("a", rel="next")
    assert next_link.attrs["href"] == "?q=wombat&kind=prompt&kind=reply&sort=newest&page=2"
    second = page(client, q="wombat", kind=["prompt", "reply"], sort="newest", page="2")
    assert [badges(hit)[0] for hit in second.find_all("li", cls="search-hit")] == [
        "prompt"
    ]  # the reply is newer


def test_it_answers_a_filter_change_with_the_results_fragment(client, home):
    every_kind(home)

    response = client.get("/search/", {"q": "wombat", "kind": "way"}, headers={"HX-Request": "true"})

    body = response.content.decode()
    assert "<html" not in body and body.lstrip().startswith('<div id="search-results"')
    [hit] = Tree(body).root.find_all("li", cls="search-hit")
    assert badges(hit) == ["way fired"]


def test_it_ignores_filters_it_does_not_understand(client, home):
    imported(home)

    root = page(client, q="commit", kind="bogus", project="x", since="yesterday", sort="sideways")

    assert len(root.find_all("li", cls="search-hit")) == 2
    assert "best match first" in root.find("p", cls="count").text


@pytest.mark.parametrize("sort", ["relevance", "newest"])
def test_it_reads_a_page_in_a_bounded_number_of_queries(client, home, sort, django_assert_max_num_queries):
    imported(home)
    for n in range(3, 30):
        home.transcript("/home/dev/proj", f"{S[:-2]}{n:02d}", prompt(f"x{n}", None, n, f"commit number {n}"))
    call_command("ingest", stdout=StringIO())

    with django_assert_max_num_queries(12):
        root = page(client, q="commit", sort=sort, kind=["prompt", "way"], since="2026-07-01")

    assert len(root.find_all("li", cls="search-hit")) == search_views.HITS_PER_PAGE
