"""Search over prompts, replies, tool calls and way ids: exact links, hostile input, escaping, triggers."""

from __future__ import annotations

from datetime import date
from io import StringIO

import orjson
import pytest
from django.core.management import call_command
from django.db import connection
from django.template.loader import render_to_string
from django.test.utils import CaptureQueriesContext

from introspect.models import Session, TranscriptEntry, Turn
from introspect.queries import search, search_filters, search_results, search_text
from introspect.rules import entry_kinds
from introspect.views import search as search_views
from tests.conftest import append, line

pytestmark = pytest.mark.django_db

S = "5e7c1a2b-0d4f-4c3e-9a8b-7f6e5d4c3b2a"
P = "/home/dev/proj"
HOSTILE = [
    '"',
    "*",
    "NEAR(",
    "-",
    "a OR",
    "'",
    '"unbalanced',
    "commit*)",
    "NOT",
    "(",
    ")",
    "^",
    ":",
    "{text}",
    "col:commit",
    "%",
    "_",
    "\\",
    "a AND OR NOT",
    "\x00",
    "🙂",
    "'; DROP TABLE x; --",
]


def ts(second: int) -> str:
    return f"2026-07-03T16:40:{second:02d}.000Z"


def prompt(uuid: str, parent: str | None, second: int, text: str) -> dict:
    return {
        "type": "user",
        "uuid": uuid,
        "parentUuid": parent,
        "timestamp": ts(second),
        "sessionId": S,
        "version": "2.1.180",
        "message": {"role": "user", "content": text},
    }


def injection(uuid: str, parent: str, second: int) -> dict:
    return {
        "type": "attachment",
        "uuid": uuid,
        "parentUuid": parent,
        "timestamp": ts(second),
        "sessionId": S,
        "attachment": {
            "type": "hook_additional_context",
            "hookEvent": "UserPromptSubmit",
            "content": ["[ways] delivery guidance"],
        },
    }


def assistant(uuid: str, parent: str, second: int, block: dict) -> dict:
    return {
        "type": "assistant",
        "uuid": uuid,
        "parentUuid": parent,
        "timestamp": ts(second),
        "sessionId": S,
        "requestId": f"req_{uuid}",
        "message": {"id": f"msg_{uuid}", "role": "assistant", "model": "claude-opus-4-6", "content": [block]},
    }


def tool_result(uuid: str, parent: str, second: int, tool_use_id: str, text: str) -> dict:
    return {
        "type": "user",
        "uuid": uuid,
        "parentUuid": parent,
        "timestamp": ts(second),
        "sessionId": S,
        "message": {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": tool_use_id, "content": text}],
        },
    }


def ev(second: int, event: str, **fields) -> bytes:
    return line(ts=f"2026-07-03T16:40:{second:02d}Z", event=event, session=S, project=P, **fields)


def imported(home, *, prompt_text: str = "please commit this change") -> None:
    append(
        home.live,
        ev(0, "session_start"),
        ev(2, "way_fired", way="softwaredev/delivery/commits", trigger="keyword", matched_span="commit"),
        ev(
            20,
            "way_fired",
            way="softwaredev/code/testing",
            trigger="semantic:embedding:en",
            fire_score="0.7100",
            surface="run the tests",
        ),
    )
    home.transcript(
        P,
        S,
        prompt("u1", None, 1, prompt_text),
        injection("i1", "u1", 1),
        assistant("a1", "i1", 3, {"type": "text", "text": "Done: the refactoring landed."}),
        prompt("u2", "a1", 19, "now run the tests"),
        injection("i2", "u2", 19),
        assistant(
            "a2",
            "i2",
            21,
            {
                "type": "tool_use",
                "id": "toolu_1",
                "name": "Bash",
                "input": {"command": "uv run pytest -q tests/flaky_module.py"},
            },
        ),
        tool_result("r2", "a2", 22, "toolu_1", "3 passed, 1 xfailed in 0.42s"),
    )
    call_command("ingest", stdout=StringIO())


