"""Secrets never reach a page, a search, an export or (in team mode) the database; a reviewer may reveal
one, audited; a value marked no secret is shown as it is, in lines imported later too.

The corpus: one real-shaped secret of each kind tests/introspect/rules/test_secrets.py makes (made up
when the tests run, never live), written into a prompt, a reply, a tool call's input, its output, a
spilled output, a subagent's lines, a memory file, a ledger entry, a knowledge record, a decision
record (ADR), an agent-ways event and a majordomus ledger line. Every page reachable from the session
list, the ledger, memory, knowledge and decision indexes, the Secrets page, search, each export format
and each JSON document is read and searched for every secret, as written and as JSON or HTML would
escape it; in team mode, every column of every table of the database is.
"""

from __future__ import annotations

import html
import re
from io import StringIO
from urllib.parse import urldefrag, urljoin, urlparse

import orjson
import pytest
from django.contrib.auth.models import Permission, User
from django.core.management import call_command
from django.db import connection

from introspect.models import (
    SecretFalsePositive,
    SecretFinding,
    SecretReveal,
    Spill,
    TranscriptEntry,
    WaysEvent,
)
from introspect.rules import secrets
from ledger.models import AdrRecord, KnowledgeRecord, LedgerEntry, MemoryVersion, MjLedgerLine
from ledger.records import knowledge as knowledge_format
from lib import linepack
from tests.conftest import append
from tests.introspect.plain_session import Lines
from tests.introspect.rules.test_secrets import CASES, KIND_OF

pytestmark = pytest.mark.django_db

SID = "5ec0e7a1-0000-4000-8000-000000000030"
AGENT = "feedc0de"
KNOWLEDGE_ID = "s-20260304100000-aaaa-000000000030"
PROJECT = "/home/dev/vault"
# One case per kind: 24 kinds.
ONE_PER_KIND = {KIND_OF[case]: CASES[case] for case in reversed(CASES)}
SECRETS = {kind: secret for kind, (_, secret) in ONE_PER_KIND.items()}
BLOCK = "\n".join(around.format(secret) for around, secret in ONE_PER_KIND.values())
HREF = re.compile(r'href="([^"#]*)')
SKIP = ("/static/", "/accounts/", "/admin/", "/login", "/logout")


def forms(secret: str) -> set[str]:
    """How a secret would read on a page or in a file: as is, JSON-escaped, HTML-escaped, and its
    first line (a private key's body is one line in a page's <pre>)."""
    escaped = orjson.dumps(secret).decode()[1:-1]
    core = max(secret.splitlines(), key=len)
    return {secret, escaped, html.escape(secret), html.escape(escaped), core}


def test_the_corpus_holds_twenty_kinds_and_more():
    assert len(SECRETS) >= 20
    assert {span.kind for span in secrets.find_secrets(BLOCK)} == set(SECRETS)


def spill_stub(name: str) -> str:
    return (
        f"<persisted-output>\nOutput too large (24.4KB). Full output saved to: "
        f"~/.claude/projects/-home-dev-vault/{SID}/tool-results/{name}\n\n"
        "Preview (first 2KB):\nenv\n</persisted-output>"
    )


