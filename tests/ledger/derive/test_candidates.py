"""The deriver: deterministic, idempotent, visible when it fails, and never undoing a person's act.

Over many sessions at once it gives the exact candidates and events written out below, in a bounded
number of queries: any rewrite of how the evidence is read must give these same rows, byte for byte
(the `sha256` of each candidate file), and the same events.
"""

from __future__ import annotations

import itertools
import random
from datetime import timedelta
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from introspect.models import Session, SourceFile
from ledger.derive import candidate_files, candidates
from ledger.importer import entries as entry_files
from ledger.models import KnowledgeEvent, KnowledgeRecord, LedgerEntry
from ledger.services import acts
from ledger.services import knowledge as services
from tests.conftest import append, line

pytestmark = pytest.mark.django_db

S = "4d5611e5-241a-462a-8d15-5122611a9569"


def write_entry(home, name: str, epoch: int, phase: str, ts: str, body: str, session: str = S) -> Path:
    path = home.root / ".claude" / "ledger" / "-home-dev-proj" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        f"---\nsession: {session}\ntranscript: ~/.claude/projects/-home-dev-proj/{session}.jsonl\n"
        f"epoch: {epoch}\ncontext_pct: 50\ntimestamp: {ts}\nphase: {phase}\n---\n\n{body}\n"
    )
    return path


@pytest.fixture
def episode(home, settings, tmp_path):
    settings.WAYSWEB_LOCATIONS = settings.WAYSWEB_LOCATIONS.__class__(
        **{**settings.WAYSWEB_LOCATIONS.__dict__, "own_knowledge": tmp_path / "knowledge"}
    )
    append(
        home.live,
        line(ts="2026-09-12T10:00:00Z", event="session_start", session=S, project="/home/dev/proj"),
        line(ts="2026-09-12T10:05:00Z", event="way_fired", way="d/a", trigger="keyword", session=S),
        line(
            ts="2026-09-12T10:06:00Z", event="way_nearmiss", way="d/n", prob_en="0.47", tau_s="0.5", session=S
        ),
        line(
            ts="2026-09-12T10:09:00Z", event="way_nearmiss", way="d/n", prob_en="0.48", tau_s="0.5", session=S
        ),
        line(ts="2026-09-12T10:20:00Z", event="session_start", session=S, project="/home/dev/proj"),
        line(
            ts="2026-09-12T10:25:00Z",
            event="way_judged",
            way="d/b",
            p_yes="0.05",
            threshold="0.3",
            verdict="block",
            session=S,
        ),
    )
    write_entry(
        home,
        "2026-09-12T1010Z_e000.md",
        0,
        "progress",
        "2026-09-12T10:10:00Z",
        "Moved the checkpoint.\nDecision: commit offsets in the same transaction as rows.\n"
        "Open threads: gz archives are still re-read from the start.",
    )
    write_entry(
        home,
        "2026-09-12T1019Z_e001.md",
        1,
        "handoff",
        "2026-09-12T10:19:00Z",
        "State for the next window: importer done, UI next.",
    )
    bad = home.root / ".claude" / "ledger" / "-home-dev-proj" / "2026-09-12T1030Z_e002.md"
    bad.write_text("---\nsession: [unclosed\nepoch: 2\n---\nDecision: never guessed from a broken entry.\n")
    return tmp_path / "knowledge"


def ingest() -> None:
    call_command("ingest", stdout=StringIO())


def titles() -> set[str]:
    return set(KnowledgeRecord.objects.values_list("title", flat=True))


def test_it_derives_candidates_with_provenance_at_each_boundary(episode):
    ingest()
    assert titles() == {
        "Commit offsets in the same transaction as rows.",
        "Still open: gz archives are still re-read from the start.",
        "State for the next window: importer done, UI next.",
        "Way d/n nearly fired 2 times in one episode (best probability 0.480)",
        "The judge blocked way d/b 1 time in one episode",
    }
    decision = KnowledgeRecord.objects.get(title__startswith="Commit offsets")
    assert (decision.klass, decision.epistemics, decision.status, decision.origin) == (
        "convention",
        "decided",
        "candidate",
        "waysweb",
    )
    assert decision.session.sid == S and decision.ledger_entry.epoch == 0
    tuning = KnowledgeRecord.objects.get(title__startswith="Way d/n")
    assert tuning.turn_epochs == [1, 1] and "way:d/n" in tuning.derived_from
    events = set(KnowledgeEvent.objects.values_list("window", "trigger", "kind"))
    assert events == {(1, "compact", "knowledge.derived"), (2, "end", "knowledge.derived")}


