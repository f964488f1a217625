"""The command palette finds pages, sessions (id prefix, title, project), ways and decision records."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from introspect.models import Project, Session, Way
from ledger.models import AdrRecord
from waysweb.queries import palette

pytestmark = pytest.mark.django_db

NOW = datetime(2026, 11, 8, 12, 0, tzinfo=UTC)


def session(sid: str, *, title: str = "", project: Project | None = None, day: int = 1) -> Session:
    return Session.objects.create(
        sid=sid, title=title, project=project, started_at=datetime(2026, 11, day, 10, 0, tzinfo=UTC)
    )


def way(way_id: str, *, root: str = "/core", present: bool = True) -> Way:
    return Way.objects.create(
        way_id=way_id,
        domain=way_id.partition("/")[0],
        root_kind=Way.RootKind.CORE,
        root=root,
        rel_path=f"{way_id}/way.md",
        sha256="0" * 64,
        present=present,
        read_at=NOW,
        changed_at=NOW,
    )


def record(canonical_id: str, title: str, *, present: bool = True) -> AdrRecord:
    return AdrRecord.objects.create(
        repo="/src/api-server",
        directory="docs/adr",
        canonical_id=canonical_id,
        rel_path=f"docs/adr/{canonical_id.lower()}.md",
        title=title,
        present=present,
        read_at=NOW,
    )


def found(text: str) -> list[tuple[str, str, str]]:
    return [(item.kind, item.label, item.url) for item in palette.palette_document(text).items]


def test_it_finds_a_session_by_its_id_prefix_and_links_to_its_page():
    session("3f12dab8-ee65-4941-ae6f-11e4d6a398ba", title="the bundle grew 40 kB last week")
    session("97027263-6de1-409f-851f-0e908771532b", title="reading list")
    assert found("3f12") == [
        ("session", "the bundle grew 40 kB last week", "/sessions/3f12dab8-ee65-4941-ae6f-11e4d6a398ba/")
    ]
    [item] = palette.palette_document("3f12").items
    assert item.detail == "3f12dab8"


def test_an_id_prefix_ranks_above_a_title_that_mentions_it():
    session("aaaa-older-title-hit", title="fix beef parsing", day=5)
    session("beef-0001", title="unrelated", day=1)
    assert [label for kind, label, url in found("beef")] == ["unrelated", "fix beef parsing"]


def test_it_finds_sessions_by_title_and_by_project_newest_first_with_the_project_shown():
    web = Project.objects.create(path="/home/dev/src/web-ui", name="web-ui")
    session("s-old", title="older work", project=web, day=1)
    session("s-new", title="newer work", project=web, day=3)
    session("s-other", title="the login form", day=2)
    assert [label for kind, label, url in found("web-ui")] == ["newer work", "older work"]
    assert [label for kind, label, url in found("LOGIN")] == ["the login form"]
    assert palette.palette_document("web-ui").items[0].detail == "s-new · web-ui"


def test_a_session_without_a_title_shows_its_first_prompt_or_its_id():
    Session.objects.create(sid="no-title-1", first_prompt="print the env vars")
    Session.objects.create(sid="no-title-2")
    assert {label for kind, label, url in found("no-title")} == {"print the env vars", "no-title-2"}


def test_it_finds_a_way_once_however_many_roots_hold_it_and_never_a_gone_one():
    way("softwaredev/code/testing", root="/core")
    way("softwaredev/code/testing", root="/home/dev/.claude/ways")
    way("softwaredev/code/retired", present=False)
    assert found("code/") == [("way", "softwaredev/code/testing", "/ways/softwaredev/code/testing/")]


def test_it_finds_a_decision_record_by_id_or_title_and_never_a_gone_one():
    adr = record("ADR-0002", "Use PostgreSQL with Alembic migrations")
    record("ADR-0009", "Use PostgreSQL for everything", present=False)
    url = f"/ledger/decisions/{adr.pk}/"
    assert found("adr-0002") == [("decision", "ADR-0002 Use PostgreSQL with Alembic migrations", url)]
    assert found("postgresql") == [("decision", "ADR-0002 Use PostgreSQL with Alembic migrations", url)]
    assert palette.palette_document("alembic").items[0].detail == "api-server"


def test_it_finds_pages_by_name_or_by_a_word_for_them():
    assert found("import") == [("page", "Import status", "/status/")]
    assert found("review") == [("page", "Knowledge", "/ledger/knowledge/")]
    assert found("adr") == [("page", "Decisions", "/ledger/decisions/")]


def test_with_nothing_typed_it_lists_every_page_then_the_newest_sessions():
    for n in range(12):
        session(f"s-{n:02d}", title=f"session {n}", day=n + 1)
    items = palette.palette_document("  ").items
    assert [item.label for item in items if item.kind == "page"] == [
        "Sessions", "Ways", "Ledger", "Knowledge", "Decisions", "Search", "Import status"
    ]  # fmt: skip
    assert [item.label for item in items if item.kind == "session"] == [
        f"session {n}" for n in range(11, 11 - palette.SESSIONS, -1)
    ]


def test_its_answer_is_bounded_in_rows_and_queries(django_assert_max_num_queries):
    for n in range(30):
        session(f"many-{n:02d}", title="many")
        way(f"many/way-{n:02d}")
        record(f"MANY-{n:02d}", "many")
    with django_assert_max_num_queries(3):
        items = palette.palette_document("many").items
    kinds = [item.kind for item in items]
    assert kinds.count("session") == palette.SESSIONS
    assert kinds.count("way") == palette.WAYS
    assert kinds.count("decision") == palette.DECISIONS


def test_it_reads_only_the_first_characters_of_a_very_long_text():
    assert palette.palette_document("x" * 5000).query == "x" * palette.MAX_QUERY


def test_text_that_matches_nothing_finds_nothing():
    session("s-1", title="something")
    assert found("zzz-nothing") == []