def write_corpus(home) -> None:
    t = Lines()
    t.user("p1", "deploy with these:\n" + BLOCK)
    t.assistant("a1", "msg_1", {"type": "text", "text": "I see these credentials:\n" + BLOCK})
    t.call("c1", "msg_2", "toolu_1", "Bash", {"command": "cat .env\n" + BLOCK, "description": "env"}, None)
    t.result("r1", "toolu_1", "$ cat .env\n" + BLOCK, extra={"stdout": BLOCK, "stderr": ""})
    t.call("c2", "msg_3", "toolu_2", "Bash", {"command": "env", "description": "print env"}, None)
    t.result("r2", "toolu_2", spill_stub("env.txt"))
    t.call(
        "c3",
        "msg_4",
        "toolu_3",
        "Task",
        {"description": "check", "prompt": "look", "subagent_type": "x"},
        None,
    )
    t.result(
        "r3",
        "toolu_3",
        f"done\nagentId: {AGENT} (for resuming)",
        extra={"agentId": AGENT, "status": "completed"},
    )
    for line in t.lines:
        line["sessionId"] = SID
    path = home.transcript(PROJECT, SID, *t.lines)
    folder = path.with_suffix("") / "tool-results"
    folder.mkdir(parents=True)
    (folder / "env.txt").write_text("$ env\n" + BLOCK + "\n")
    s = Lines(minute=1, sidechain=True, agent=AGENT)
    s.user("s1", "look at\n" + BLOCK)
    s.assistant("s2", "smsg_1", {"type": "text", "text": "found\n" + BLOCK})
    for line in s.lines:
        line["sessionId"] = SID
    append(
        path.with_suffix("") / "subagents" / f"agent-{AGENT}.jsonl",
        *(orjson.dumps(x) + b"\n" for x in s.lines),
    )
    memory = home.root / ".claude" / "projects" / "-home-dev-vault" / "memory"
    memory.mkdir(parents=True)
    (memory / "MEMORY.md").write_text("- [deploy](deploy.md): how we deploy\n")
    (memory / "deploy.md").write_text("---\nname: deploy\ndescription: how\n---\n\n" + BLOCK + "\n")
    ledger = home.root / ".claude" / "ledger" / "-home-dev-vault"
    ledger.mkdir(parents=True)
    (ledger / "2026-03-04T1000Z_e001.md").write_text(
        f"---\nsession: {SID}\nepoch: 1\ncontext_pct: 10\ntimestamp: 2026-03-04T10:00:00Z\nphase: progress\n---\n\n"
        + BLOCK
        + "\n"
    )
    write_repository(home)


def write_repository(home) -> None:
    """A repository the events name (so it is read): a decision record, a knowledge record and a
    majordomus ledger line holding the secrets, and events whose prompt text holds them too."""
    repo = home.root / "src" / "vault"
    (repo / "docs" / "adr").mkdir(parents=True)
    (repo / "docs" / "adr" / "0001-keep-keys-in-vault.md").write_text(
        "# 1. Keep keys in the vault\n\nDate: 2026-03-04\n\n## Status\n\nProposed\n\n## Context\n\n"
        f"We found these in the repository:\n\n{BLOCK}\n\n## Decision\n\nMove them to the vault.\n"
    )
    data = {
        "schema": "knowledge/v1",
        "id": KNOWLEDGE_ID,
        "kind": "knowledge",
        "class": "convention",
        "title": "Deploy keys live in the vault",
        "description": f"The deploy used {SECRETS['github-token']} until it moved.",
        "status": "candidate",
        "epistemics": "decided",
        "date": "2026-03-04",
        "tags": ["deploy"],
        "provenance": {"origin": "extracted", "derived_from": [f"claude-session:{SID}"]},
    }
    candidates = repo / ".ai" / "repo" / "knowledge" / "candidates"
    candidates.mkdir(parents=True)
    (candidates / f"{KNOWLEDGE_ID}.md").write_bytes(
        knowledge_format.render_knowledge(data, "# Deploy keys live in the vault\n\n" + BLOCK)
    )
    state = repo / ".ai" / "local" / "state"
    state.mkdir(parents=True)
    (state / "ledger.jsonl").write_bytes(
        orjson.dumps({"ts": "2026-03-04T10:00:00Z", "event": "note", "session": "s-1", "text": BLOCK}) + b"\n"
    )
    start = {"ts": "2026-03-04T10:00:00Z", "event": "session_start", "session": SID, "project": str(repo)}
    fired = {
        "ts": "2026-03-04T10:00:05Z",
        "event": "way_fired",
        "session": SID,
        "way": "security/secrets",
        "trigger": "keyword",
        "surface": "deploy with these:\n" + BLOCK,
    }
    append(home.live, orjson.dumps(start) + b"\n", orjson.dumps(fired) + b"\n")


def ingest() -> None:
    call_command("ingest", stdout=StringIO(), stderr=StringIO())