def test_it_is_idempotent_across_reruns(episode):
    ingest()
    before = {p.name: p.read_bytes() for p in (episode / "candidates").iterdir()}
    KnowledgeEvent.objects.all().delete()  # force every boundary to be derived again
    ingest()
    after = {p.name: p.read_bytes() for p in (episode / "candidates").iterdir()}
    assert before == after and KnowledgeRecord.objects.count() == 5
    assert set(KnowledgeEvent.objects.values_list("written", flat=True)) == {0}


def test_it_never_undoes_a_persons_decision(episode, reviewer):
    ingest()
    who = acts.Reviewer.of(reviewer)
    promoted = KnowledgeRecord.objects.get(title__startswith="Commit offsets")
    rejected = KnowledgeRecord.objects.get(title__startswith="Still open")
    services.candidate_promote(record=promoted, reviewer=who, evidence="Commit abc and its test.")
    services.candidate_reject(record=rejected, reviewer=who, reason="Fixed since.")
    KnowledgeEvent.objects.all().delete()
    ingest()
    assert not (episode / "candidates" / f"{promoted.record_id}.md").exists()
    assert KnowledgeRecord.objects.get(pk=promoted.pk).status == "verified"
    assert KnowledgeRecord.objects.get(pk=rejected.pk).status == "superseded"
    event = KnowledgeEvent.objects.get(window=1, trigger="compact")
    assert "(promoted)" in event.detail and "(decided)" in event.detail


def test_it_records_a_failure_visibly_and_retries_it(episode, monkeypatch):
    def unwritable(root, writes, seen=None):
        return {index: PermissionError(13, "Permission denied") for index in range(len(writes))}

    monkeypatch.setattr(candidate_files.files, "write_many", unwritable)
    ingest()
    failed = KnowledgeEvent.objects.filter(kind="derive.failed")
    assert failed.count() == 2 and "Permission denied" in failed.first().detail
    monkeypatch.undo()
    ingest()
    assert not KnowledgeEvent.objects.filter(kind="derive.failed").exists()
    assert KnowledgeRecord.objects.count() == 5


def test_it_can_be_switched_off_per_trigger(episode, settings):
    settings.WAYSWEB_DERIVE_ON_COMPACT = False
    ingest()
    assert KnowledgeEvent.objects.get(trigger="compact").kind == "derive.skipped"
    assert KnowledgeEvent.objects.get(trigger="end").kind == "knowledge.derived"
    assert "Way d/n nearly fired 2 times in one episode (best probability 0.480)" not in titles()


def test_it_imports_ledger_entries_and_quarantines_the_malformed_one(episode):
    ingest()
    entries = {e.epoch: e for e in LedgerEntry.objects.all()}
    assert entries[0].session.sid == S and entries[1].phase == "handoff"
    assert entries[2].quarantine_reason == "yaml_invalid" and entries[2].session is None
    assert "never guessed" not in " ".join(titles())
    entry_files.link_entries_to_sessions()
    assert LedgerEntry.objects.filter(session__isnull=True).count() == 1  # only the quarantined one


S1 = "11111111-1111-4111-8111-111111111111"  # three windows, every kind of evidence

S2 = "22222222-2222-4222-8222-222222222222"  # one window; its decision is promoted, its thread rejected

S3 = "33333333-3333-4333-8333-333333333333"  # two windows, no evidence at all

S4 = "44444444-4444-4444-8444-444444444444"  # evidence the table derives nothing from

LONG = (
    "the importer keeps one checkpoint per source file and commits it in the same transaction as the "
    "rows it covers, so that a crash between the two can never skip or double a line of any events log"
)


def ev(ts: str, event: str, session: str, **fields) -> bytes:
    return line(ts=ts, event=event, session=session, **fields)


def write_project_entry(home, slug: str, name: str, epoch: int, phase: str, ts: str, body: str, session: str):
    path = home.root / ".claude" / "ledger" / slug / name
    path.parent.mkdir(parents=True, exist_ok=True)
    stamp = f"timestamp: {ts}\n" if ts else ""
    path.write_text(
        f"---\nsession: {session}\nepoch: {epoch}\ncontext_pct: 40\n{stamp}phase: {phase}\n---\n\n{body}\n"
    )


@pytest.fixture
def own_knowledge(home, settings, tmp_path):
    settings.WAYSWEB_LOCATIONS = settings.WAYSWEB_LOCATIONS.__class__(
        **{**settings.WAYSWEB_LOCATIONS.__dict__, "own_knowledge": tmp_path / "knowledge"}
    )
    return tmp_path / "knowledge"


