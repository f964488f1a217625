"""knowledge/v1 files indexed: a row per record, what the index cannot hold named, one record read again."""

from __future__ import annotations

import os

from ledger.derive.candidate_files import Candidate, Writes, write_candidates
from ledger.importer import knowledge as knowledge_files
from ledger.models import KnowledgeRecord
from tests.ledger.conftest import record_file


def test_it_names_list_values_the_index_cannot_hold_instead_of_dropping_them(tmp_path, db):
    directory = tmp_path / "knowledge"
    (directory / "candidates").mkdir(parents=True)
    (directory / "candidates" / "odd-values.md").write_bytes(
        b"---\nschema: knowledge/v1\nid: odd-values\nkind: knowledge\nclass: fact\ntitle: T\n"
        b"description: d\nstatus: candidate\nepistemics: observed\ndate: 2026-09-11\n"
        b"tags: [ok, {nested: map}, [a, list]]\nrelations: [plain-text]\n"
        b"provenance: {derived_from: ['session:s-1', 7]}\n---\n# T\n"
    )
    knowledge_files.import_directory(directory)
    record = KnowledgeRecord.objects.get(record_id="odd-values")
    assert record.tags == ["ok"] and record.relations == [] and record.derived_from == ["session:s-1"]
    assert record.problem == (
        "tags: 2 values left out; provenance.derived_from: 1 value left out; relations: 1 value left out"
    )


def test_a_lone_tag_is_one_tag_not_its_letters(tmp_path, db):
    directory = tmp_path / "knowledge"
    (directory / "candidates").mkdir(parents=True)
    (directory / "candidates" / "one-tag.md").write_bytes(
        b"---\nschema: knowledge/v1\nid: one-tag\nkind: knowledge\nclass: fact\ntitle: T\n"
        b"description: d\nstatus: candidate\nepistemics: observed\ndate: 2026-09-11\ntags: importer\n---\n"
    )
    knowledge_files.import_directory(directory)
    assert KnowledgeRecord.objects.get(record_id="one-tag").tags == ["importer"]


FIRST, SECOND = "s-20260911000001-aaaa-3f9c2a1b7d0e", "s-20260911000001-aaaa-000000000002"


def test_it_reads_one_record_again_and_no_other(db, knowledge):
    for stem in (FIRST, SECOND):
        path = knowledge / "candidates" / f"{stem}.md"
        path.write_text(path.read_text().replace("episode s-1.", "episode s-9."))
    found = knowledge_files.import_record(knowledge, knowledge, FIRST)
    assert (found.files, found.changed) == (1, 1)
    descriptions = dict(KnowledgeRecord.objects.values_list("record_id", "description"))
    assert descriptions[FIRST] == "Recorded as a decision in episode s-9."
    assert descriptions[SECOND] == "Recorded as a decision in episode s-1."  # the next pass's


def test_it_reads_one_record_as_a_pass_would_curated_first_and_gone_when_both_are_gone(db, knowledge):
    record_file(knowledge, FIRST, status="verified", where="curated")
    (knowledge / "candidates" / f"{FIRST}.md").unlink()
    knowledge_files.import_record(knowledge, knowledge, FIRST)
    row = KnowledgeRecord.objects.get(record_id=FIRST)
    assert (row.source_class, row.status, row.present) == ("curated", "verified", True)
    (knowledge / "curated" / f"{FIRST}.md").unlink()
    assert knowledge_files.import_record(knowledge, knowledge, FIRST).gone == 1
    assert not KnowledgeRecord.objects.get(record_id=FIRST).present
    assert KnowledgeRecord.objects.get(record_id=SECOND).present


def test_it_refuses_to_read_one_record_through_a_link_out_of_its_root(db, knowledge, tmp_path):
    outside = record_file(tmp_path / "elsewhere", FIRST, title="Planted from outside")
    path = knowledge / "candidates" / f"{FIRST}.md"
    path.unlink()
    path.symlink_to(outside)
    found = knowledge_files.import_record(knowledge, knowledge, FIRST)
    assert [problem.reason for problem in found.problems] == ["leaves_root"]
    assert (
        KnowledgeRecord.objects.get(record_id=FIRST).title == "Importer offsets are committed with the rows"
    )