def only(results: search_results.SearchResults, kind: str) -> list[search_results.Hit]:
    return [hit for hit in results.hits if hit.kind == kind]


def marked(hit: search_results.Hit) -> list[str]:
    return [text for text, is_match in hit.snippet if is_match]


def test_it_finds_a_word_of_a_prompt_and_links_to_the_message(home):
    imported(home)

    results = search.search("commit")

    [hit] = only(results, "prompt")
    assert hit.session_sid == S
    assert hit.url == f"/sessions/{S}/?u=u1&q=commit#u-u1"
    assert hit.epoch == 1
    assert [text.lower() for text in marked(hit)] == ["commit"]
    assert "".join(text for text, _ in hit.snippet) == "please commit this change"


def test_it_finds_a_reply_by_the_start_of_a_word(home):
    imported(home)

    [hit] = search.search("refactor").hits

    assert hit.kind == "reply"
    assert hit.url == f"/sessions/{S}/?u=a1&q=refactor#u-a1"
    assert marked(hit) == ["refactoring"]


def test_it_finds_a_tool_command_and_its_result(home):
    imported(home)

    [tool] = search.search("pytest").hits
    [result] = search.search("xfailed").hits

    assert (tool.kind, tool.tool_name, tool.url) == ("tool", "Bash", f"/sessions/{S}/?u=a2&q=pytest#u-a2")
    assert tool.epoch == 2
    assert (result.kind, result.url) == ("result", f"/sessions/{S}/?u=r2&q=xfailed#u-r2")


def test_it_matches_a_file_path_as_a_phrase(home):
    imported(home)

    [hit] = search.search("tests/flaky_module.py").hits

    assert hit.kind == "tool"


def test_it_requires_every_term(home):
    imported(home)

    assert [hit.uuid for hit in search.search("now run").hits] == ["u2"]
    assert search.search("commit pytest").total == 0


def test_it_finds_a_way_id_and_links_to_the_turn(home):
    imported(home)

    results = search.search("delivery/commits")

    [hit] = results.hits
    assert hit.kind == "way"
    assert (hit.way_id, hit.way_ids, hit.epoch) == (
        "softwaredev/delivery/commits",
        ("softwaredev/delivery/commits",),
        1,
    )
    assert hit.url == f"/sessions/{S}/?from=1&q=delivery%2Fcommits#turn-1"
    assert marked(hit) == ["delivery/commits"]
    assert results.total == 1


def test_it_lists_way_hits_before_text_hits_and_pages_across_both(home):
    imported(home)

    everything = search.search("commit")
    first = search.search("commit", limit=1)
    second = search.search("commit", limit=1, offset=1)

    assert [hit.kind for hit in everything.hits] == ["way", "prompt"]
    assert everything.total == 2
    assert [hit.kind for hit in first.hits] == ["way"] and first.has_next and not first.has_previous
    assert [hit.kind for hit in second.hits] == ["prompt"] and second.has_previous and not second.has_next
    assert (second.page, second.num_pages) == (2, 2)
    assert not everything.capped


def test_it_stops_counting_at_the_cap(home, monkeypatch):
    imported(home)
    monkeypatch.setattr(search_text, "TEXT_COUNT_CAP", 1)

    results = search.search("the")
    beyond = search.search("the", limit=1, offset=1)

    assert (results.total, results.capped) == (1, True)
    assert (beyond.hits, beyond.total, beyond.has_next) == ([], 1, False)  # the pages end where counting did


def test_it_says_how_far_it_counted_when_it_stops(home, client, monkeypatch):
    imported(home)
    monkeypatch.setattr(search_text, "TEXT_COUNT_CAP", 1)

    body = client.get("/search/", {"q": "the"}).content.decode()

    assert "1+ result" in body and "only the first 1 are counted and paged" in body
    assert "counted and paged" not in client.get("/search/", {"q": "refactor"}).content.decode()