@pytest.fixture
def corpus(home, own_knowledge):
    proj, other = "/home/dev/proj", "/home/dev/other"
    append(
        home.live,
        ev("2026-09-12T10:00:00Z", "session_start", S1, project=proj),
        ev("2026-09-12T10:01:00Z", "way_fired", S1, way="d/a", trigger="keyword"),
        ev("2026-09-12T10:02:00Z", "way_nearmiss", S1, way="d/n", prob_en="0.41", tau_s="0.5"),
        ev("2026-09-12T10:03:00Z", "way_nearmiss", S1, way="d/n", prob_en="0.44", tau_s="0.5"),
        ev("2026-09-12T10:04:00Z", "way_nearmiss", S1, way="d/m", prob_en="0.30", tau_s="0.5"),
        ev(
            "2026-09-12T10:05:00Z", "way_judged", S1, way="d/b", p_yes="0.9", threshold="0.3", verdict="allow"
        ),
        ev("2026-09-12T10:07:00Z", "way_fired", S1, way="d/c", trigger="semantic"),
        ev("2026-09-12T10:20:00Z", "session_start", S1, project=proj),
        ev("2026-09-12T10:21:00Z", "way_fired", S1, way="d/a", trigger="keyword"),
        ev(
            "2026-09-12T10:22:00Z",
            "way_judged",
            S1,
            way="d/b",
            p_yes="0.05",
            threshold="0.3",
            verdict="block",
        ),
        ev(
            "2026-09-12T10:23:00Z",
            "way_judged",
            S1,
            way="d/b",
            p_yes="0.04",
            threshold="0.3",
            verdict="block",
        ),
        ev("2026-09-12T10:24:00Z", "way_nearmiss", S1, way="d/n", prob_en="0.5", tau_s="0.5"),
        ev("2026-09-12T10:26:00Z", "way_fired", S1, way="d/c", trigger="semantic"),
        ev("2026-09-12T10:40:00Z", "session_start", S1, project=proj),
        ev("2026-09-12T10:41:00Z", "way_nearmiss", S1, way="d/q"),
        ev("2026-09-12T10:42:00Z", "way_nearmiss", S1, way="d/q"),
        ev("2026-09-12 10:43:00", "way_nearmiss", S1, way="d/z", prob_en="0.4"),  # not UTC Z: no ts
        ev("2026-09-12T10:44:00Z", "way_nearmiss", S1, way="d/z", prob_en="0.4"),
        ev("2026-09-13T08:00:00Z", "session_start", S2, project=other),
        ev("2026-09-13T08:01:00Z", "way_fired", S2, way="x/a", trigger="keyword"),
        ev("2026-09-13T08:02:00Z", "way_nearmiss", S2, way="x/n", prob_en="0.3", tau_s="0.5"),
        ev("2026-09-13T08:03:00Z", "way_nearmiss", S2, way="x/n", prob_en="0.35", tau_s="0.5"),
        ev("2026-09-13T08:04:00Z", "way_nearmiss", S2, way="x/n", prob_en="0.2", tau_s="0.5"),
        ev("2026-09-13T08:05:00Z", "way_nearmiss", S2, way="x/o", prob_en="0.1", tau_s="0.5"),
        ev("2026-09-13T08:06:00Z", "way_nearmiss", S2, way="x/o", tau_s="0.5"),
        ev(
            "2026-09-13T08:07:00Z",
            "way_judged",
            S2,
            way="x/b",
            p_yes="0.01",
            threshold="0.3",
            verdict="block",
        ),
        ev("2026-09-14T09:00:00Z", "session_start", S3, project=proj),
        ev("2026-09-14T09:01:00Z", "way_fired", S3, way="d/a", trigger="keyword"),
        ev("2026-09-14T09:30:00Z", "session_start", S3, project=proj),
        ev("2026-09-15T09:00:00Z", "session_start", S4, project=proj),
        ev(
            "2026-09-15T09:01:00Z", "way_judged", S4, way="d/b", p_yes="0.8", threshold="0.3", verdict="allow"
        ),
    )
    slug = "-home-dev-proj"
    write_project_entry(
        home,
        slug,
        "2026-09-12T0900Z_e000.md",
        0,
        "orientation",
        "2026-09-12T09:00:00Z",
        "Decision: before the session started, so in no episode.",
        S1,
    )
    write_project_entry(
        home,
        slug,
        "2026-09-12T1010Z_e001.md",
        1,
        "progress",
        "2026-09-12T10:10:00Z",
        "Moved the checkpoint.\nDecision: commit offsets in the same transaction as rows.\n"
        "- Open threads: gz archives are still re-read from the start.\n"
        "* decision: lower case and a bullet count too.",
        S1,
    )
    write_project_entry(
        home,
        slug,
        "2026-09-12T1019Z_e002.md",
        2,
        "handoff",
        "2026-09-12T10:19:00Z",
        "State for the next window: importer done, UI next. Then polish.",
        S1,
    )
    write_project_entry(
        home,
        slug,
        "undated_e003.md",
        3,
        "progress",
        "",
        "Decision: retries back off exponentially. The cap is a minute.",
        S1,
    )
    write_project_entry(
        home,
        slug,
        "2026-09-12T1030Z_e004.md",
        4,
        "progress",
        "2026-09-12T10:30:00Z",
        f"Decision: {LONG}\nOpen thread: {LONG}\nDecision: {LONG}",
        S1,
    )
    write_project_entry(
        home, slug, "2026-09-12T1050Z_e005.md", 5, "handoff", "2026-09-12T10:50:00Z", "   ", S1
    )
    write_project_entry(
        home,
        "-home-dev-other",
        "2026-09-13T0810Z_e000.md",
        0,
        "progress",
        "2026-09-13T08:10:00Z",
        "Decision: ship the session list first.\nOpen threads: search ranking.",
        S2,
    )
    bad = home.root / ".claude" / "ledger" / slug / "2026-09-12T1031Z_e006.md"
    bad.write_text("---\nsession: [unclosed\nepoch: 6\n---\nDecision: never guessed from a broken entry.\n")
    write_entry(
        home,
        "2026-09-16T1000Z_e007.md",
        7,
        "progress",
        "2026-09-16T10:00:00Z",
        "Decision: a session never imported derives nothing.",
        session="55555555-5555-4555-8555-555555555555",
    )
    return own_knowledge


