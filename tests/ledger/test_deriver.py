"""The deriver: deterministic, idempotent, visible when it fails, and never undoing a person's act."""

from __future__ import annotations

from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from ledger import services
from ledger.derive import candidates
from ledger.importer import entries as entry_files
from ledger.models import KnowledgeEvent, KnowledgeRecord, LedgerEntry
from tests.conftest import append, line

pytestmark = pytest.mark.django_db

S = "4d5611e5-241a-462a-8d15-5122611a9569"


def write_entry(home, name: str, epoch: int, phase: str, ts: str, body: str, session: str = S) -> Path:
    path = home.root / ".claude" / "ledger" / "-home-dev-proj" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\nsession: {session}\ntranscript: ~/.claude/projects/-home-dev-proj/{session}.jsonl\n"
                    f"epoch: {epoch}\ncontext_pct: 50\ntimestamp: {ts}\nphase: {phase}\n---\n\n{body}\n")
    return path


@pytest.fixture
def episode(home, settings, tmp_path):
    settings.WAYSWEB_LOCATIONS = settings.WAYSWEB_LOCATIONS.__class__(
        **{**settings.WAYSWEB_LOCATIONS.__dict__, "own_knowledge": tmp_path / "knowledge"})
    append(home.live,
           line(ts="2026-09-12T10:00:00Z", event="session_start", session=S, project="/home/dev/proj"),
           line(ts="2026-09-12T10:05:00Z", event="way_fired", way="d/a", trigger="keyword", session=S),
           line(ts="2026-09-12T10:06:00Z", event="way_nearmiss", way="d/n", prob_en="0.47", tau_s="0.5", session=S),
           line(ts="2026-09-12T10:09:00Z", event="way_nearmiss", way="d/n", prob_en="0.48", tau_s="0.5", session=S),
           line(ts="2026-09-12T10:20:00Z", event="session_start", session=S, project="/home/dev/proj"),
           line(ts="2026-09-12T10:25:00Z", event="way_judged", way="d/b", p_yes="0.05", threshold="0.3",
                verdict="block", session=S))
    write_entry(home, "2026-09-12T1010Z_e000.md", 0, "progress", "2026-09-12T10:10:00Z",
                "Moved the checkpoint.\nDecision: commit offsets in the same transaction as rows.\n"
                "Open threads: gz archives are still re-read from the start.")
    write_entry(home, "2026-09-12T1019Z_e001.md", 1, "handoff", "2026-09-12T10:19:00Z",
                "State for the next window: importer done, UI next.")
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
        "convention", "decided", "candidate", "waysweb")
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
    who = services.Reviewer.of(reviewer)
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
    def unwritable(root, path, data):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(candidates.files, "write_atomic", unwritable)
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