def test_it_shows_a_line_near_unkeyed_turns_under_the_first_of_them(home):
    # No UserPromptSubmit injection: both turns are placed by time near the one prompt.
    append(
        home.live,
        ev(0, "session_start"),
        ev(2, "way_fired", way="d/first", trigger="bash"),
        ev(9, "way_fired", way="d/second", trigger="bash"),
    )
    home.transcript(
        P,
        S,
        prompt("u1", None, 1, "please wombat the build"),
        assistant("a1", "u1", 10, {"type": "text", "text": "the wombat is done"}),
    )
    call_command("ingest", stdout=StringIO())

    hits = search.search("wombat").hits

    assert set(Turn.objects.values_list("epoch", "join_confidence")) == {(1, "heuristic"), (2, "heuristic")}
    assert sorted((hit.uuid, hit.epoch) for hit in hits) == [("a1", 1), ("u1", 1)]


def test_it_reads_a_page_of_hits_in_the_same_number_of_queries_however_many_it_shows(home):
    imported(home)
    for n in range(3, 13):
        home.transcript(P, f"{S[:-2]}{n:02d}", prompt(f"x{n}", None, n, f"the numbat {n} is hungry"))
    call_command("ingest", stdout=StringIO())

    with CaptureQueriesContext(connection) as one:
        assert len(search.search("refactor").hits) == 1
    with CaptureQueriesContext(connection) as many:
        assert len(search.search("the").hits) > 10

    assert len(many.captured_queries) == len(one.captured_queries)


def test_it_groups_hits_by_session(home):
    imported(home)

    [group] = search.search("commit").groups

    assert group.sid == S
    assert group.url == f"/sessions/{S}/"
    assert [hit.kind for hit in group.hits] == ["way", "prompt"]


def test_it_treats_an_empty_query_as_no_search_and_punctuation_as_no_results(home):
    imported(home)

    assert (search.search("").total, search.search("   ").hits) == (None, [])
    assert (search.search("*** --- ...").total, search.search("*** --- ...").hits) == (0, [])


@pytest.mark.parametrize("query", HOSTILE)
def test_it_never_fails_on_hostile_queries(home, client, query):
    imported(home)

    results = search.search(query)
    response = client.get("/search/", {"q": query})

    assert results.total is not None or not query.strip()
    # A NUL never reaches the view: lib/middleware.py answers 400 (PostgreSQL refuses it in a query).
    assert response.status_code == (400 if "\x00" in query else 200)


def test_it_treats_search_syntax_as_text(home):
    imported(home, prompt_text='please commit NEAR( "this" OR that -change')

    assert [hit.uuid for hit in search.search("NEAR(").hits] == ["u1"]
    assert [hit.uuid for hit in search.search("commit OR").hits] == ["u1"]
    assert search.search("commit OR pytest").total == 0  # OR is a word here, not an operator


def test_it_escapes_matches_inside_mark(home):
    imported(home, prompt_text="<script>alert(1)</script> broke the commit hook")

    def rendered(query: str) -> str:
        context = {"results": search.search(query), "q": query}
        return render_to_string("introspect/search.html#search-results", context)

    html = rendered("broke")
    assert "<script" not in html and "<mark>broke</mark>" in html
    assert f'href="/sessions/{S}/?u=u1&amp;q=broke#u-u1"' in html
    if connection.vendor == "sqlite":  # PostgreSQL's parser drops <script> elements, text and all
        assert "&lt;script&gt;alert(1)&lt;/script&gt; <mark>broke</mark>" in html
        assert "&lt;script&gt;<mark>alert</mark>(1)&lt;/script&gt;" in rendered("alert")


def test_it_indexes_newly_imported_lines(home):
    imported(home)
    assert search.search("quokka").total == 0

    home.transcript(P, S, prompt("u3", "r2", 40, "what does a quokka eat"))
    call_command("ingest", stdout=StringIO())

    [hit] = search.search("quokka").hits
    assert hit.url == f"/sessions/{S}/?u=u3&q=quokka#u-u3"