def events() -> set[tuple]:
    return set(
        KnowledgeEvent.objects.values_list(
            "session__sid", "window", "trigger", "kind", "written", "unchanged", "skipped", "detail"
        )
    )


def records() -> dict[str, tuple]:
    return {
        r.record_id: (
            r.source_class,
            r.klass,
            r.status,
            r.epistemics,
            r.title,
            r.description,
            r.date,
            r.tags,
            r.derived_from,
            r.session.sid if r.session else None,
            r.ledger_entry.epoch if r.ledger_entry else None,
            r.turn_epochs,
            r.sha256,
        )
        for r in KnowledgeRecord.objects.select_related("session", "ledger_entry")
    }


RECORDS = {  # id: class, epistemics, title, date, tag, derived_from, ledger epoch, turns, file sha256
    "ww-11b6b8cc83459484": (
        "lesson",
        "observed",
        "The judge blocked way x/b 1 time in one episode",
        "2026-09-13",
        "way-tuning",
        [f"claude-session:{S2}", "way:x/b", f"turn:{S2}#1-2"],
        None,
        [1, 2],
        "6807e42d904572e146612bfe7143cce8dd56d534fd71527afa0e475b3bcd79bd",
    ),
    "ww-11dc3b1208ae9feb": (
        "memory",
        "observed",
        "State for the next window: importer done, UI next.",
        "2026-09-12",
        "handoff",
        [f"claude-session:{S1}", "ledger:-home-dev-proj/e2"],
        2,
        [],
        "3c4217a7694e70fa37a946e46d1259640604e80dca91ce39f6212c14cbd7b64b",
    ),
    "ww-34c657b6bcb1580b": (
        "lesson",
        "observed",
        "Way d/n nearly fired 2 times in one episode (best probability 0.440)",
        "2026-09-12",
        "way-tuning",
        [f"claude-session:{S1}", "way:d/n", f"turn:{S1}#1-2"],
        None,
        [1, 2],
        "97eb9782d302571f5e68f8d550265b5f3361cded8bfdeb9e7a3b4b45d221eff0",
    ),
    "ww-40b47fc45ddc3cbf": (
        "memory",
        "inferred",
        "Still open: gz archives are still re-read from the start.",
        "2026-09-12",
        "question",
        [f"claude-session:{S1}", "ledger:-home-dev-proj/e1"],
        1,
        [],
        "03fa25a006463147446e78d2399f90754a09d6795d79f3964d397f3060d24ae8",
    ),
    "ww-43fd09064366732c": (
        "lesson",
        "observed",
        "Way x/n nearly fired 3 times in one episode (best probability 0.350)",
        "2026-09-13",
        "way-tuning",
        [f"claude-session:{S2}", "way:x/n", f"turn:{S2}#1-2"],
        None,
        [1, 2],
        "04da73de4a53bacd43eeb4c20dd88eabc7ac3417aad3520cbd024398c203639d",
    ),
    "ww-53dee050fd18ab67": (
        "convention",
        "decided",
        "Retries back off exponentially.",
        "",
        "decision",
        [f"claude-session:{S1}", "ledger:-home-dev-proj/e3"],
        3,
        [],
        "ef594f5b30094b2920b9cff5de0d2764f84040e85a513df8fa73f6fa536fd5c3",
    ),
    "ww-71b0059cc5572170": (
        "convention",
        "decided",
        (
            "The importer keeps one checkpoint per source file and commits it in the same transaction as "
            "the rows it covers, so that a crash between the two can never skip or double a line of…"
        ),
        "2026-09-12",
        "decision",
        [f"claude-session:{S1}", "ledger:-home-dev-proj/e4"],
        4,
        [],
        "64f01ca5bba664571a0108843e2f4b3bc259b3f3b3644ba88184f7f6688e3788",
    ),
    "ww-7a70b26c1e5b1f7f": (
        "memory",
        "inferred",
        "Still open: search ranking.",
        "2026-09-13",
        "question",
        [f"claude-session:{S2}", "ledger:-home-dev-other/e0"],
        0,
        [],
        "e562be02b230a89a3a1579dff292898deaa07528e6024ddc941cb244f868b949",
    ),
    "ww-7f95905f59b03cea": (
        "lesson",
        "observed",
        "Way d/q nearly fired 2 times in one episode",
        "2026-09-12",
        "way-tuning",
        [f"claude-session:{S1}", "way:d/q"],
        None,
        [],
        "9a242c3b2b250b138c121a5fa893a685c1d0f8fea4ed81a97461b61626ad1f13",
    ),
    "ww-840f2431475c5b97": (
        "convention",
        "decided",
        "Lower case and a bullet count too.",
        "2026-09-12",
        "decision",
        [f"claude-session:{S1}", "ledger:-home-dev-proj/e1"],
        1,
        [],
        "5321e6376116dce6a8c48e09861eb596b22fbf7707e3310ad1535309ff3a5dcf",
    ),
    "ww-b0a58b86b86b0fdc": (
        "lesson",
        "observed",
        "Way x/o nearly fired 2 times in one episode (best probability 0.100)",
        "2026-09-13",
        "way-tuning",
        [f"claude-session:{S2}", "way:x/o", f"turn:{S2}#1-2"],
        None,
        [1, 2],
        "c7943aedb29ab285d0d5ad557a4a445fb2e94c4d53a9c76016344bfbc9239235",
    ),
    "ww-c0eeecee5e68a36b": (
        "lesson",
        "observed",
        "The judge blocked way d/b 2 times in one episode",
        "2026-09-12",
        "way-tuning",
        [f"claude-session:{S1}", "way:d/b", f"turn:{S1}#3-6"],
        None,
        [3, 6],
        "b49d1979fa2c7725cd2e2f4e607fed0166a68b720ce29b9aa46a9e2877f68ff4",
    ),
    "ww-c30aa35cf63a2101": (
        "convention",
        "decided",
        "Ship the session list first.",
        "2026-09-13",
        "decision",
        [f"claude-session:{S2}", "ledger:-home-dev-other/e0"],
        0,
        [],
        "b8cc3b834b0f0ae77a804f8a68bacdeb58a1ebef7c6c5ee7029ba84035ee4e76",
    ),
    "ww-e729827fbfaf6d24": (
        "memory",
        "inferred",
        (
            "Still open: the importer keeps one checkpoint per source file and commits it in the same "
            "transaction as the rows it covers, so that a crash between the two can never skip or double "
            "a line of…"
        ),
        "2026-09-12",
        "question",
        [f"claude-session:{S1}", "ledger:-home-dev-proj/e4"],
        4,
        [],
        "4c9d98c79635265ba28140515c2aa4d87180b981478ce2d0b48a3ebecd62104b",
    ),
    "ww-e75be40a26d79e73": (
        "convention",
        "decided",
        "Commit offsets in the same transaction as rows.",
        "2026-09-12",
        "decision",
        [f"claude-session:{S1}", "ledger:-home-dev-proj/e1"],
        1,
        [],
        "2428a89f09850fc1eff073840e1c671e0c3e71be874f45e1a0d45bc4aaf61738",
    ),
}