def leaks(body: str) -> list[str]:
    return [kind for kind, secret in SECRETS.items() if any(form in body for form in forms(secret))]


def crawl(client, starts: list[str], limit: int = 400) -> dict[str, str]:
    """Every page reachable from `starts` by links on the site (GET, same origin), up to `limit`."""
    seen: dict[str, str] = {}
    queue = list(starts)
    while queue and len(seen) < limit:
        url = urldefrag(queue.pop(0))[0]
        if not url or url in seen or urlparse(url).netloc or url.startswith(SKIP):
            continue
        response = client.get(url)
        if response.status_code in (301, 302):
            queue.append(urljoin(url, response["Location"]))
        body = b"".join(response.streaming_content) if response.streaming else response.content
        seen[url] = body.decode("utf-8", "replace")
        if response.get("Content-Type", "").startswith("text/html"):
            queue += [urljoin(url, html.unescape(href)) for href in HREF.findall(seen[url])]
    return seen


@pytest.fixture
def corpus(home, settings):
    settings.WAYSWEB_SECRETS_MASKED_ONLY = False
    write_corpus(home)
    ingest()
    assert Spill.objects.filter(found=True).exists()
    return home


def test_no_page_search_or_export_shows_a_secret(corpus, client):
    assert_no_page_leaks(client)


def test_no_page_shows_a_reviewer_a_secret_unasked(corpus, client):
    """A reviewer's pages hold more (forms filled with a record's wording, reveal buttons): still no value."""
    reviewer(client)
    assert_no_page_leaks(client)
    assert not SecretReveal.objects.exists()


def assert_no_page_leaks(client) -> None:
    starts = [
        "/",
        f"/sessions/{SID}/",
        f"/sessions/{SID}/agents/{AGENT}/",
        "/ledger/",
        "/ledger/memory/",
        "/ledger/knowledge/",
        "/ledger/decisions/",
        "/ledger/decisions/backlog/",
        f"/sessions/{SID}/events/",
        "/secrets/",
    ]
    starts += [f"/sessions/{SID}/export.{fmt}" for fmt in ("html", "md", "json")]
    starts += [f"/api/sessions/{SID}/{doc}.json" for doc in ("dump", "replay", "fires")] + ["/api/sessions/"]
    for secret in SECRETS.values():
        word = re.sub(r"[^A-Za-z0-9]+", " ", secret).split()[-1][:12]
        starts.append(f"/search/?q={word}")
    pages = crawl(client, starts)
    assert len(pages) > 40
    shown = {url: leaks(body) for url, body in pages.items()}
    assert {url: kinds for url, kinds in shown.items() if kinds} == {}
    # The pages did show the places, masked.
    session = pages[f"/sessions/{SID}/"]
    assert "(GitHub token, masked)" in session and "(Anthropic key, masked)" in session


def test_the_search_index_never_holds_a_secret(corpus):
    texts = "\n".join(TranscriptEntry.objects.values_list("text", flat=True))
    assert leaks(texts) == []
    assert "(Anthropic key, masked)" in texts


def test_the_exports_written_by_the_command_hold_no_secret(corpus, tmp_path):
    for fmt in ("html", "md", "json"):
        out = tmp_path / f"x.{fmt}"
        call_command("export", SID, "--format", fmt, "--output", str(out), stdout=StringIO())
        assert leaks(out.read_text()) == [], fmt
    for action in ("dump", "replay", "fires", "list"):
        stdout = StringIO()
        call_command("introspect", action, *([SID] if action != "list" else []), stdout=stdout)
        assert leaks(stdout.getvalue()) == [], action


def test_a_page_scans_again_only_the_lines_found_to_hold_a_secret(corpus):
    assert TranscriptEntry.objects.get(uuid="p1").has_secret is True
    assert TranscriptEntry.objects.get(uuid="c2").has_secret is False  # `env`: read as stored


def test_every_kind_is_a_finding_in_every_place(corpus):
    kinds = set(SecretFinding.objects.values_list("kind", flat=True))
    assert kinds == set(SECRETS)
    assert SecretFinding.objects.filter(spill_name="env.txt").count() == len(SECRETS)