def test_it_follows_updates_and_deletes_and_skips_inert_and_copied_lines(home):
    imported(home)
    entry = TranscriptEntry.objects.get(uuid="u1")

    TranscriptEntry.objects.filter(pk=entry.pk).update(text="please squash this change")
    assert search.search("commit").total == 1  # only the way hit is left
    assert search.search("squash").total == 1

    TranscriptEntry.objects.filter(pk=entry.pk).update(inert=True)
    assert search.search("squash").total == 0
    TranscriptEntry.objects.filter(pk=entry.pk).update(inert=False)
    assert search.search("squash").total == 1

    TranscriptEntry.objects.filter(pk=entry.pk).update(is_copy=True)
    assert search.search("squash").total == 0

    TranscriptEntry.objects.filter(pk=entry.pk).delete()
    assert search.search("squash").total == 0
    assert search.search("pytest").total == 1
    if connection.vendor == "sqlite":
        with connection.cursor() as cursor:  # raises when the index and its postings disagree
            cursor.execute(
                f"INSERT INTO {search_text.FTS_TABLE}({search_text.FTS_TABLE}) VALUES ('integrity-check')"
            )


def test_it_links_a_subagent_line_to_the_subagent_page(home, client):
    imported(home)
    sub = home.transcript(P, S).parent / S / "subagents" / "agent-abc123.jsonl"
    reply = assistant("sa1", "sa0", 30, {"type": "text", "text": "the numbat survey is done"})
    append(sub, orjson.dumps({**reply, "isSidechain": True, "agentId": "abc123"}) + b"\n")
    call_command("ingest", stdout=StringIO())

    [hit] = search.search("numbat").hits

    assert (hit.kind, hit.subagent, hit.epoch) == ("reply", "abc123", None)
    assert hit.url == f"/sessions/{S}/agents/abc123/?hit=sa1&q=numbat#u-sa1"
    assert client.get(hit.url.split("#")[0]).status_code == 200


def test_it_renders_the_page_and_the_fragment(home, client):
    imported(home)

    page = client.get("/search/", {"q": "commit"})
    fragment = client.get("/search/", {"q": "commit"}, headers={"HX-Request": "true"})
    boosted = client.get("/search/", {"q": "commit"}, headers={"HX-Request": "true", "HX-Boosted": "true"})
    empty = client.get("/search/")
    none = client.get("/search/", {"q": "zzzzqqq"})

    assert page.status_code == 200
    assert page.templates[0].name == "introspect/search.html"
    assert page.context["nav"] == "search"
    body = page.content.decode()
    assert 'data-shortcut="/"' in body and 'id="search-results"' in body and 'action="/search/"' in body
    assert f'href="/sessions/{S}/?u=u1&amp;q=commit#u-u1"' in body
    assert f'href="/sessions/{S}/?from=1&amp;q=commit#turn-1"' in body
    assert "<html" not in fragment.content.decode()
    assert fragment.content.decode().lstrip().startswith('<div id="search-results"')
    assert "<html" in boosted.content.decode()
    assert "Search everything imported" in empty.content.decode()
    assert "No results" in none.content.decode()


def test_it_pages_with_the_query_kept(home, client, monkeypatch):
    imported(home)
    monkeypatch.setattr(search_views, "HITS_PER_PAGE", 1)

    first = client.get("/search/", {"q": "commit"}).content.decode()
    second = client.get("/search/", {"q": "commit", "page": "2"}).content.decode()
    beyond = client.get("/search/", {"q": "commit", "page": "9"}).content.decode()

    assert 'href="?q=commit&amp;page=2"' in first
    assert 'href="?q=commit&amp;page=1"' in second and "page=3" not in second
    assert "no more results" in beyond


def indexed_entries(word: str) -> list[int]:
    """The entry ids the backend's own full-text index gives for `word` (FTS5 on SQLite, the `simple`
    tsvector on PostgreSQL), read from the index itself rather than through the search."""
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(
                f"SELECT id FROM {search_text.entry_table()} "
                "WHERE to_tsvector('simple'::regconfig, coalesce(text, '')) @@ to_tsquery('simple', %s)",
                [word],
            )
        else:
            table = search_text.FTS_TABLE
            cursor.execute(f"SELECT rowid FROM {table} WHERE {table} MATCH %s", [word])
        return [row_id for (row_id,) in cursor.fetchall()]