FIRST_EVENTS = {  # session, window, trigger, kind, written, unchanged, skipped, detail
    (
        S1,
        1,
        "compact",
        "knowledge.derived",
        6,
        0,
        0,
        (
            "ww-11dc3b1208ae9feb ww-34c657b6bcb1580b ww-40b47fc45ddc3cbf ww-53dee050fd18ab67 "
            "ww-840f2431475c5b97 ww-e75be40a26d79e73"
        ),
    ),
    (
        S1,
        2,
        "compact",
        "knowledge.derived",
        3,
        0,
        0,
        "ww-71b0059cc5572170 ww-c0eeecee5e68a36b ww-e729827fbfaf6d24",
    ),
    (S1, 3, "end", "knowledge.derived", 1, 0, 0, "ww-7f95905f59b03cea"),
    (
        S2,
        1,
        "end",
        "knowledge.derived",
        5,
        0,
        0,
        (
            "ww-11b6b8cc83459484 ww-43fd09064366732c ww-7a70b26c1e5b1f7f ww-b0a58b86b86b0fdc "
            "ww-c30aa35cf63a2101"
        ),
    ),
    (S3, 1, "compact", "knowledge.derived", 0, 0, 0, "no evidence in this episode"),
    (S3, 2, "end", "knowledge.derived", 0, 0, 0, "no evidence in this episode"),
    (S4, 1, "end", "knowledge.derived", 0, 0, 0, ""),
}

