"""Way pages: the catalog and one way's page, generation labelling, escaping, bounded queries (the
numbers they print: tests/introspect/queries/test_way_*.py)."""

from __future__ import annotations

from datetime import UTC, date, datetime
from io import StringIO

import pytest
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import resolve, reverse

from introspect.queries.way_files import criteria_rows
from introspect.queries.way_page import way_stats
from lib import charts
from tests.conftest import append, line
from tests.introspect.ways_home import S1, S2, imported

pytestmark = pytest.mark.django_db


def test_it_routes_way_ids_with_slashes():
    assert reverse("introspect:way-list") == "/ways/"
    assert (
        reverse("introspect:way-detail", args=["softwaredev/delivery/commits"])
        == "/ways/softwaredev/delivery/commits/"
    )
    match = resolve("/ways/softwaredev/delivery/commits/")
    assert match.kwargs == {"way_id": "softwaredev/delivery/commits"}


def test_it_charts_a_fire_in_the_calendars_last_week_and_shows_its_page(client, home):
    append(
        home.live,
        line(ts="9999-12-20T10:00:00Z", event="way_fired", way="d/w", trigger="keyword", session="w1"),
        line(ts="9999-12-31T23:59:59Z", event="way_fired", way="d/w", trigger="keyword", session="w1"),
    )
    call_command("ingest", stdout=StringIO())
    weeks = way_stats("d/w").weeks
    assert [(w.start, w.fires) for w in weeks] == [(date(9999, 12, 20), 1), (date(9999, 12, 27), 1)]
    assert client.get(reverse("introspect:way-detail", args=["d/w"])).status_code == 200


def test_it_mixes_channels_and_lists_sessions_with_turn_links(client, home):
    imported(home)
    stats = way_stats("d/a")
    mix = {m.channel: (m.total, m.fires, m.redisclosures, m.withheld) for m in stats.channels}
    assert mix == {
        "semantic:embedding:en": (3, 1, 1, 1),
        "keyword": (3, 2, 1, 0),
        "keyword:gated": (1, 0, 0, 1),
        "judge": (1, 0, 0, 1),
    }
    rows = [
        (s.sid, s.project, s.fires, s.redisclosures, s.withheld, s.first_epoch, s.last_epoch)
        for s in stats.sessions
    ]
    # Session 1's turns: 1 fire, 2 re-disclosed, 3 held, 4 ghost/only-events, 5 fire, 6 re-disclosed.
    assert rows == [(S2, "beta", 1, 0, 2, 1, 1), (S1, "alpha", 2, 2, 1, 1, 6)]
    assert stats.session_total == 2
    body = client.get("/ways/d/a/").content.decode()
    assert f'href="/sessions/{S1}/#turn-1"' in body and f'href="/sessions/{S1}/#turn-6"' in body
    assert f'href="/sessions/{S2}/#turn-1"' in body


def test_it_lists_near_misses_with_margin_split_by_generation(client, home):
    imported(home)
    stats = way_stats("d/a")
    [calibrated] = stats.near_misses
    assert (calibrated.probability, calibrated.tau_s, calibrated.margin, calibrated.sid) == (
        0.4791,
        0.5,
        0.0209,
        S1,
    )
    [raw] = stats.raw_near_misses
    assert (raw.score_en, raw.thr_en, raw.margin, raw.probability) == (0.441, 0.46, 0.019, None)
    assert raw.generation_label == "raw score, before ADR-156"
    body = client.get("/ways/d/a/").content.decode()
    assert "nearly fired: 0.479 vs τ 0.5" in body
    assert "Raw score, before ADR-156" in body


def test_it_never_plots_raw_scores_against_the_calibrated_threshold(client, home):
    imported(home)
    stats = way_stats("d/a")
    assert [(p.kind, p.value) for p in stats.score_points] == [
        ("fire", 0.622),
        ("near-miss", 0.4791),
        ("redisclosure", 0.55),
    ]
    assert stats.tau == 0.5
    response = client.get("/ways/d/a/")
    chart = str(response.context["scores_chart"])
    assert 'class="tau"' in chart and "0.441" not in chart and "0.46" not in chart
    assert f'href="/sessions/{S1}/#turn-1"' in chart  # a fire's dot links to its turn
    assert "0.441" in response.content.decode()  # listed in the raw table instead