def test_it_indexes_each_new_entry_once_when_the_same_lines_are_read_again(home):
    imported(home)
    call_command("ingest", "--ignore-checkpoints", stdout=StringIO())

    indexed = indexed_entries("commit")
    if connection.vendor == "sqlite":
        with connection.cursor() as cursor:  # raises when the index and its postings disagree
            cursor.execute(
                f"INSERT INTO {search_text.FTS_TABLE}({search_text.FTS_TABLE}) VALUES ('integrity-check')"
            )
    assert indexed == [TranscriptEntry.objects.get(uuid="u1").pk]
    assert search.search("commit").total == 2


def test_the_full_text_index_outlives_every_migration():
    """PostgreSQL: a GIN index on the entry text's `simple` tsvector, which follows every row.
    SQLite: Django rebuilds a table to alter it, dropping its triggers, so a later migration that
    alters introspect_transcriptentry must create the FTS5 sync triggers again. New rows are indexed
    by the loader (0017): an insert trigger put back by a later migration would index them twice."""
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(
                "SELECT indexdef FROM pg_indexes WHERE indexname = %s",
                [f"{TranscriptEntry._meta.db_table}_text_fts"],
            )
            [(indexdef,)] = cursor.fetchall()
            assert "gin" in indexdef.lower() and "to_tsvector" in indexdef
            return
        cursor.execute(
            "SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = %s",
            [TranscriptEntry._meta.db_table],
        )
        names = {row[0] for row in cursor.fetchall()}
    assert {f"{search_text.FTS_TABLE}_{suffix}" for suffix in ("ad", "au")} <= names
    assert f"{search_text.FTS_TABLE}_ai" not in names


def test_it_searches_with_the_backend_s_full_text_search(home):
    imported(home)

    [prompt_hit] = only(search.search("commit"), "prompt")
    [tool] = search.search("pytest").hits

    assert prompt_hit.url == f"/sessions/{S}/?u=u1&q=commit#u-u1"
    assert [text.lower() for text in marked(prompt_hit)] == ["commit"]
    assert tool.kind == "tool"
    for query in HOSTILE:
        search.search(query)


# Collapsed hits, filters, sorts ------------------------------------------------------------------

S2 = "0a1b2c3d-4e5f-4a6b-8c7d-9e8f7a6b5c4d"
P2 = "/home/dev/other"
READ_OUTPUT = "1\tdef wombat_count(burrows):\n2\t    return len(burrows)"


def read(uuid: str, parent: str | None, second: int, sid: str = S) -> list[dict]:
    """A Read of the same file: the call, then its (identical every time) output."""
    call = assistant(
        f"{uuid}c", parent, second, {"type": "tool_use", "id": f"toolu_{uuid}", "name": "Read", "input": {}}
    )
    result = tool_result(f"{uuid}r", f"{uuid}c", second + 1, f"toolu_{uuid}", READ_OUTPUT)
    return [{**call, "sessionId": sid}, {**result, "sessionId": sid}]


def every_kind(home) -> None:
    """One session in which "wombat" is in a prompt, a reply, a tool input and output, a thought, a way id."""
    append(
        home.live,
        ev(0, "session_start"),
        ev(2, "way_fired", way="zoo/wombat-care", trigger="keyword", matched_span="wombat"),
    )
    home.transcript(
        P,
        S,
        prompt("u1", None, 1, "count the wombat burrows"),
        injection("i1", "u1", 1),
        assistant("t1", "i1", 3, {"type": "thinking", "thinking": "a wombat digs many burrows"}),
        assistant(
            "a1",
            "t1",
            4,
            {
                "type": "tool_use",
                "id": "toolu_w",
                "name": "Bash",
                "input": {"command": "grep -c wombat zoo.txt"},
            },
        ),
        tool_result("r1", "a1", 5, "toolu_w", "7 wombat lines"),
        assistant("a2", "r1", 6, {"type": "text", "text": "There are seven wombat burrows."}),
    )
    call_command("ingest", stdout=StringIO())