SECOND_EVENTS = {  # session, window, trigger, kind, written, unchanged, skipped, detail
    (S1, 1, "compact", "knowledge.derived", 0, 6, 0, ""),
    (S1, 2, "compact", "knowledge.derived", 0, 3, 0, ""),
    (S1, 3, "end", "knowledge.derived", 0, 1, 0, ""),
    (
        S2,
        1,
        "end",
        "knowledge.derived",
        0,
        3,
        2,
        "ww-7a70b26c1e5b1f7f (decided) ww-c30aa35cf63a2101 (promoted)",
    ),
    (S3, 1, "compact", "knowledge.derived", 0, 0, 0, "no evidence in this episode"),
    (S3, 2, "end", "knowledge.derived", 0, 0, 0, "no evidence in this episode"),
    (S4, 1, "end", "knowledge.derived", 0, 0, 0, ""),
}

PROMOTED, REJECTED = "ww-c30aa35cf63a2101", "ww-7a70b26c1e5b1f7f"


def test_it_derives_exactly_these_candidates_and_events_over_many_sessions(corpus, reviewer):
    ingest()
    found = records()
    assert {(r[0], r[2]) for r in found.values()} == {("candidates", "candidate")}
    assert {
        rid: (r[1], r[3], r[4], r[6], r[7][1], r[8], r[10], r[11], r[12]) for rid, r in found.items()
    } == RECORDS
    assert all(r[9] == r[8][0].removeprefix("claude-session:") for r in found.values())
    assert events() == FIRST_EVENTS

    who = acts.Reviewer.of(reviewer)
    services.candidate_promote(
        record=KnowledgeRecord.objects.get(record_id=PROMOTED),
        reviewer=who,
        evidence="Commit abc and its test.",
    )
    services.candidate_reject(
        record=KnowledgeRecord.objects.get(record_id=REJECTED), reviewer=who, reason="Fixed since."
    )
    KnowledgeEvent.objects.all().delete()  # every boundary is derived again
    ingest()
    assert events() == SECOND_EVENTS
    after = records()
    assert not (corpus / "candidates" / f"{PROMOTED}.md").exists()
    assert (after[PROMOTED][0], after[PROMOTED][2], after[REJECTED][0], after[REJECTED][2]) == (
        "curated",
        "verified",
        "candidates",
        "superseded",
    )
    assert {rid: r for rid, r in after.items() if rid not in (PROMOTED, REJECTED)} == {
        rid: r for rid, r in found.items() if rid not in (PROMOTED, REJECTED)
    }


def test_it_records_each_failed_boundary_then_clears_it_once_written(corpus, monkeypatch):
    def unwritable(root, writes, seen=None):
        return {index: PermissionError(13, "Permission denied") for index in range(len(writes))}

    monkeypatch.setattr(candidate_files.files, "write_many", unwritable)
    ingest()
    detail = f"knowledge: Permission denied ({corpus})"
    failed = {(S1, 1, "compact"), (S1, 2, "compact"), (S1, 3, "end"), (S2, 1, "end")}
    assert events() == {(*key, "derive.failed", 0, 0, 0, detail) for key in failed} | {
        e for e in FIRST_EVENTS if e[:3] not in failed
    }
    pks = set(KnowledgeEvent.objects.filter(kind="derive.failed").values_list("pk", flat=True))
    ingest()  # fails again: the same rows, not new ones
    assert set(KnowledgeEvent.objects.filter(kind="derive.failed").values_list("pk", flat=True)) == pks
    monkeypatch.undo()
    ingest()
    assert events() == FIRST_EVENTS