def test_it_shows_resolution_shadowing_and_gone_fields(client, home):
    imported(home)
    stats = way_stats("d/a")
    assert [(row.way.root_kind, row.resolves) for row in stats.files] == [("user", True), ("core", False)]
    assert stats.files[1].note == "shadowed by the user way"
    assert stats.primary.root_kind == "user"
    response = client.get("/ways/d/a/")
    assert response.status_code == 200
    assert next(t.name for t in response.templates) == "introspect/way_detail.html"
    assert response.context["nav"] == "ways"
    body = response.content.decode()
    assert "Current criteria" in body and "not necessarily as fired" in body
    assert str(home.user_ways / "d" / "a" / "a.md") in body
    core = way_stats("d/a").files[1].way
    assert [c.gone_note for c in criteria_rows(core) if c.key == "embed_threshold"] == [
        "not read since ADR-156 (firing uses the global τ on calibrated g(s))"
    ]


def test_it_strikes_gone_fields_through(client, home):
    home.way(home.core_ways, "d/old", "pattern: x\nembed_threshold: 0.4\ncurve: steep\nredisclose: 5")
    call_command("ingest", stdout=StringIO())
    body = client.get("/ways/d/old/").content.decode()
    assert "<s>embed_threshold</s>" in body and "not read since ADR-156" in body
    assert "<s>curve</s>" in body and "not read since ADR-126" in body
    assert "<s>redisclose</s>" in body and "not read since ADR-123" in body


def test_it_gives_an_event_only_way_a_page_without_inventing_criteria(client, home):
    imported(home)
    response = client.get("/ways/ghost/only-events/")
    assert response.status_code == 200
    body = response.content.decode()
    assert "no way file today" in body and "criteria unknown, not invented" in body
    assert "Current criteria" not in body


def test_it_returns_404_for_a_way_never_seen(client, home):
    imported(home)
    assert client.get("/ways/never/seen/").status_code == 404


def test_it_escapes_a_hostile_way_body_criteria_and_id(client, home):
    home.way(
        home.core_ways,
        "d/evil",
        'description: "<script>alert(1)</script>"\npattern: <img src=x onerror=alert(2)>',
        body="<script>alert(3)</script>\n\n# Heading\n",
    )
    append(
        home.live,
        line(
            ts="2026-11-02T10:00:00Z",
            event="way_fired",
            way="x/<script>alert(4)</script>",
            trigger="keyword",
            session="h1",
        ),
    )
    call_command("ingest", stdout=StringIO())
    body = client.get("/ways/d/evil/").content.decode()
    assert "<script>alert" not in body and "<img src=x" not in body
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in body and "&lt;script&gt;alert(3)&lt;/script&gt;" in body
    listing = client.get("/ways/").content.decode()
    assert "<script>alert(4)" not in listing and "&lt;script&gt;alert(4)&lt;/script&gt;" in listing
    hostile = client.get(reverse("introspect:way-detail", args=["x/<script>alert(4)</script>"]))
    assert hostile.status_code == 200 and "<script>alert(4)" not in hostile.content.decode()


def test_it_renders_the_list_page_and_its_tree_fragment(client, home):
    imported(home)
    response = client.get("/ways/")
    assert response.status_code == 200 and response.context["nav"] == "ways"
    body = response.content.decode()
    assert 'href="/ways/d/a/"' in body and 'href="/ways/ghost/only-events/"' in body
    assert "no file today" in body
    fragment = client.get("/ways/", {"q": "ghost"}, headers={"HX-Request": "true"}).content.decode()
    assert fragment.lstrip().startswith('<div id="way-tree">') and "<html" not in fragment
    assert "ghost" in fragment and 'href="/ways/d/a/"' not in fragment