def test_it_collapses_identical_lines_of_a_session_into_one_hit_with_a_count(home):
    imported(home)
    home.transcript(P, S, *read("x", "r2", 30), *read("y", "xr", 32), *read("z", "yr", 34))
    home.transcript(P2, S2, *read("w", None, 40, sid=S2))
    call_command("ingest", stdout=StringIO())

    results = search.search("wombat_count")

    assert results.total == 2  # one hit per session, not four lines
    by_session = {hit.session_sid: hit for hit in results.hits}
    repeated, single = by_session[S], by_session[S2]
    assert (repeated.kind, repeated.count, single.count) == ("result", 3, 1)
    assert repeated.url == f"/sessions/{S}/?u=xr&q=wombat_count#u-xr"  # the first of the three
    assert (repeated.ts.second, repeated.last_ts.second) == (31, 35)
    assert single.last_ts is None


def test_it_keeps_lines_that_differ_apart(home):
    imported(home)
    home.transcript(
        P, S, prompt("u3", "r2", 40, "the wombat again"), prompt("u4", "u3", 41, "the wombat again!")
    )
    call_command("ingest", stdout=StringIO())

    assert sorted(hit.count for hit in search.search("wombat").hits) == [1, 1]


@pytest.mark.parametrize(
    ("kind", "uuid"),
    [("prompt", "u1"), ("reply", "a2"), ("tool", "a1"), ("result", "r1"), ("thinking", "t1"), ("way", "")],
)
def test_it_narrows_to_one_kind(home, kind, uuid):
    every_kind(home)
    assert search.search("wombat").total == 6

    [hit] = search.search("wombat", filters=search_filters.SearchFilters(kinds=(kind,))).hits

    assert (hit.kind, hit.uuid) == (kind, uuid)


def test_it_narrows_to_several_kinds_at_once(home):
    every_kind(home)

    results = search.search(
        "wombat", filters=search_filters.SearchFilters(kinds=("result", "way", "nonsense"))
    )

    assert results.filters.kinds == ("result", "way")
    assert sorted(hit.kind for hit in results.hits) == ["result", "way"]


def test_its_kind_conditions_agree_with_the_line_classification(home):
    every_kind(home)
    imported(home)  # adds summary-free user lines, injections and a second tool round trip
    entries = list(TranscriptEntry.objects.filter(session__isnull=False))
    table = connection.ops.quote_name(TranscriptEntry._meta.db_table)

    with connection.cursor() as cursor:
        for kind, condition in search_filters.KIND_SQL.items():
            cursor.execute(f"SELECT e.id FROM {table} e WHERE {condition}")
            matched = {pk for (pk,) in cursor.fetchall()}
            assert matched == {entry.pk for entry in entries if entry_kinds.search_kind(entry) == kind}, kind


def test_it_narrows_to_a_project(home):
    imported(home)
    home.transcript(
        P2, S2, {**prompt("o1", None, 50, "commit the other project"), "sessionId": S2, "cwd": P2}
    )
    call_command("ingest", stdout=StringIO())
    other = Session.objects.get(sid=S2).project

    everywhere = search.search("commit")
    there = search.search("commit", filters=search_filters.SearchFilters(project=other.pk))
    here = search.search(
        "commit", filters=search_filters.SearchFilters(project=Session.objects.get(sid=S).project_id)
    )

    assert {hit.session_sid for hit in everywhere.hits} == {S, S2}
    assert [hit.session_sid for hit in there.hits] == [S2]
    assert {hit.session_sid for hit in here.hits} == {S} and {hit.kind for hit in here.hits} == {
        "way",
        "prompt",
    }


