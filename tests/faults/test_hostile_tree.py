"""Issue 12: a hostile tree and single bad inputs (importer-reliability.md §13.2).

Every read stays inside its root, every review write inside its repository, and no single input
stops a pass: links out of a root, FIFOs and devices, files this user cannot read, values too
long for their column, project paths that cannot be stat'ed. Each test builds its hostile tree in
a temp dir, asserts what is stored, shown and written, and that the next valid line after each
hostile input was imported in the same pass.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from io import StringIO
from pathlib import Path

import orjson
import pytest
from django.core.management import call_command
from django.urls import reverse

from introspect.importer import health, loader, wayfiles
from introspect.importer.discovery import Source
from introspect.models import Project, SourceProblem, Spill, TranscriptEntry, Way, WaysEvent
from ledger.importer import adr_load
from ledger.importer import knowledge as knowledge_files
from ledger.models import (
    AdrAction,
    AdrRecord,
    KnowledgeRecord,
    LedgerEntry,
    LedgerEntryVersion,
    MjLedgerLine,
    ReviewAction,
)
from ledger.records import knowledge as knowledge_format
from ledger.records import parse as adr_parse
from lib import column_fit, locations, safefs
from tests.conftest import Home, append, gzip_member
from tests.faults.conftest import (
    BASE_DIR,
    assert_counters_add_up,
    assert_rows,
    entry,
    event,
    expected,
    ingest,
    jsonl,
    manage,
    sha,
    stored,
)
from tests.ledger.conftest import record_file
from tests.privileges import WITHOUT_DAC

pytestmark = pytest.mark.django_db

SECRETS = ("TOP-SECRET", "SECRETHASH", "OUTSIDE-REPO")
ADR = "# {n}. {title}\n\nDate: 2026-11-02\n\n## Status\n\n{status}\n\n## Context\n\n{body}\n\n## Decision\n\nWe do.\n"
MJ_LINE = b'{"ts":"2026-11-02T10:00:00Z","event":"session.started","session":"s-1"}\n'
VALID_ID = "s-20261102000001-aaaa-000000000001"
PLANTED_ID = "s-20261102000001-aaaa-0000000000ff"


@pytest.fixture
def outside(tmp_path) -> Path:
    """Files an attacker points links at: none may be read, shown, stored or written."""
    place = tmp_path / "outside"
    (place / "commands").mkdir(parents=True)
    (place / "shadow").write_text("root:$6$SECRETHASH:19000:0:99999:7:::\n")
    (place / "secret.md").write_text(
        ADR.format(n=99, title="TOP-SECRET notes", status="Accepted", body="TOP-SECRET")
    )
    (place / "secret.jsonl").write_bytes(jsonl(entry("leak", 0, text="TOP-SECRET transcript")))
    (place / "events.jsonl").write_bytes(event(900, session="leak", surface="TOP-SECRET"))
    (place / "archive.jsonl.gz").write_bytes(gzip_member(event(901, session="leak", surface="TOP-SECRET")))
    record_file(place, PLANTED_ID, title="TOP-SECRET planted", where="planted")
    repo = place / "repo"  # a repository outside the home, named only by event data
    (repo / "docs" / "adr").mkdir(parents=True)
    (repo / "docs" / "adr" / "0001-outside.md").write_text(
        ADR.format(n=1, title="OUTSIDE-REPO decision", status="Accepted", body="OUTSIDE-REPO")
    )
    return place


def repository(home) -> Path:
    """A repository under the home, with one valid ADR, candidate and majordomus ledger line."""
    repo = home.root / "src" / "api"
    (repo / "docs" / "adr").mkdir(parents=True)
    (repo / "docs" / "adr" / "0001-use-queues.md").write_text(
        ADR.format(n=1, title="Use queues", status="Proposed", body="valid record")
    )
    record_file(repo / ".ai" / "repo" / "knowledge", VALID_ID, title="Queues absorb bursts")
    state = repo / ".ai" / "local" / "state"
    state.mkdir(parents=True)
    (state / "ledger.jsonl").write_bytes(MJ_LINE)
    return repo


def hostile_home(home, outside: Path) -> dict:
    """Every area of a HOME with a link out of it, a FIFO and a device beside one valid input each."""
    repo = repository(home)
    live = [event(0, name="session_start", project=str(repo), session="s1"), event(1, session="s1")]
    append(home.live, *live)
    archive = [event(2, session="s1")]
    append(home.archive("2026-11-02"), gzip_member(*archive))
    home.archive("2026-11-01").symlink_to(outside / "archive.jsonl.gz")
    os.mkfifo(home.archive("2026-10-31"))
    home.legacy.parent.mkdir(parents=True)
    home.legacy.symlink_to(outside / "shadow")  # ~/.claude/stats/events.jsonl -> /etc/shadow

    stub = (
        "<persisted-output>\nOutput too large (2KB). Full output saved to: {}\n\nPreview:\nx\n"
        "</persisted-output>"
    )
    said = [jsonl(entry("s1", n, kind="user" if n % 2 == 0 else "assistant")) for n in range(4)]
    said.append(jsonl(entry("s1", 4, text=stub.format("/x/s1/tool-results/leak.txt"), isMeta=True)))
    said.append(jsonl(entry("s1", 5, text=stub.format("/x/s1/tool-results/pipe.txt"), isMeta=True)))
    trunk = home.transcript(str(repo), "s1", *(orjson.loads(line) for line in said))
    folder = trunk.parent
    (folder / "s1" / "tool-results").mkdir(parents=True)
    (folder / "s1" / "tool-results" / "leak.txt").symlink_to(outside / "shadow")
    os.mkfifo(folder / "s1" / "tool-results" / "pipe.txt")
    (folder / "leak.jsonl").symlink_to(outside / "secret.jsonl")
    os.mkfifo(folder / "fifo.jsonl")
    (folder / "zero.jsonl").symlink_to("/dev/zero")
    (folder.parent / "-evil").symlink_to(outside)
    subagents = folder / "s1" / "subagents"
    subagents.mkdir()
    agent = [jsonl(entry("s1", 10, kind="user", isSidechain=True, agentId="a1"))]
    append(subagents / "agent-a1.jsonl", *agent)
    os.mkfifo(subagents / "agent-a1.meta.json")
    os.mkfifo(subagents / "agent-a2.jsonl")
    (subagents / "nested").symlink_to(outside)

    ledger = home.root / ".claude" / "ledger" / "-src-api"
    ledger.mkdir(parents=True)
    (ledger / "2026-11-02T1000Z_e1.md").symlink_to(outside / "secret.md")
    os.mkfifo(ledger / "2026-11-02T1001Z_e2.md")
    (ledger / "2026-11-02T1002Z_e3.md").write_text(
        "---\nsession: s1\nepoch: 3\nphase: progress\ntimestamp: 2026-11-02T10:02:00Z\n---\nvalid entry\n"
    )
    (ledger.parent / "-escape").symlink_to(outside)

    adr = repo / "docs" / "adr"
    (adr / "0007-notes.md").symlink_to(outside / "secret.md")
    (adr / "0008-zero.md").symlink_to("/dev/zero")
    os.mkfifo(adr / "0009-fifo.md")
    candidates = repo / ".ai" / "repo" / "knowledge" / "candidates"
    (candidates / f"{PLANTED_ID}.md").symlink_to(outside / "planted" / f"{PLANTED_ID}.md")
    os.mkfifo(candidates / "s-20261102000001-aaaa-0000000000fe.md")
    state = repo / ".ai" / "local" / "state"
    (state / "ledger.1.jsonl.archived").symlink_to(outside / "events.jsonl")

    core = home.core_ways
    home.way(core, "d/ok", "description: fine\npattern: ok")
    (core / "evil").symlink_to("/")
    (core / "loop").symlink_to(".")
    (core / "d" / "fifo").mkdir()
    os.mkfifo(core / "d" / "fifo" / "fifo.md")
    (core / "d" / "zero").mkdir()
    (core / "d" / "zero" / "zero.md").symlink_to("/dev/zero")
    return {
        "repo": repo,
        "events": [*archive, *live],
        "entries": [*said, *agent],
        "raw": [*archive, *live, *said, *agent, MJ_LINE],
    }


def stored_text() -> str:
    """Every text the importer kept from documents and lines, to look for the secrets in."""
    parts = [
        *AdrRecord.objects.values_list("body", flat=True),
        *KnowledgeRecord.objects.values_list("body", "title"),
        *LedgerEntryVersion.objects.values_list("content", flat=True),
        *WaysEvent.objects.values_list("raw", flat=True),
        *TranscriptEntry.objects.values_list("text", flat=True),
        *MjLedgerLine.objects.values_list("raw", flat=True),
        *Way.objects.values_list("body", flat=True),
    ]
    return repr(parts)


def test_a_whole_import_of_the_hostile_tree_opens_nothing_outside_its_roots(
    home, outside, touched, client, no_hang
):
    tree = hostile_home(home, outside)
    touched.watching = True
    output = ingest_with_ways()
    touched.watching = False
    forbidden = touched.under(outside, Path("/etc/shadow"), Path("/etc/passwd"), Path("/dev/zero"))
    assert forbidden == []
    assert [p for p in touched.reads if Path(p) in (Path("/"), Path("/usr"), Path("/etc"))] == []
    # What is stored: exactly the valid lines, nothing of the secrets.
    assert_rows(expected(events=tree["events"], entries=tree["entries"], raw=tree["raw"]))
    assert_counters_add_up()
    assert not any(secret in stored_text() for secret in SECRETS)
    # The next valid input of every area was imported in the same pass.
    assert list(AdrRecord.objects.values_list("title", flat=True)) == ["Use queues"]
    assert list(KnowledgeRecord.objects.values_list("record_id", flat=True)) == [VALID_ID]
    assert list(LedgerEntry.objects.values_list("epoch", flat=True)) == [3]
    assert MjLedgerLine.objects.count() == 1
    assert sorted(Way.objects.values_list("way_id", flat=True)) == ["d/ok"]
    assert sorted(Spill.objects.values_list("name", "found")) == [("leak.txt", False), ("pipe.txt", False)]
    # What was refused is recorded, with its reason, per area.
    problems = {(p.area, Path(p.path).name, p.reason) for p in SourceProblem.objects.all()}
    leaves, irregular = safefs.LEAVES_ROOT, safefs.NOT_REGULAR
    assert problems >= {
        ("events", "events-2026-11-01.jsonl.gz", leaves),
        ("events", "events-2026-10-31.jsonl.gz", irregular),
        ("events", "events.jsonl", leaves),
        ("transcripts", "leak.jsonl", leaves),
        ("transcripts", "fifo.jsonl", irregular),
        ("transcripts", "zero.jsonl", leaves),
        ("transcripts", "-evil", leaves),
        ("transcripts", "agent-a2.jsonl", irregular),
        ("transcripts", "nested", leaves),
        ("ledger", "2026-11-02T1000Z_e1.md", leaves),
        ("ledger", "2026-11-02T1001Z_e2.md", irregular),
        ("ledger", "-escape", leaves),
        ("records", "0007-notes.md", leaves),
        ("records", "0008-zero.md", leaves),
        ("records", "0009-fifo.md", irregular),
        ("knowledge", f"{PLANTED_ID}.md", leaves),
        ("knowledge", "s-20261102000001-aaaa-0000000000fe.md", irregular),
        ("majordomus", "ledger.1.jsonl.archived", leaves),
        ("ways", "evil", leaves),
        ("ways", "fifo.md", irregular),
        ("ways", "zero.md", leaves),
    }
    assert "not read: " in output and "skipped: leaves its root" in output
    # What is shown: the status page names each refused path; no page shows a secret.
    status = client.get("/status/").content.decode()
    assert "skipped: leaves its root" in status and "skipped: not a regular file" in status
    assert str(home.legacy) in status and "a FIFO" in status
    assert "file" in client.get("/").content.decode().split("not read")[0][-40:]  # the header badge
    record = AdrRecord.objects.get()
    knowledge = KnowledgeRecord.objects.get()
    pages = [
        "/",
        "/sessions/s1/",
        "/sessions/s1/events/",
        "/status/",
        "/ways/",
        "/ledger/",
        "/ledger/knowledge/",
        "/ledger/decisions/",
        f"/ledger/decisions/{record.pk}/",
        f"/ledger/knowledge/{knowledge.pk}/",
        "/api/sessions/s1/dump.json",
        "/search/?q=SECRET",
    ]
    for url in pages:
        body = client.get(url).content.decode()
        assert not any(secret in body for secret in SECRETS), url


def ingest_with_ways() -> str:
    out, err = StringIO(), StringIO()
    call_command("ingest", stdout=out, stderr=err)
    return out.getvalue() + err.getvalue()


def test_a_problem_fixed_upstream_disappears_on_the_next_pass(home, outside):
    home.legacy.parent.mkdir(parents=True)
    home.legacy.symlink_to(outside / "shadow")
    append(home.live, event(0, session="s1"))
    ingest()
    assert SourceProblem.objects.filter(area="events").count() == 1
    home.legacy.unlink()
    append(home.legacy, event(1, session="s1"))
    ingest()
    assert not SourceProblem.objects.exists()
    assert WaysEvent.objects.count() == 2


def test_a_requested_dump_reads_the_catalog_never_the_way_roots(home, outside, touched, client, no_hang):
    hostile_home(home, outside)
    ingest_with_ways()
    touched.watching = True
    response = client.get("/api/sessions/s1/dump.json")
    touched.watching = False
    assert response.status_code == 200
    assert touched.under(home.core_ways, home.user_ways) == []


def test_a_way_root_is_walked_only_to_its_caps(home, monkeypatch):
    for n in range(12):
        home.way(home.core_ways, f"d/w{n:02d}", "description: x")
    monkeypatch.setattr(wayfiles, "MAX_WAY_FILES", 5)
    append(home.live, event(0, session="s1"))
    ingest_with_ways()
    assert Way.objects.count() == 5
    problem = SourceProblem.objects.get(area="ways")
    assert problem.reason == safefs.TOO_MANY_FILES and "more than 5 files" in problem.detail
    assert WaysEvent.objects.count() == 1


def test_repositories_named_only_by_event_data_are_read_under_home_or_when_listed(home, outside, settings):
    inside = repository(home)
    append(
        home.live,
        event(0, name="session_start", project=str(outside / "repo"), session="s1"),
        event(1, name="session_start", project=str(inside), session="s2"),
    )
    ingest()
    assert list(AdrRecord.objects.values_list("title", flat=True)) == ["Use queues"]
    settings.WAYSWEB_LOCATIONS = locations.resolve(
        {"HOME": str(home.root), "WAYSWEB_REPOS": str(outside / "repo")}
    )
    ingest()
    assert sorted(AdrRecord.objects.values_list("title", flat=True)) == [
        "OUTSIDE-REPO decision",
        "Use queues",
    ]


def test_a_project_path_that_cannot_be_stat_ed_stops_nothing(home):
    long_part = "/tmp/" + "x" * 300 + "/proj"  # ENAMETOOLONG: Path.is_dir() raises it
    too_long = "/" + "/".join(["y" * 200] * 15)  # longer than an index key
    lines = [
        event(0, name="session_start", project=long_part, session="s1"),
        event(1, name="session_start", project=too_long, session="s2"),
        event(2, session="s2"),
    ]
    append(home.live, *lines)
    output = ingest_with_ways()
    assert "Imported" in output
    assert_rows(expected(events=lines, raw=lines))
    assert list(Project.objects.values_list("path", flat=True)) == [long_part]
    assert WaysEvent.objects.get(session_key="s2", event="session_start").project == too_long


def snapshot(*places: Path) -> dict[str, tuple]:
    """Every file and link under `places`, by path: (kind, content sha or link target, mode)."""
    found = {}
    for place in places:
        for current, dirs, files in os.walk(place):
            for name in dirs + files:
                path = Path(current) / name
                st = path.lstat()
                if stat.S_ISLNK(st.st_mode):
                    found[str(path)] = ("link", os.readlink(path), 0)
                elif stat.S_ISREG(st.st_mode):
                    found[str(path)] = ("file", sha(path.read_bytes()), stat.S_IMODE(st.st_mode))
                else:
                    found[str(path)] = ("other", "", stat.S_IMODE(st.st_mode))
    return found


def test_no_review_action_writes_outside_the_repository(
    home, outside, touched, client, reviewer, tmp_path, settings
):
    repo = repository(home)
    append(home.live, event(0, name="session_start", project=str(repo), session="s1"))
    directory = repo / ".ai" / "repo" / "knowledge"
    for n, title in enumerate(["Deploy with make deploy", "A third one", "A fourth one", "A fifth one"]):
        record_file(directory, f"s-20261102000001-aaaa-00000000001{n}", title=title)
    (repo / "docs" / "adr" / "0002-use-streams.md").write_text(
        ADR.format(n=2, title="Use streams", status="Proposed", body="valid record")
    )
    ingest()
    client.force_login(reviewer)
    verified = KnowledgeRecord.objects.get(record_id=VALID_ID)
    client.post(
        reverse("ledger:candidate-promote", args=[verified.pk]),
        {"evidence": "Measured.", "klass": "fact", "loaded_sha256": verified.sha256},
    )
    assert KnowledgeRecord.objects.get(pk=verified.pk).status == "verified"
    first, second, third, fourth = (
        KnowledgeRecord.objects.get(record_id=f"s-20261102000001-aaaa-00000000001{n}") for n in range(4)
    )
    adr, successor = AdrRecord.objects.order_by("rel_path")
    # Then the repository turns hostile: curated/ is a link to ~/.claude/commands, a candidate
    # becomes a link to a file outside, the ADR folder is replaced by a link.
    (directory / "curated" / f"{VALID_ID}.md").rename(tmp_path / "kept.md")
    (directory / "curated").rmdir()
    (directory / "curated").symlink_to(outside / "commands")
    second_path = directory / "candidates" / f"{second.record_id}.md"
    second_path.unlink()
    second_path.symlink_to(outside / "planted" / f"{PLANTED_ID}.md")
    adr_dir = repo / "docs" / "adr"
    adr_dir.rename(repo / "docs" / "adr-real")
    (outside / "repo" / "docs" / "adr" / "0001-use-queues.md").write_text(
        ADR.format(n=1, title="Use queues", status="Proposed", body="OUTSIDE-REPO copy")
    )
    adr_dir.symlink_to(outside / "repo" / "docs" / "adr")
    before = snapshot(tmp_path)
    touched.watching = True
    fragment = {"headers": {"HX-Request": "true"}}
    answers = {
        "promote": client.post(
            reverse("ledger:candidate-promote", args=[first.pk]),
            {"evidence": "Seen it work.", "klass": "fact", "loaded_sha256": first.sha256},
            **fragment,
        ),
        "reject": client.post(
            reverse("ledger:candidate-reject", args=[second.pk]),
            {"reason": "Not true.", "loaded_sha256": second.sha256},
            **fragment,
        ),
        "edit": client.post(
            reverse("ledger:candidate-edit", args=[second.pk]),
            {"title": "Reworded", "description": "Reworded too.", "loaded_sha256": second.sha256},
            **fragment,
        ),
        "merge": client.post(
            reverse("ledger:candidate-merge", args=[third.pk]),
            {"keep": third.pk, "duplicates": [fourth.pk], "evidence": "Same thing."},
            **fragment,
        ),
        "bulk": client.post(
            reverse("ledger:candidate-bulk"),
            {"verb": "promote", "note": "All seen.", "records": [third.pk, fourth.pk]},
            **fragment,
        ),
        "accept": client.post(
            reverse("ledger:record-status", args=[adr.pk]),
            {"verb": "accept", "loaded_sha256": adr.sha256},
            **fragment,
        ),
        "supersede": client.post(
            reverse("ledger:record-status", args=[adr.pk]),
            {"verb": "supersede", "successor": successor.pk, "loaded_sha256": adr.sha256},
            **fragment,
        ),
        "new record": client.post(
            reverse("ledger:record-from-knowledge", args=[verified.pk]),
            {"directory": adr.directory},
            **fragment,
        ),
    }
    touched.watching = False
    after = snapshot(tmp_path)
    changed = {path for path in set(before) | set(after) if before.get(path) != after.get(path)}
    data_dir = str(settings.DATA_DIR)
    assert {path for path in changed if not path.startswith(data_dir)} == set()
    assert touched.under(outside, writes=True) == []
    assert [
        p
        for p in touched.writes
        if not Path(p).resolve().is_relative_to(repo.resolve()) and not p.startswith(data_dir)
    ] == []
    bodies = {verb: answer.content.decode() for verb, answer in answers.items()}
    assert all(answer.status_code in (200, 409) for answer in answers.values()), {
        verb: answer.status_code for verb, answer in answers.items()
    }
    assert (
        "waysweb did not touch" in bodies["promote"]
        and "real directories inside the repository" in bodies["promote"]
    )
    for verb in ("reject", "edit", "merge", "accept", "supersede", "new record"):
        assert "waysweb did not touch" in bodies[verb], (verb, bodies[verb][:300])
    assert answers["bulk"]["HX-Redirect"].endswith("?problems=2")  # both refused, each its own act
    assert list(ReviewAction.objects.values_list("verb", flat=True)) == [
        "promote"
    ]  # the one before the attack
    assert not AdrAction.objects.exists()
    assert sorted(KnowledgeRecord.objects.values_list("status", flat=True)) == ["candidate"] * 4 + [
        "verified"
    ]


def test_review_writes_keep_each_file_s_mode(home, client, reviewer):
    repo = repository(home)
    append(home.live, event(0, name="session_start", project=str(repo), session="s1"))
    directory = repo / ".ai" / "repo" / "knowledge"
    second = record_file(directory, "s-20261102000001-aaaa-000000000002", title="Second")
    second.chmod(0o640)
    adr_path = repo / "docs" / "adr" / "0001-use-queues.md"
    adr_path.chmod(0o664)
    ingest()
    client.force_login(reviewer)
    valid = KnowledgeRecord.objects.get(record_id=VALID_ID)
    two = KnowledgeRecord.objects.get(record_id="s-20261102000001-aaaa-000000000002")
    adr = AdrRecord.objects.get()
    old = os.umask(0o022)
    try:
        client.post(
            reverse("ledger:candidate-promote", args=[valid.pk]),
            {"evidence": "Measured.", "klass": "fact", "loaded_sha256": valid.sha256},
        )
        client.post(
            reverse("ledger:candidate-reject", args=[two.pk]),
            {"reason": "Wrong.", "loaded_sha256": two.sha256},
        )
        client.post(
            reverse("ledger:record-status", args=[adr.pk]), {"verb": "accept", "loaded_sha256": adr.sha256}
        )
    finally:
        os.umask(old)
    assert stat.S_IMODE((directory / "curated" / f"{VALID_ID}.md").stat().st_mode) == 0o644
    assert stat.S_IMODE(second.stat().st_mode) == 0o640 and b"superseded" in second.read_bytes()
    assert stat.S_IMODE(adr_path.stat().st_mode) == 0o664 and "Accepted" in adr_path.read_text()


def test_making_the_same_knowledge_a_decision_record_twice_is_one_record(home, client, reviewer):
    repo = repository(home)
    append(home.live, event(0, name="session_start", project=str(repo), session="s1"))
    ingest()
    client.force_login(reviewer)
    record = KnowledgeRecord.objects.get()
    client.post(
        reverse("ledger:candidate-promote", args=[record.pk]),
        {"evidence": "Measured.", "klass": "fact", "loaded_sha256": record.sha256},
    )
    directory = AdrRecord.objects.get().directory
    for _ in range(2):
        response = client.post(
            reverse("ledger:record-from-knowledge", args=[record.pk]), {"directory": directory}
        )
        assert response.status_code in (200, 302), response.content.decode()[:500]
    assert AdrRecord.objects.count() == 2  # the repository's own record and the one made of the knowledge
    assert AdrAction.objects.filter(verb="create").count() == 1
    assert len(list((repo / "docs" / "adr").glob("*.md"))) == 2


# --- no single input stops a pass ----------------------------------------------------------------


def overlong(model, name: str) -> str:
    return "x" * (column_fit.limits(model)[name][0] + 1)


EVENT_STRINGS = {
    "ts": "ts_raw",
    "event": "event",
    "session": "session_key",
    "way": "way",
    "trigger": "trigger",
    "model": "model",
    "verdict": "verdict",
}
# Text fields the row does not hold (rules/event_fields.UNSTORED): read whole from the raw line.
UNBOUNDED = ("domain", "scope", "agent_id", "check")


def test_every_events_column_takes_an_overlong_value_flagged_not_fatal(home):
    """Every bounded column the importer fills from an events line, fed a value one longer."""
    inputs = set(EVENT_STRINGS.values())
    written = {name for name in column_fit.limits(WaysEvent) if name not in ("sha256",)}
    assert written == inputs  # a new bounded column must be added to this test
    lines = []
    for key, column in EVENT_STRINGS.items():
        body = {
            "ts": "2026-11-02T10:00:00Z",
            "event": "way_fired",
            "session": "s1",
            "way": "d/w",
            key: overlong(WaysEvent, column),
        }
        lines.append(orjson.dumps(body) + b"\n")
    long = {key: "y" * 600 for key in UNBOUNDED}
    unbounded = (
        orjson.dumps({"ts": "2026-11-02T10:00:00Z", "event": "check_fired", "session": "s1", **long}) + b"\n"
    )
    valid = event(5, session="s1")
    append(home.live, *lines, unbounded, valid)
    ingest()
    assert_rows(expected(events=[*lines, unbounded, valid], raw=[*lines, unbounded, valid]))
    kept = WaysEvent.objects.get(sha256=sha(unbounded))
    assert kept.flags == [] and (kept.domain, kept.scope, kept.agent_id, kept.check_id) == tuple(
        long.values()
    )
    for line, column in zip(lines, EVENT_STRINGS.values(), strict=True):
        row = WaysEvent.objects.get(sha256=sha(line))
        assert getattr(row, column) in (None, ""), column
        assert f"overlong:{column}" in row.flags, (column, row.flags)
        assert orjson.loads(row.raw) == orjson.loads(line)  # the raw line keeps the value
    assert WaysEvent.objects.get(sha256=sha(valid)).flags == []


def transcript_lines() -> tuple[list[bytes], dict[str, int]]:
    """One transcript line per bounded column of an entry, each with a value one longer than it."""
    base = {"sessionId": "s1", "timestamp": "2026-11-02T10:00:00.000Z"}

    def long(name: str) -> str:
        return overlong(TranscriptEntry, name)

    def user(n: int, **more) -> dict:
        return {"type": "user", "uuid": f"u{n}", **base, "message": {"role": "user", "content": "hi"}, **more}

    assistant = {
        "type": "assistant",
        "uuid": "a1",
        **base,
        "requestId": "r1",
        "message": {
            "id": "m1",
            "role": "assistant",
            "model": "claude-opus-4-6",
            "content": [{"type": "text", "text": "ok"}],
        },
    }
    cases = {
        "uuid": user(0, uuid=long("uuid")),
        "parent_uuid": user(1, parentUuid=long("parent_uuid")),
        "logical_parent_uuid": user(2, logicalParentUuid=long("logical_parent_uuid")),
        "line_session_id": user(3, sessionId=long("line_session_id")),
        "timestamp_raw": user(4, timestamp=long("timestamp_raw")),
        "agent_id": user(5, agentId=long("agent_id")),
        "version": user(6, version=long("version")),
        "prompt_id": user(7, promptId=long("prompt_id")),
        "type": {"type": long("type"), "uuid": "t1", **base},
        "subtype": {"type": "system", "subtype": long("subtype"), "uuid": "y1", **base},
        "request_id": assistant | {"uuid": "a2", "requestId": long("request_id")},
        "message_id": assistant
        | {"uuid": "a3", "message": assistant["message"] | {"id": long("message_id")}},
        "model": assistant | {"uuid": "a4", "message": assistant["message"] | {"model": long("model")}},
        "speed": assistant
        | {
            "uuid": "a7",
            "message": assistant["message"] | {"usage": {"output_tokens": 1, "speed": long("speed")}},
        },
        "tool_use_id": assistant
        | {
            "uuid": "a5",
            "message": assistant["message"]
            | {"content": [{"type": "tool_use", "id": long("tool_use_id"), "name": "Bash", "input": {}}]},
        },
        "tool_name": assistant
        | {
            "uuid": "a6",
            "message": assistant["message"]
            | {"content": [{"type": "tool_use", "id": "t6", "name": long("tool_name"), "input": {}}]},
        },
        "tool_result_id": user(
            8,
            message={
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": long("tool_result_id"), "content": "x"}],
            },
        ),
        "spawned_agent_id": user(9, toolUseResult={"agentId": long("spawned_agent_id")}),
        "hook_event": {
            "type": "attachment",
            "uuid": "h1",
            **base,
            "attachment": {"type": "hook_additional_context", "hookEvent": long("hook_event")},
        },
    }
    return [orjson.dumps(obj) + b"\n" for obj in cases.values()], {name: n for n, name in enumerate(cases)}


def test_every_transcript_column_takes_an_overlong_value_flagged_not_fatal(home):
    lines, columns = transcript_lines()
    unfed = {"session_key", "sha256"}  # from the file name, and computed
    assert set(column_fit.limits(TranscriptEntry)) - unfed == set(
        columns
    )  # a new bounded column must be added here
    valid = jsonl(entry("s1", 50))
    append(home.transcript("/p", "s1"), *lines, valid)
    append(home.live, event(0, session="s1"))
    ingest()
    assert_rows(
        expected(
            events=[event(0, session="s1")],
            entries=[*lines, valid],
            raw=[event(0, session="s1"), *lines, valid],
        )
    )
    for column, n in columns.items():
        row = TranscriptEntry.objects.get(sha256=sha(lines[n]))
        assert getattr(row, column) in (None, ""), column
        assert f"overlong:{column}" in row.flags, (column, row.flags)
    assert TranscriptEntry.objects.get(sha256=sha(valid)).text == "prompt 50 of s1"


def test_overlong_document_values_are_flagged_and_the_next_document_imported(home):
    repo = repository(home)
    append(home.live, event(0, name="session_start", project=str(repo), session="s1"))
    ledger = home.root / ".claude" / "ledger" / "-src-api"
    ledger.mkdir(parents=True)
    (ledger / "2026-11-02T1000Z_e1.md").write_text(
        f"---\nsession: {'s' * 600}\nphase: {'p' * 40}\ntimestamp: {'t' * 70}\nepoch: 1\n---\nlong\n"
    )
    (ledger / "2026-11-02T1001Z_e2.md").write_text(
        "---\nsession: s1\nepoch: 2\nphase: progress\n---\nvalid\n"
    )
    directory = repo / ".ai" / "repo" / "knowledge"
    data = {
        "schema": "knowledge/v1",
        "id": PLANTED_ID,
        "kind": "knowledge",
        "class": "c" * 40,
        "title": "Long",
        "description": "d",
        "status": "s" * 20,
        "epistemics": "e" * 20,
        "date": "2026-11-02-and-more",
        "superseded_by": "z" * 300,
        "provenance": {"derived_from": []},
    }
    (directory / "candidates" / f"{PLANTED_ID}.md").write_bytes(
        knowledge_format.render_knowledge(data, "# Long\n\nd")
    )
    (repo / "docs" / "adr" / "0002-long.md").write_text(
        ADR.format(n=1, title="Long", status="A" * 40, body="long") + "\nDate: " + "9" * 20 + "\n"
    )
    mj = repo / ".ai" / "local" / "state" / "ledger.jsonl"
    long_line = (
        orjson.dumps(
            {"ts": "t" * 70, "event": "e" * 200, "session": "s" * 200, "provider_session": "p" * 600}
        )
        + b"\n"
    )
    append(mj, long_line, b'{"ts":"2026-11-02T10:01:00Z","event":"task.started","session":"s-1"}\n')
    ingest()
    entry_long = LedgerEntry.objects.get(epoch=1)
    assert entry_long.session_key == "" and entry_long.timestamp_raw == "" and entry_long.phase == ""
    assert {"overlong:session_key", "overlong:phase", "overlong:timestamp_raw"} <= set(entry_long.flags)
    assert LedgerEntry.objects.filter(epoch=2, session_key="s1").exists()
    long_record = KnowledgeRecord.objects.get(record_id=PLANTED_ID)
    assert "overlong:klass" in long_record.problem and "overlong:superseded_by" in long_record.problem
    assert KnowledgeRecord.objects.filter(record_id=VALID_ID).exists()
    assert AdrRecord.objects.count() == 2
    line = MjLedgerLine.objects.get(sha256=sha(long_line))
    assert {"overlong:ts_raw", "overlong:event", "overlong:episode", "overlong:provider_session"} <= set(
        line.flags
    )
    assert MjLedgerLine.objects.count() == 3  # the long one, the next one, and the repository's own


def test_a_suppression_reason_longer_than_any_column_is_kept_whole(home, client):
    reason = "because " * 20
    lines = [
        event(0, name="session_start", project="/p", session="s1"),
        event(1, name="way_suppressed", session="s1", way="d/w", reason=reason),
        event(2, session="s1"),
    ]
    append(home.live, *lines)
    ingest()
    assert_rows(expected(events=lines, raw=lines))
    assert reason.strip() in client.get("/sessions/s1/").content.decode()


def test_terminal_escapes_in_file_names_are_printed_escaped(home):
    name = "evil\x1b]0;owned\x07\x1b[2J.jsonl"
    append(home.transcript("/p", "s1"), jsonl(entry("s1", 0)))
    path = home.root / ".claude" / "projects" / "-p" / name
    path.write_bytes(jsonl(entry("s2", 0)))
    output = ingest()
    assert "\x1b" not in output and "\x07" not in output
    assert "evil\\x1b]0;owned\\x07\\x1b[2J.jsonl" in output


def test_knowledge_and_record_upserts_tolerate_a_racing_importer(home, monkeypatch):
    """Another host's importer inserts the same record between this one's read and its write."""
    repo = repository(home)
    directory = repo / ".ai" / "repo" / "knowledge"
    parse = knowledge_format.parse_knowledge

    def racing_parse(raw, *, stem):
        parsed = parse(raw, stem=stem)
        KnowledgeRecord.objects.get_or_create(
            directory=str(directory),
            record_id=stem,
            defaults={"first_seen": "2026-11-02T10:00:00Z", "title": "theirs"},
        )
        return parsed

    monkeypatch.setattr(knowledge_format, "parse_knowledge", racing_parse)
    result = knowledge_files.import_directory(directory, repo)
    assert result.added == 1 and KnowledgeRecord.objects.get().title == "Queues absorb bursts"
    parse_adr = adr_parse.parse_adr

    def racing_adr(raw, *, rel_path):
        doc = parse_adr(raw, rel_path=rel_path)
        AdrRecord.objects.get_or_create(
            repo=str(repo), rel_path=rel_path, defaults={"read_at": "2026-11-02T10:00:00Z"}
        )
        return doc

    monkeypatch.setattr(adr_parse, "parse_adr", racing_adr)
    adr_load.import_repo(repo)
    assert list(AdrRecord.objects.values_list("title", flat=True)) == ["Use queues"]


# --- files this user cannot read (root too: the importer runs without DAC override, tests/privileges.py)


def test_unreadable_files_and_folders_are_reported_per_file_and_the_pass_goes_on(file_db, tmp_path):
    db = file_db()
    home = Home(tmp_path / "home")
    repo = repository(home)
    lines = [event(0, name="session_start", project=str(repo), session="s1"), event(1, session="s1")]
    append(home.live, *lines)
    append(home.legacy, event(2, session="s1"))
    home.legacy.chmod(0)
    said = [jsonl(entry("s1", 0)), jsonl(entry("s1", 1, kind="assistant"))]
    append(home.transcript(str(repo), "s1"), *said)
    append(home.transcript(str(repo), "s2"), jsonl(entry("s2", 0))).chmod(0)
    locked = home.root / ".claude" / "projects" / "-locked"
    locked.mkdir()
    append(locked / "s3.jsonl", jsonl(entry("s3", 0)))
    locked.chmod(0)
    (repo / "docs" / "adr" / "0002-locked.md").write_text(
        ADR.format(n=2, title="Locked", status="Proposed", body="x")
    )
    (repo / "docs" / "adr" / "0002-locked.md").chmod(0)
    home.way(home.core_ways, "d/ok", "description: fine")
    home.way(home.core_ways, "d/locked", "description: locked").chmod(0)
    untraversable = tmp_path / "jail"
    (untraversable / "proj").mkdir(parents=True)
    untraversable.chmod(0)
    append(
        home.live,
        event(3, name="session_start", project=str(untraversable / "proj"), session="s4"),
        event(4, session="s4"),
    )
    env = db.env(home.root, tmp_path / "data")
    done = subprocess.run(
        [*WITHOUT_DAC, sys.executable, str(BASE_DIR / "manage.py"), "ingest"],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        cwd=BASE_DIR,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "cannot read" in done.stderr and "Permission denied" in done.stderr
    assert "cannot write" not in done.stderr
    problems = {
        (area, Path(path).name, reason)
        for area, path, reason in db.rows("SELECT area, path, reason FROM introspect_sourceproblem")
    }
    assert problems >= {
        ("events", "events.jsonl", safefs.UNREADABLE),
        ("transcripts", "s2.jsonl", safefs.UNREADABLE),
        ("transcripts", "-locked", safefs.UNREADABLE),
        ("records", "0002-locked.md", safefs.UNREADABLE),
        ("ways", "locked.md", safefs.UNREADABLE),
    }, problems
    # Every readable line and document after the unreadable ones was imported in the same pass.
    raw = {row[0] for row in db.rows("SELECT sha256 FROM introspect_physicalline")}
    assert {sha(line) for line in [*lines, *said]} <= raw
    assert sha(event(3, name="session_start", project=str(untraversable / "proj"), session="s4")) in raw
    titles = {row[0] for row in db.rows("SELECT title FROM ledger_adrrecord")}
    assert titles == {"Use queues"}
    assert {row[0] for row in db.rows("SELECT way_id FROM introspect_way")} == {"d/ok"}
    for path in (home.legacy, locked, untraversable):
        path.chmod(0o755)
    again = manage("ingest", env=env)
    assert again.returncode == 0, again.stderr
    assert not db.rows("SELECT 1 FROM introspect_sourceproblem WHERE area = 'events'")


def test_a_fifo_in_a_way_root_cannot_hang_an_api_request(home, client, no_hang):
    append(
        home.live,
        event(0, name="session_start", project="/p", session="s1"),
        event(1, session="s1", way="d/ok"),
    )
    home.way(home.core_ways, "d/ok", "description: fine")
    (home.core_ways / "d" / "pipe").mkdir()
    os.mkfifo(home.core_ways / "d" / "pipe" / "pipe.md")
    ingest_with_ways()
    assert client.get("/api/sessions/s1/dump.json").status_code == 200
    assert client.get("/ways/d/ok/").status_code == 200


def test_the_tailer_refuses_what_the_listing_missed(tmp_path):
    """A file replaced by a link after discovery: the open itself refuses it."""
    root = tmp_path / "state"
    root.mkdir()
    (tmp_path / "secret").write_bytes(b'{"TOP-SECRET":1}\n')
    (root / "events.jsonl").symlink_to(tmp_path / "secret")
    source = Source("events", root, "events.jsonl", 1)
    result = loader.import_file(source)
    assert result.status == "skipped" and result.problem.reason == safefs.LEAVES_ROOT
    assert not stored().raw


def test_every_page_s_header_says_when_the_importer_stopped(home, client):
    health.record("the disk is full (writing x: No space left on device): free some space")
    body = client.get("/ways/").content.decode()
    assert "importer stopped" in body
    health.clear()
    assert "importer stopped" not in client.get("/ways/").content.decode()