def test_a_pass_over_unchanged_files_builds_no_record_and_reads_a_changed_one_again(
    db, knowledge, monkeypatch
):
    built = []
    real_init = KnowledgeRecord.__init__

    def counted(self, *args, **kwargs):
        built.append(1)
        real_init(self, *args, **kwargs)

    monkeypatch.setattr(KnowledgeRecord, "__init__", counted)
    idle = knowledge_files.import_directory(knowledge)
    assert (idle.files, idle.changed, built) == (3, 0, [])  # every row stayed a tuple
    path = knowledge / "candidates" / f"{SECOND}.md"
    path.write_text(path.read_text().replace("episode s-1.", "episode s-7."))
    found = knowledge_files.import_directory(knowledge)
    assert (found.files, found.changed) == (3, 1)
    descriptions = dict(KnowledgeRecord.objects.values_list("record_id", "description"))
    assert descriptions[SECOND] == "Recorded as a decision in episode s-7."
    assert descriptions[FIRST] == "Recorded as a decision in episode s-1."


THIRD = "s-20260911000001-aaaa-000000000003"


def test_an_idle_pass_still_sees_a_moved_a_deleted_and_a_new_file_each_alone(db, knowledge):
    """A pass that finds every file as its record was read changes nothing; a file moved to curated
    keeping its size and mtime, one deleted, and one new are each seen on a pass of their own."""
    idle = knowledge_files.import_directory(knowledge)
    assert (idle.files, idle.added, idle.changed, idle.gone) == (3, 0, 0, 0)
    (knowledge / "curated").mkdir()
    os.rename(knowledge / "candidates" / f"{FIRST}.md", knowledge / "curated" / f"{FIRST}.md")
    moved = knowledge_files.import_directory(knowledge)
    assert (moved.files, moved.changed) == (3, 1)
    assert KnowledgeRecord.objects.get(record_id=FIRST).source_class == "curated"
    (knowledge / "candidates" / f"{SECOND}.md").unlink()
    deleted = knowledge_files.import_directory(knowledge)
    assert (deleted.files, deleted.gone) == (2, 1)
    assert not KnowledgeRecord.objects.get(record_id=SECOND).present
    record_file(knowledge, "s-20260911000001-aaaa-000000000004", title="A new one")
    new = knowledge_files.import_directory(knowledge)
    assert (new.files, new.added, new.changed, new.gone) == (3, 1, 0, 0)
    assert set(KnowledgeRecord.objects.filter(present=True).values_list("record_id", flat=True)) == {
        FIRST,
        THIRD,
        "s-20260911000001-aaaa-000000000004",
    }


def test_new_records_get_their_ids_in_the_order_they_are_listed_around_a_changed_one(tmp_path, db):
    """Records are inserted a run at a time; their ids are still those one insert per file in listing
    order gives (candidates by name, then the curated ones not among them): a record's page is its id."""
    directory = tmp_path / "knowledge"
    record_file(directory, "ww-c")
    knowledge_files.import_directory(directory)
    kept = KnowledgeRecord.objects.get().pk
    for record_id in ("ww-e", "ww-a", "ww-d"):
        record_file(directory, record_id)
    record_file(directory, "ww-b", where="curated", status="verified")
    record_file(directory, "ww-0", where="curated", status="verified")
    path = record_file(directory, "ww-c", title="Reworded by its author")
    os.utime(path, ns=(1, 1))
    result = knowledge_files.import_directory(directory)
    assert (result.added, result.changed) == (5, 1)
    by_id = list(KnowledgeRecord.objects.order_by("pk").values_list("record_id", "title", "file_size"))
    assert [row[0] for row in by_id] == ["ww-c", "ww-a", "ww-d", "ww-e", "ww-0", "ww-b"]
    assert KnowledgeRecord.objects.get(record_id="ww-c").pk == kept
    assert by_id[0][1] == "Reworded by its author"
    # Each row holds the stat its file was read at, so that the next pass reads none of them again.
    assert all(
        (row.file_size, row.file_mtime_ns) == (os.stat(row.path).st_size, os.stat(row.path).st_mtime_ns)
        for row in KnowledgeRecord.objects.all()
    )