def reviewer(client) -> User:
    user = User.objects.create_user("rev", password="x")
    user.user_permissions.add(Permission.objects.get(codename="review_knowledge"))
    client.force_login(user)
    return user


def test_a_reviewer_reveals_one_value_audited_and_not_cached(corpus, client):
    finding = SecretFinding.objects.filter(kind="github-token", spill_name="").first()
    response = client.post(f"/secrets/{finding.pk}/reveal/")
    assert response.status_code == 302  # not logged in: to the login page, nothing revealed
    assert not SecretReveal.objects.exists()
    user = reviewer(client)
    response = client.post(f"/secrets/{finding.pk}/reveal/")
    assert response.status_code == 200
    assert SECRETS["github-token"] in response.content.decode()
    assert response["Cache-Control"] == "no-store"
    (audit,) = SecretReveal.objects.all()
    assert (audit.user, audit.kind, audit.session.sid) == (user, "github-token", SID)
    assert audit.entry is not None and audit.fingerprint == finding.fingerprint
    assert client.get(f"/secrets/{finding.pk}/reveal/").status_code == 405


def test_a_viewer_may_not_reveal(corpus, client):
    client.force_login(User.objects.create_user("viewer", password="x"))
    finding = SecretFinding.objects.first()
    assert client.post(f"/secrets/{finding.pk}/reveal/").status_code == 403
    assert not SecretReveal.objects.exists()


def test_the_secrets_page_offers_its_buttons_to_a_reviewer_only(corpus, client):
    finding = SecretFinding.objects.first()
    acts = (f"/secrets/{finding.pk}/reveal/", f"/secrets/{finding.pk}/not-a-secret/")
    anonymous = client.get("/secrets/").content.decode()
    client.force_login(User.objects.create_user("viewer", password="x"))
    viewer = client.get("/secrets/").content.decode()
    reviewer(client)
    shown = client.get("/secrets/").content.decode()
    for page in (anonymous, viewer):
        assert f'id="finding-{finding.pk}"' in page  # the same list, read by anyone
        assert not any(act in page for act in acts)
    assert all(act in shown for act in acts)


def test_a_false_positive_stays_unmasked_after_a_re_import(corpus, client, home):
    reviewer(client)
    token = SECRETS["github-token"]
    finding = SecretFinding.objects.filter(kind="github-token", spill_name="").first()
    assert client.post(f"/secrets/{finding.pk}/not-a-secret/").status_code == 302
    assert SecretFalsePositive.objects.filter(kind="github-token").exists()
    # Imported again: the same value in a line written later.
    t = Lines(minute=5)
    t.user("p9", f"and again {token}")
    for line in t.lines:
        line["sessionId"] = SID
    append(
        home.root / ".claude" / "projects" / "-home-dev-vault" / f"{SID}.jsonl",
        *(orjson.dumps(x) + b"\n" for x in t.lines),
    )
    ingest()
    later = TranscriptEntry.objects.get(uuid="p9")
    assert token in later.text  # searchable, unmasked
    assert token in TranscriptEntry.objects.get(uuid="p1").text  # and the lines before, unmasked too
    page = client.get(f"/sessions/{SID}/?turn=2").content.decode()
    assert token in page
    assert SECRETS["anthropic-key"] not in page  # the others stay masked


def database_dump() -> str:
    """Every column of every row of every table, as the database holds it (a compressed line
    decompressed, other bytes read as text): what a teammate with the database could read."""
    parts = []
    with connection.cursor() as cursor:
        for table in connection.introspection.table_names(cursor):
            cursor.execute(f"SELECT * FROM {connection.ops.quote_name(table)}")
            for row in cursor.fetchall():
                for value in row:
                    if isinstance(value, (bytes, memoryview)):
                        try:
                            value = linepack.unpack(value, True)
                        except Exception:  # not a compressed line: its bytes as they are
                            value = bytes(value)
                        value = value.decode("utf-8", "replace")
                    parts.append(str(value))
    return "\n".join(parts)