def test_it_narrows_to_a_day_range_including_both_ends(home):
    imported(home)  # 2026-07-03
    later = {
        **prompt("d1", None, 0, "commit on the fifth"),
        "sessionId": S2,
        "timestamp": "2026-07-05T12:00:00.000Z",
    }
    home.transcript(P2, S2, later)
    call_command("ingest", stdout=StringIO())

    def days(since: date | None, until: date | None) -> set[str]:
        results = search.search("commit", filters=search_filters.SearchFilters(since=since, until=until))
        return {hit.uuid or hit.kind for hit in results.hits}

    assert days(date(2026, 7, 3), date(2026, 7, 3)) == {"u1", "way"}
    assert days(date(2026, 7, 4), None) == {"d1"}
    assert days(None, date(2026, 7, 4)) == {"u1", "way"}
    assert days(date(2026, 7, 5), date(2026, 7, 5)) == {"d1"}
    assert days(date(2026, 7, 6), None) == set()


def test_it_sorts_by_relevance_or_newest_first(home):
    imported(home)
    home.transcript(
        P,
        S,
        prompt("old", "r2", 40, "numbat numbat numbat numbat numbat"),
        prompt("new", "old", 50, "a numbat, once, among many other words of a long and wandering prompt"),
    )
    call_command("ingest", stdout=StringIO())

    best = search.search("numbat")
    newest = search.search("numbat", filters=search_filters.SearchFilters(sort="newest"))

    assert [hit.uuid for hit in best.hits] == ["old", "new"]
    assert [hit.uuid for hit in newest.hits] == ["new", "old"]


def test_it_merges_way_turns_and_lines_by_time_when_newest_first(home):
    imported(home)  # a way turn at 16:40:02 (commits) and the prompt at :01

    best = search.search("commit")
    newest = search.search("commit", filters=search_filters.SearchFilters(sort="newest"))
    home.transcript(P, S, prompt("u9", "r2", 45, "commit again"))
    call_command("ingest", stdout=StringIO())
    pages = [
        search.search("commit", filters=search_filters.SearchFilters(sort="newest"), limit=1, offset=n)
        for n in range(3)
    ]

    assert [hit.kind for hit in best.hits] == ["way", "prompt"]  # way hits lead by relevance
    assert [hit.kind for hit in newest.hits] == ["way", "prompt"]  # 16:40:02 before 16:40:01
    assert [page.hits[0].uuid or page.hits[0].kind for page in pages] == ["u9", "way", "u1"]
    assert [page.has_next for page in pages] == [True, True, False]


def test_it_reads_a_sorted_filtered_page_in_as_many_queries_however_many_it_shows(home):
    imported(home)
    for n in range(3, 13):
        home.transcript(P, f"{S[:-2]}{n:02d}", prompt(f"x{n}", None, n, f"the numbat {n} is hungry"))
    call_command("ingest", stdout=StringIO())
    filters = search_filters.SearchFilters(
        sort="newest", kinds=("prompt", "reply", "way"), since=date(2026, 7, 1)
    )

    with CaptureQueriesContext(connection) as one:
        assert len(search.search("refactor", filters=filters).hits) == 1
    with CaptureQueriesContext(connection) as many:
        assert len(search.search("the", filters=filters).hits) > 10

    assert len(many.captured_queries) == len(one.captured_queries)


def test_it_heads_each_session_group_with_its_title_project_and_start(home):
    imported(home, prompt_text="please commit this change " + "and then tidy up the rest of the module " * 5)

    [group] = search.search("commit").groups

    session = Session.objects.get(sid=S)
    assert group.full_title == session.title and len(session.title) > search_results.TITLE_CHARS
    assert group.title.endswith("…") and len(group.title) <= search_results.TITLE_CHARS
    assert session.title.startswith(group.title[:-1]) and session.title[len(group.title) - 1] == " "
    assert (group.project, group.started) == ("proj", session.started_at)


def test_its_filters_keep_only_known_kinds_and_sorts():
    filters = search_filters.SearchFilters(kinds=("way", "bogus", "prompt"), sort="sideways")

    assert (filters.kinds, filters.sort) == (("prompt", "way"), "relevance")
    assert (filters.wants_text, filters.wants_ways, filters.active) == (True, True, True)
    assert not search_filters.SearchFilters().active
    assert not search_filters.SearchFilters(kinds=("way",)).wants_text
    assert not search_filters.SearchFilters(kinds=("reply",)).wants_ways