def busy_sessions(home, first: int, count: int) -> None:
    """Sessions of two windows each, with every kind of evidence, one minute apart per session."""
    for n in range(first, first + count):
        sid = f"{n:08d}-0000-4000-8000-000000000000"
        day, hour = f"2026-10-{1 + n // 20:02d}", f"{n % 20:02d}"
        append(
            home.live,
            ev(f"{day}T{hour}:00:00Z", "session_start", sid, project="/home/dev/proj"),
            ev(f"{day}T{hour}:01:00Z", "way_fired", sid, way="d/a", trigger="keyword"),
            ev(f"{day}T{hour}:02:00Z", "way_nearmiss", sid, way="d/n", prob_en="0.4"),
            ev(f"{day}T{hour}:03:00Z", "way_nearmiss", sid, way="d/n", prob_en="0.45"),
            ev(f"{day}T{hour}:30:00Z", "session_start", sid, project="/home/dev/proj"),
            ev(f"{day}T{hour}:31:00Z", "way_judged", sid, way="d/b", verdict="block"),
        )
        write_project_entry(
            home,
            "-home-dev-proj",
            f"{day}T{hour}10Z_e{n:03d}.md",
            n,
            "progress",
            f"{day}T{hour}:10:00Z",
            f"Decision: session {n} keeps its own decision.",
            sid,
        )


def queries_to_derive_every_boundary(directory) -> int:
    KnowledgeEvent.objects.all().delete()
    with CaptureQueriesContext(connection) as context:
        derived = candidates.derive_due(directory, Session.objects.all())
    assert len(derived) == 2 * Session.objects.count()
    assert all(event.kind == "knowledge.derived" and event.written + event.unchanged for event in derived)
    return len(context)


def test_it_reads_the_evidence_of_many_sessions_in_as_many_queries_as_of_few(home, own_knowledge):
    busy_sessions(home, 0, 5)
    ingest()
    few = queries_to_derive_every_boundary(own_knowledge)
    busy_sessions(home, 5, 45)
    ingest()
    assert queries_to_derive_every_boundary(own_knowledge) == few <= 15
    assert len(list((own_knowledge / "candidates").iterdir())) == 50 * 3


def test_an_idle_pass_finds_nothing_due_without_building_a_session(home, own_knowledge, monkeypatch):
    busy_sessions(home, 0, 5)
    ingest()
    built = []
    real_init = Session.__init__

    def counted(self, *args, **kwargs):
        built.append(1)
        real_init(self, *args, **kwargs)

    monkeypatch.setattr(Session, "__init__", counted)
    assert candidates.derive_due(own_knowledge, Session.objects.all()) == []
    assert built == []  # every boundary is derived: no session was due, none was made an instance
    monkeypatch.undo()
    done = KnowledgeEvent.objects.filter(trigger="end").order_by("session__sid").first()
    done.delete()  # that one session's end is due again: it, and it alone, is derived
    derived = candidates.derive_due(own_knowledge, Session.objects.all())
    assert [(e.session_id, e.window, e.trigger) for e in derived] == [(done.session_id, done.window, "end")]


def due_in_python(sessions) -> bool:
    """What derive_due itself finds due, boundary by boundary (the reference for `any_due`)."""
    done = {
        (session_id, window, trigger)
        for session_id, window, trigger, kind in KnowledgeEvent.objects.values_list(
            "session_id", "window", "trigger", "kind"
        )
        if kind != KnowledgeEvent.Kind.FAILED
    }
    return bool(candidates.with_due_boundaries(sessions, done))