def test_an_idle_pass_still_sees_an_in_place_edit_of_the_same_size_and_a_file_swapped_between_folders(
    db, knowledge
):
    assert knowledge_files.import_directory(knowledge).changed == 0
    path = knowledge / "candidates" / f"{SECOND}.md"
    before = path.stat()
    path.write_text(path.read_text().replace("episode s-1.", "episode s-9."))  # the same size
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns + 1))
    assert knowledge_files.import_directory(knowledge).changed == 1
    assert (
        KnowledgeRecord.objects.get(record_id=SECOND).description == "Recorded as a decision in episode s-9."
    )
    assert knowledge_files.import_directory(knowledge).changed == 0
    with (knowledge / "candidates" / f"{THIRD}.md").open("a") as fh:
        fh.write("\nMore, appended.\n")
    assert knowledge_files.import_directory(knowledge).changed == 1


def test_an_idle_pass_over_a_folder_holding_a_link_or_a_fifo_still_says_so_each_time(db, knowledge, tmp_path):
    outside = record_file(tmp_path / "elsewhere", "s-20260911000001-aaaa-000000000009", title="Planted")
    (knowledge / "candidates" / "planted.md").symlink_to(outside)
    for _ in range(2):  # the first pass and an idle one
        found = knowledge_files.import_directory(knowledge)
        assert [problem.reason for problem in found.problems] == ["leaves_root"]
    (knowledge / "candidates" / "planted.md").unlink()
    os.mkfifo(knowledge / "candidates" / "pipe.md")
    for _ in range(2):
        found = knowledge_files.import_directory(knowledge)
        assert [problem.reason for problem in found.problems] == ["not_regular"]
    assert knowledge_files.quick_listing(knowledge) is None


def test_the_quick_listing_of_a_plain_directory_is_what_its_records_hold(db, knowledge):
    knowledge_files.import_directory(knowledge)
    quick = knowledge_files.quick_listing(knowledge)
    assert len(quick) == 3 and quick == knowledge_files.present_stats(KnowledgeRecord.objects.all())
    (knowledge / "candidates" / "README.md").write_text("# not a record\n")
    (knowledge / "candidates" / "notes.txt").write_text("not a record either\n")
    (knowledge / "candidates" / "folder.md").mkdir()
    assert knowledge_files.quick_listing(knowledge) == quick


def test_files_the_pass_just_wrote_are_taken_as_written_unless_changed_since(tmp_path, db, monkeypatch):
    """The candidates a pass derived are indexed from the bytes it wrote (`written`), not read back;
    a file someone changed after the write (another mtime or size) is read as any other."""
    directory = tmp_path / "knowledge"
    found = [
        Candidate(
            "convention",
            "decided",
            f"Decision {n}",
            "Recorded.",
            "2026-09-11",
            "decision",
            ("claude-session:s-1",),
        )
        for n in range(3)
    ]
    writes = Writes(directory)
    write_candidates(directory, found, writes)
    writes.flush()
    assert len(writes.written) == 3
    paths = sorted(writes.written)
    for path, (data, seen, _) in writes.written.items():
        assert path.read_bytes() == data and (path.stat().st_size, path.stat().st_mtime_ns) == seen
    edited, same_stat = paths[0], paths[1]
    edited.write_bytes(edited.read_bytes().replace(b"Recorded.", b"Reworded by a person."))
    written = dict(writes.written)
    reads = []
    real_read = knowledge_files.read_document
    monkeypatch.setattr(
        knowledge_files,
        "read_document",
        lambda root, path, result: reads.append(path) or real_read(root, path, result),
    )
    result = knowledge_files.import_directory(directory, written=written)
    assert reads == [edited] and result.added == 3
    rows = {row.record_id: row for row in KnowledgeRecord.objects.all()}
    assert rows[edited.name[:-3]].description == "Reworded by a person."
    assert rows[same_stat.name[:-3]].description == "Recorded."
    for row in rows.values():
        assert (row.file_size, row.file_mtime_ns) == (
            os.stat(row.path).st_size,
            os.stat(row.path).st_mtime_ns,
        )