def test_team_mode_stores_no_secret(home, settings):
    settings.WAYSWEB_SECRETS_MASKED_ONLY = True
    write_corpus(home)
    ingest()
    # Every place was read (so the dump below would hold its secrets if it kept them).
    assert Spill.objects.filter(found=True).exists()
    for model in (LedgerEntry, MemoryVersion, KnowledgeRecord, AdrRecord, MjLedgerLine):
        assert model.objects.exists(), model
    assert WaysEvent.objects.filter(event="way_fired").exists()
    dump = database_dump()
    assert leaks(dump) == []
    assert "(GitHub token, masked)" in dump
    found = set(SecretFinding.objects.values_list("place", "kind"))
    for place in ("", "event", "ledger.ledgerentry", "ledger.memoryversion", "ledger.knowledgerecord"):
        assert {kind for at, kind in found if at == place} == set(SECRETS), place
    assert {kind for at, kind in found if at == "ledger.adrrecord"} == set(SECRETS)


def test_the_database_holds_the_values_on_this_machine_in_local_mode(corpus):
    """The check above would pass on a dump that missed a table: here the same dump finds them."""
    assert sorted(leaks(database_dump())) == sorted(SECRETS)


def test_the_secrets_page_lists_findings_by_session_and_kind_in_few_queries(
    corpus, client, django_assert_max_num_queries
):
    with django_assert_max_num_queries(8):  # count, findings, entries per file (2), marked, their count
        page = client.get("/secrets/").content.decode()
    assert f"{SecretFinding.objects.count()} findings" in page
    assert "GitHub token ×" in page and f'href="/sessions/{SID}/?u=p1#u-p1"' in page
    assert f"/sessions/{SID}/agents/{AGENT}/?hit=s1#u-s1" in page
    assert leaks(page) == []


def test_the_secrets_page_lists_every_place_with_a_link_to_it(corpus, client):
    page = client.get("/secrets/").content.decode()
    knowledge = KnowledgeRecord.objects.get(record_id=KNOWLEDGE_ID)
    adr = AdrRecord.objects.get()
    memory = MemoryVersion.objects.get(memory__name="deploy.md").memory
    for link in (
        f'href="/sessions/{SID}/events/"',  # the agent-ways event
        f'href="/ledger/knowledge/{knowledge.pk}/"',
        f'href="/ledger/decisions/{adr.pk}/"',
        f'href="/ledger/memory/-home-dev-vault/#memory-{memory.pk}"',
        'href="/ledger/-home-dev-vault/#e1"',
    ):
        assert link in page, link
    assert "memory file deploy.md (version 1)" in page and "decision record" in page
    assert "agent-ways event" in page and "spilled output env.txt" in page
    assert leaks(page) == []


@pytest.mark.parametrize(
    "place", ["ledger.memoryversion", "ledger.knowledgerecord", "ledger.adrrecord", "event"]
)
def test_a_reviewer_reveals_a_value_found_in_a_document_or_an_event(corpus, client, place):
    user = reviewer(client)
    finding = SecretFinding.objects.get(place=place, kind="slack-webhook")
    response = client.post(f"/secrets/{finding.pk}/reveal/")
    assert SECRETS["slack-webhook"] in response.content.decode()
    assert response["Cache-Control"] == "no-store"
    (audit,) = SecretReveal.objects.all()
    assert (audit.user, audit.kind, audit.fingerprint) == (user, "slack-webhook", finding.fingerprint)


REVEAL_FORM = re.compile(r'action="(/secrets/(\d+)/reveal/)"')