def test_it_shows_an_empty_state_and_a_no_match_state(client, home):
    assert "No ways yet" in client.get("/ways/").content.decode()
    imported(home)
    assert "No way matches" in client.get("/ways/", {"q": "zzz"}).content.decode()


def test_it_draws_escaped_svg_charts():
    bars = str(charts.weekly_bars([("<script>", 2, 1), ("2026-W46", 0, 0)]))
    assert (
        bars.startswith("<svg") and "viewBox=" in bars and "<script>" not in bars and "&lt;script&gt;" in bars
    )
    assert bars.count('class="bar bar--fire"') == 1 and bars.count('class="bar bar--redisclosure"') == 1

    dot = charts.Dot(
        when=datetime(2026, 11, 2, tzinfo=UTC),
        value=0.7,
        kind="fire",
        title='<b onload="x">',
        href='/sessions/a"b/',
    )
    strip = str(charts.score_strip([dot], tau=0.5))
    assert "<b onload" not in strip and "&lt;b onload=&quot;x&quot;&gt;" in strip and "a&quot;b" in strip
    # τ 0.5 sits half-way up the plot area (TOP 22, height 156).
    assert 'class="tau" x1="44" x2="708" y1="100" y2="100"' in strip
    assert "no calibrated score recorded" in str(charts.score_strip([]))


def many_sessions(home, count: int, start: int = 0) -> None:
    for n in range(start, start + count):
        sid = f"bulk-{n:04d}"
        day = 2 + n % 20
        append(
            home.live,
            line(
                ts=f"2026-11-{day:02d}T10:00:00Z",
                event="session_start",
                project=f"/src/p{n % 3}",
                session=sid,
            ),
            line(
                ts=f"2026-11-{day:02d}T10:00:05Z",
                event="way_fired",
                way="d/a",
                trigger="semantic:embedding:en",
                fire_score="0.6",
                token_position="1000",
                session=sid,
            ),
            line(
                ts=f"2026-11-{day:02d}T10:00:06Z",
                event="way_nearmiss",
                way="d/b",
                prob_en="0.47",
                tau_s="0.5",
                margin="0.03",
                session=sid,
            ),
            line(
                ts=f"2026-11-{day:02d}T10:05:00Z",
                event="way_redisclosed",
                way="d/a",
                trigger="semantic:embedding:en",
                fire_score="0.55",
                token_position="9000",
                session=sid,
            ),
        )
    home.way(home.core_ways, "d/a", "pattern: commit")
    call_command("ingest", stdout=StringIO())


def queries_for(client, url: str) -> int:
    with CaptureQueriesContext(connection) as ctx:
        assert client.get(url).status_code == 200
    return len(ctx.captured_queries)


@pytest.mark.parametrize("sessions", [2, 12])
def test_it_bounds_queries_whatever_the_number_of_sessions(
    client, home, sessions, django_assert_max_num_queries
):
    many_sessions(home, sessions)
    # Twelve for the way's numbers and sessions, one for the proposals a reviewer applied, one for
    # people's labels of its fires (the proposals they argue for).
    with django_assert_max_num_queries(14):
        client.get("/ways/d/a/")
    with django_assert_max_num_queries(5):
        client.get("/ways/")


def test_it_keeps_the_query_count_flat_as_sessions_grow(client, home):
    many_sessions(home, 2)
    few = (queries_for(client, "/ways/d/a/"), queries_for(client, "/ways/"))
    many_sessions(home, 15, start=2)
    assert (queries_for(client, "/ways/d/a/"), queries_for(client, "/ways/")) == few


def test_it_warns_only_when_the_content_changed_after_the_last_fire(client, home):
    imported(home)
    assert not way_stats("d/a").changed_after_last_fire  # first read is not a change
    home.way(home.user_ways, "d/a", "description: commits, retuned\npattern: \\bcommits?\\b\nrefire: 0.3")
    call_command("ingest", stdout=StringIO())
    stats = way_stats("d/a")
    assert stats.changed_after_last_fire and stats.primary.version_count == 2
    assert "the fires below were decided by an earlier version" in client.get("/ways/d/a/").content.decode()