@pytest.mark.django_db
def test_the_one_query_finds_a_boundary_due_exactly_when_the_boundaries_read_one_by_one_do():
    """Every kind of session (compacted or not, live or ended, with a transcript or none) against
    every kind of event its boundaries may have (none, derived, skipped, failed, a window past its
    compactions, another session's): the one query and the boundaries read one by one agree."""
    rng = random.Random(29)
    trunk = SourceFile.objects.create(kind="transcript", root="/r", rel_path="t.jsonl")
    now, kinds = timezone.now(), [k for k, _ in KnowledgeEvent.Kind.choices]
    answers = []
    for round_ in range(60):
        Session.objects.all().delete()
        KnowledgeEvent.objects.all().delete()
        made = []
        for n in range(rng.randint(1, 4)):
            made.append(
                Session.objects.create(
                    sid=f"s{round_}-{n}",
                    window_count=rng.choice([0, 1, 2, 3]),
                    transcript=rng.choice([None, trunk]),
                    last_event_at=rng.choice([None, now, now - timedelta(days=2), now + timedelta(days=2)]),
                )
            )
        events = set()
        for session in made:
            for window, trigger in [*candidates.boundaries(session), (0, "end"), (4, "compact"), (2, "end")]:
                if rng.random() < 0.85:
                    owner = rng.choice(made) if rng.random() < 0.1 else session
                    events.add((owner.pk, window, trigger, rng.choice(kinds)))
        KnowledgeEvent.objects.bulk_create(
            KnowledgeEvent(session_id=pk, window=window, trigger=trigger, kind=kind)
            for pk, window, trigger, kind in events
        )
        sessions = Session.objects.all()
        answers.append(candidates.any_due(sessions))
        assert answers[-1] == due_in_python(sessions), list(
            KnowledgeEvent.objects.values_list("session__sid", "window", "trigger", "kind")
        )
    assert answers.count(True) >= 5 and answers.count(False) >= 5  # both answers, often


def test_an_idle_pass_asks_one_query_and_derives_what_falls_due_after(home, own_knowledge):
    busy_sessions(home, 0, 3)
    ingest()
    with CaptureQueriesContext(connection) as context:
        assert candidates.derive_due(own_knowledge, Session.objects.all()) == []
    assert len(context) == 1
    done = KnowledgeEvent.objects.filter(trigger="compact").order_by("session__sid").first()
    done.kind = KnowledgeEvent.Kind.FAILED
    done.save()  # a failure is retried
    derived = candidates.derive_due(own_knowledge, Session.objects.all())
    assert [(e.session_id, e.window, e.trigger) for e in derived] == [
        (done.session_id, done.window, "compact")
    ]
    assert candidates.derive_due(own_knowledge, Session.objects.all()) == []


def evidence_of(sessions: list[Session]) -> tuple:
    """What `Evidence.read` found, comparable: entries by id, each session's ways and turns in one
    order (read in none: way_tuning counts them and takes the greatest, turn_refs the extremes)."""
    found = candidates.Evidence.read(sessions)
    return (
        found.starts,
        {key: [entry.pk for entry in entries] for key, entries in found.entries.items()},
        {pk: sorted(ways, key=repr) for pk, ways in found.ways.items()},
        {pk: sorted(turns) for pk, turns in found.turns.items()},
    )


def test_it_reads_the_same_evidence_in_one_scan_as_by_chunks(corpus, monkeypatch):
    ingest()
    sessions = list(Session.objects.order_by("pk"))
    assert len(sessions) >= 4
    whole = evidence_of(sessions)
    assert all(whole), "every kind of evidence is read"
    for size in range(1, len(sessions) + 1):
        for asked in itertools.combinations(sessions, size):  # a range holds sessions not asked for
            monkeypatch.setattr(candidates, "ONE_SCAN_OVER", 500)
            chunks = evidence_of(list(asked))
            monkeypatch.setattr(candidates, "ONE_SCAN_OVER", 0)
            assert evidence_of(list(asked)) == chunks


def test_it_derives_the_same_candidates_and_events_from_one_scan(corpus, monkeypatch):
    monkeypatch.setattr(candidates, "ONE_SCAN_OVER", 1)
    ingest()
    found = records()
    assert {
        rid: (r[1], r[3], r[4], r[6], r[7][1], r[8], r[10], r[11], r[12]) for rid, r in found.items()
    } == RECORDS
    assert events() == FIRST_EVENTS


def test_only_the_sessions_a_way_tuning_candidate_can_come_from_have_their_turns_read():
    at = timezone.now()
    ways = {
        1: [("way_nearmiss", "git", 0.4, at), ("way_nearmiss", "docs", 0.3, at)],  # one near-miss a way
        2: [("way_nearmiss", "git", 0.4, at), ("way_nearmiss", "git", 0.5, at)],  # twice: a lesson
        3: [("way_judged", "git", None, at)],  # blocked by the judge: a lesson
        4: [("way_nearmiss", "docs", 0.3, at), ("way_judged", "git", None, at)],
    }
    assert candidates.NEAR_MISS_REPEAT == 2
    assert candidates.tuned_sessions(ways) == {2, 3, 4}