def test_a_reviewer_reveals_one_value_on_the_session_page_where_it_appears(corpus, client):
    user = reviewer(client)
    page = client.get(f"/sessions/{SID}/").content.decode()
    assert leaks(page) == []  # the page itself still shows every value masked
    forms_on_page = dict((pk, url) for url, pk in REVEAL_FORM.findall(page))
    listed = SecretFinding.objects.filter(pk__in=[int(pk) for pk in forms_on_page])
    # Every secret of the trunk's lines and its spill has its button, the paired results' with their call.
    assert {f.kind for f in listed} == set(SECRETS)
    assert {f.spill_name for f in listed} == {"", "env.txt"}
    finding = listed.filter(kind="openai-key").first()
    response = client.post(forms_on_page[str(finding.pk)], HTTP_HX_REQUEST="true")
    assert response.content.decode() == f'<code class="secret-revealed">{SECRETS["openai-key"]}</code>'
    assert response["Cache-Control"] == "no-store"
    (audit,) = SecretReveal.objects.all()
    assert (audit.user, audit.kind, audit.session.sid) == (user, "openai-key", SID)
    # A subagent's page offers its own.
    agent_page = client.get(f"/sessions/{SID}/agents/{AGENT}/").content.decode()
    assert len(REVEAL_FORM.findall(agent_page)) >= len(SECRETS)
    # The exports a reviewer downloads hold no button and no value.
    response = client.get(f"/sessions/{SID}/export.html")
    export = b"".join(response.streaming_content).decode()
    assert "/reveal/" not in export and leaks(export) == []
    assert "(OpenAI key, masked)" in export


def test_a_viewer_gets_no_reveal_button_on_the_session_page(corpus, client):
    client.force_login(User.objects.create_user("viewer", password="x"))
    assert "/reveal/" not in client.get(f"/sessions/{SID}/").content.decode()
    client.logout()
    assert "/reveal/" not in client.get(f"/sessions/{SID}/").content.decode()


def test_team_mode_offers_no_reveal_on_the_session_page(corpus, client, settings):
    reviewer(client)
    settings.WAYSWEB_SECRETS_MASKED_ONLY = True
    assert "/reveal/" not in client.get(f"/sessions/{SID}/").content.decode()


S13 = "bdb5af59-a961-4635-a1e3-312937d2413d"
S13_SECRETS = (
    "Vd8qLz2RkT7wNp4XcJ6m",
    "k7Q2mZ9xR4tW8vN3pL6sJ1dF5hG0bYc2",
    "dpl_4Hq8Xw2Rt6Zk9Lm3Np7Vb5Jc1Fs0Gy",
)


def test_the_sample_shows_its_made_up_secrets_masked_and_listed(sample, client):
    """S13 prints three made-up secrets (sample/story/s13_unknown_channel.py): the only findings of
    the sample, none a false positive; its page and export show them masked."""
    found = sorted(SecretFinding.objects.values_list("session__sid", "kind"))
    assert found == [(S13, "assignment"), (S13, "assignment"), (S13, "database-url")]
    listing = client.get("/secrets/").content.decode()
    assert "3 findings" in listing and "secret assignment ×2" in listing
    page = client.get(f"/sessions/{S13}/").content.decode()
    export = b"".join(client.get(f"/sessions/{S13}/export.md").streaming_content).decode()
    for shown in (page, export, listing):
        assert not any(secret in shown for secret in S13_SECRETS)
    assert "(database password, masked)" in page and "(secret assignment, masked)" in export


def test_a_false_positive_in_a_memory_file_stays_unmasked_after_a_re_import(corpus, client, home):
    reviewer(client)
    token = SECRETS["github-token"]
    finding = SecretFinding.objects.get(place="ledger.memoryversion", kind="github-token")
    assert client.post(f"/secrets/{finding.pk}/not-a-secret/").status_code == 302
    memory = home.root / ".claude" / "projects" / "-home-dev-vault" / "memory" / "deploy.md"
    memory.write_text(memory.read_text() + "\nrotated on Monday\n")
    ingest()
    version = MemoryVersion.objects.get(memory__name="deploy.md", number=2)
    found = SecretFinding.objects.filter(place="ledger.memoryversion", place_pk=version.pk)
    assert found.count() == len(SECRETS)
    page = client.get("/ledger/memory/-home-dev-vault/").content.decode()
    assert token in page and "rotated on Monday" in page
    assert SECRETS["anthropic-key"] not in page  # the others stay masked
    listing = client.get("/secrets/").content.decode()
    assert listing.count("marked no secret") >= 2  # the line's and the memory file's findings of it
