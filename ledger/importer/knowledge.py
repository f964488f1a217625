"""`knowledge/v1` records (candidates/ and curated/ of a knowledge directory) indexed; their file
format is ledger/records/knowledge.py.

The file is the truth, the `KnowledgeRecord` row its index (knowledge-and-records.md §4). A record is
re-read whole when its content hash changes; nothing a person decided is ever changed here — a file
that contradicts a recorded decision raises a conflict banner instead (§6).
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Callable
from functools import partial
from itertools import batched
from pathlib import Path
from typing import NamedTuple

from django.db import IntegrityError, connections, transaction
from django.urls import reverse
from django.utils import timezone

from introspect.importer import secret_rows
from ledger.importer.document import DocumentResult, markdown, read_document
from ledger.importer.knowledge_links import Lookups, SessionsBySid, link_provenance
from ledger.models import KnowledgeRecord, ReviewAction
from ledger.records import knowledge as knowledge_format
from ledger.records.document import MAX_DOCUMENT_BYTES
from lib import bulk, column_fit, safefs
from lib.hashing import sha256


def knowledge_directories(repos: list[Path], own: Path) -> list[tuple[Path, Path]]:
    """(directory, the root it is read inside): waysweb's own knowledge directory, then each
    repository's `.ai/repo/knowledge` (`repos` as `run.repositories` chose them)."""
    found = [(own, own)]
    for repo in repos:
        directory = repo / ".ai" / "repo" / "knowledge"
        if safefs.is_dir(directory) and directory not in [d for d, _ in found]:
            found.append((directory, repo))
    return found


SOURCE_CLASSES = ("candidates", "curated")  # curated second: it overrides a leftover candidate
# What decides whether a record's file changed (a record's JSON fields cost more to load than the
# file costs to hash); a changed record loads the rest when it is written.
STAT_FIELDS = ("record_id", "sha256", "source_class", "present", "directory", "file_size", "file_mtime_ns")


# A file this pass wrote, by path: its bytes, the (size, mtime_ns) it was written at and what it
# reads as when that is sure (knowledge_format.render_front).
Written = dict[Path, tuple[bytes, tuple[int, int], knowledge_format.Front | None]]


def import_directory(
    directory: Path, root: Path | None = None, *, written: Written | None = None
) -> DocumentResult:
    """Candidates and curated records of one knowledge directory; curated wins for one id.

    Files are read inside `root` (the repository, or the directory itself): a candidate that is a
    link to a file elsewhere is a problem, never shown. A file in `written` (the candidates this
    pass derived) still listed with the size and mtime it was written at is taken as written.
    """
    root = root or directory
    result = DocumentResult()
    rows = KnowledgeRecord.objects.filter(directory=str(directory))
    quick = quick_listing(directory)
    if quick is not None and quick == present_stats(rows):
        result.files = len(quick)  # every file as its record was read, none gone: nothing to do
        return result
    listed: dict[str, tuple[str, safefs.Entry]] = {}
    for source_class in SOURCE_CLASSES:
        folder = directory / source_class
        if safefs.is_dir(folder):
            for found in safefs.entries(root, folder, result.problems, want=markdown):
                if found.kind == "file" and markdown(found.name) and found.name != "README.md":
                    listed[stem_of(found.name)] = (source_class, found)
    if nothing_changed(listed, present_stats(rows)):
        result.files = len(listed)
        return result
    files = {stem: (source_class, found.path, found.seen) for stem, (source_class, found) in listed.items()}
    # Value tuples: most files are unchanged, and no record needs to be a model instance; those
    # whose file changed are read whole below.
    existing = {values[0]: Stat(*values) for values in rows.values_list(*STAT_FIELDS, "pk")}
    changed = [
        stem
        for stem, (source_class, _, seen) in files.items()
        if not unchanged(existing.get(stem), source_class, seen)
    ]
    existing.update(
        (record.record_id, record)
        for record in bulk.chunked_in(rows.only(*STAT_FIELDS), "record_id", changed)
    )
    index_files(directory, root, files, existing, result, written)
    return result


# What `unchanged` compares of a present record, as an idle pass reads it (`nothing_changed`).
LISTED_FIELDS = ("source_class", "file_size", "file_mtime_ns")


def quick_listing(directory: Path) -> dict[str, tuple[str, int, int]] | None:
    """Record id → (source class, size, mtime_ns) of every record file of the directory, as
    `present_stats` gives its records, when its folders hold nothing but folders and regular files;
    None when anything else is there (a link, a FIFO, an entry that cannot be read): then it is
    listed the careful way (safefs.entries), which confines each link to the root and says what it
    refused. An idle pass over the large tier's 8,955 candidates spent most of its time building an
    entry of each file to compare three of its values; a file edited in place, added, moved or
    removed still differs here from its record (a stat each, as before)."""
    found: dict[str, tuple[str, int, int]] = {}
    for source_class in SOURCE_CLASSES:
        try:
            with os.scandir(directory / source_class) as scan:
                for item in scan:
                    if item.is_symlink():
                        return None
                    name = item.name
                    if not markdown(name) or name == "README.md" or item.is_dir(follow_symlinks=False):
                        continue
                    st = item.stat(follow_symlinks=False)
                    if not stat.S_ISREG(st.st_mode):
                        return None
                    found[stem_of(name)] = (source_class, st.st_size, st.st_mtime_ns)
        except FileNotFoundError:
            continue  # no such folder: none of its records is present
        except OSError:
            return None
    return found


def present_stats(rows) -> dict[str, tuple]:
    """Record id → `LISTED_FIELDS` of the present records among `rows`, as the database gives them:
    text and integers, which need no conversion. The ORM's rows cost as much again as the query
    for the large tier's 8,955 candidates, read on every pass."""
    query = rows.filter(present=True).values_list("record_id", *LISTED_FIELDS)
    sql, params = query.query.sql_with_params()
    with connections[query.db].cursor() as cursor:
        cursor.execute(sql, params)
        return {record_id: tuple(values) for record_id, *values in cursor.fetchall()}


def nothing_changed(listed: dict[str, tuple[str, safefs.Entry]], indexed: dict[str, tuple]) -> bool:
    """An idle pass over thousands of candidates: every file listed with the size and mtime its
    record was read at, in the same folder (`unchanged`), and no present record gone from the
    listing, as `index_files` would find, from `LISTED_FIELDS` of each present record (record id →
    values): nothing else is read or built."""
    if len(indexed) != len(listed):
        return False  # a file new, or a record's file gone
    return all(
        indexed.get(stem) == (source_class, *found.seen) for stem, (source_class, found) in listed.items()
    )


def stem_of(name: str) -> str:
    """A record file's id: its name without ".md", as `os.path.splitext` cuts it (a name of dots
    and "md" alone has no extension); neither splits the name, nor, as pathlib's `stem` did, the
    whole path again, for each of thousands of files on every pass."""
    return name if name.lstrip(".") == "md" else name[:-3]


class Stat(NamedTuple):
    """What decides whether a record's file changed (STAT_FIELDS, then the row's id), named as the
    record's fields are."""

    record_id: str
    sha256: str
    source_class: str
    present: bool
    directory: str
    file_size: int
    file_mtime_ns: int
    pk: int


def unchanged(record: KnowledgeRecord | Stat | None, source_class: str, seen: tuple[int, int]) -> bool:
    """Whether the file was listed with the size and mtime its record was read at, in the same folder."""
    current = record is not None and record.source_class == source_class and record.present
    return current and (record.file_size, record.file_mtime_ns) == seen


def import_record(directory: Path, root: Path, record_id: str) -> DocumentResult:
    """One record of a knowledge directory read again now, as a whole pass would read it (curated
    wins; gone from both folders is gone). A person's act that found the file changed answers with
    what the file says, not with what the last pass read up to a pass interval ago."""
    result = DocumentResult()
    files: dict[str, tuple[str, Path, tuple[int, int]]] = {}
    for source_class in SOURCE_CLASSES:
        path = directory / source_class / f"{record_id}.md"
        try:
            st = os.stat(safefs.inside(root, path))
        except FileNotFoundError:
            continue
        except safefs.Refused as refused:
            result.problems.append(refused.problem)
            continue
        except OSError as exc:
            result.problems.append(safefs.Problem(str(path), safefs.UNREADABLE, exc.strerror or str(exc)))
            continue
        if stat.S_ISREG(st.st_mode):
            files[record_id] = (source_class, path, (st.st_size, st.st_mtime_ns))
    existing = {
        r.record_id: r
        for r in KnowledgeRecord.objects.filter(directory=str(directory), record_id=record_id).only(
            *STAT_FIELDS
        )
    }
    index_files(directory, root, files, existing, result)
    return result


def index_files(
    directory: Path,
    root: Path,
    files: dict[str, tuple[str, Path, tuple[int, int]]],
    existing: dict[str, KnowledgeRecord],
    result: DocumentResult,
    written: Written | None = None,
) -> None:
    """Bring the rows of `existing` (by record id) in line with `files` (record id → source class,
    path, (size, mtime_ns) as listed): new, changed, restated or gone. A file of `written` listed
    with the size and mtime it was written at is not read back: the pass that wrote it holds its
    bytes (a cold pass read back every one of thousands of candidates it had just derived); one
    changed since, by a person or another writer, is listed otherwise and read as any other."""
    written = written or {}
    now = timezone.now()
    leftovers = {
        stem
        for stem in files
        if files[stem][0] == "curated" and safefs.exists(directory / "candidates" / f"{stem}.md")
    }
    sessions = SessionsBySid()
    changed: list[
        tuple[str, str, str, knowledge_format.Knowledge, tuple[int, int]]
    ] = []  # stem, class, sha256, parsed, seen
    restat: list[tuple[int, tuple[int, int]]] = []  # records whose bytes are the same under a new stat
    for stem, (source_class, path, seen) in files.items():
        record = existing.get(stem)
        current = record is not None and record.source_class == source_class and record.present
        if unchanged(record, source_class, seen):
            result.files += 1  # listed with the size and mtime it was read at: not read again
            continue
        known = written.get(path)
        front = None
        if known is not None and known[1] == seen:
            raw, front = known[0][: MAX_DOCUMENT_BYTES + 1], known[2]  # as read_document reads it
        else:
            raw = read_document(root, path, result)
        if raw is None:
            continue  # unreadable or refused (a problem), or gone since the listing: the row stays
        result.files += 1
        digest = sha256(raw)
        if current and record.sha256 == digest:
            restat.append((record.pk, seen))
            continue
        if front is not None:  # what parsing the bytes gives, held: parsed by the pass that wrote them
            parsed = knowledge_format.checked(dict(front[0]), front[1], stem=stem)
        else:
            parsed = knowledge_format.parse_knowledge(raw, stem=stem)
        changed.append((stem, source_class, digest, parsed, seen))
    for batch in batched(restat, COMMIT_EVERY):  # the first pass after an upgrade stamps them all
        with transaction.atomic():
            for pk, (size, mtime_ns) in batch:
                KnowledgeRecord.objects.filter(pk=pk).update(file_size=size, file_mtime_ns=mtime_ns)
    # The files are read before any write (a write never waits on a slow disk), then the records
    # commit a few hundred at a time: a commit per file made a first pass over thousands of derived
    # candidates wait on the disk thousands of times. New records are inserted a run at a time
    # (`create_records`), in the order they were listed, so that they get the ids one by one would
    # have given them (a record's page is /ledger/knowledge/<id>/).
    lookups = Lookups()
    sessions.prefetch(
        ref
        for *_, parsed, _ in changed
        if isinstance(provenance := parsed.data.get("provenance"), dict)
        for ref in listed(provenance.get("derived_from"))
        if isinstance(ref, str)
    )
    for batch in batched(changed, COMMIT_EVERY):
        with transaction.atomic():
            new: list[tuple[KnowledgeRecord, knowledge_format.Knowledge]] = []
            for stem, source_class, digest, parsed, seen in batch:
                record = existing.get(stem)
                if record is None:
                    record = KnowledgeRecord(
                        directory=str(directory),
                        record_id=stem,
                        first_seen=now,
                        origin=KnowledgeRecord.Origin.WAYSWEB
                        if stem.startswith("ww-")
                        else KnowledgeRecord.Origin.MAJORDOMUS,
                    )
                    result.added += 1
                    apply_file(record, parsed, source_class, digest, sessions=sessions, lookups=lookups)
                    settle(record, stem in leftovers, seen)
                    new.append((record, parsed))
                    continue
                create_records(new)
                new = []
                result.changed += 1
                with transaction.atomic():
                    applied = apply_file(
                        record, parsed, source_class, digest, sessions=sessions, lookups=lookups
                    )
                    settle(record, stem in leftovers, seen)
                    save = partial(
                        bulk.save_racing, record, directory=record.directory, record_id=record.record_id
                    )
                    # A file in conflict left the row as it was: its texts and findings stand.
                    save_scanned(record, save) if applied else save()
                    recover_audit(record, parsed)
            create_records(new)
    for stem, record in existing.items():
        if stem not in files and record.present:
            KnowledgeRecord.objects.filter(pk=record.pk).update(present=False)
            result.gone += 1


COMMIT_EVERY = 200  # knowledge records per transaction


def settle(record: KnowledgeRecord, leftover: bool, seen: tuple[int, int]) -> None:
    """What a record holds of its listing: an interrupted promotion, and the stat it was read at."""
    if leftover:
        record.conflict = (
            "a candidate file is still beside the curated record: an interrupted "
            "promotion; promoting again finishes it"
        )
    record.file_size, record.file_mtime_ns = seen


def create_records(new: list[tuple[KnowledgeRecord, knowledge_format.Knowledge]]) -> None:
    """Insert new records (read and applied) in one statement, in their order, then their secret
    findings and any audit their files recover, as saving them one by one would, in fewer queries.
    When another importer inserted one of them meanwhile (two hosts on one PostgreSQL database),
    each is saved by itself instead, adopting that row (`bulk.save_racing`)."""
    if not new:
        return
    records = [record for record, _ in new]
    scans = []
    for record in records:
        scan = secret_rows.DocumentScan()
        scan.fields(record, KNOWLEDGE_TEXTS)
        scans.append(scan)
    try:
        with transaction.atomic():  # a savepoint: a lost race must not poison the outer transaction
            bulk.insert_all(records, key=("directory", "record_id"))
    except IntegrityError:
        for record in records:
            record.pk = None
            bulk.save_racing(record, directory=record.directory, record_id=record.record_id)
    secret_rows.save_scans(
        [
            (
                record,
                scan,
                f"knowledge record {record.record_id}",
                reverse("ledger:candidate-detail", args=[record.pk]) if scan.found else "",
                record.session_id,
            )
            for record, scan in zip(records, scans, strict=True)
        ]
    )
    for record, parsed in new:
        recover_audit(record, parsed)


# What a record's row holds of its file's words (a secret in them is masked in team mode).
KNOWLEDGE_TEXTS = ("title", "description", "about", "body", "frontmatter", "tags", "relations")


def save_scanned(record: KnowledgeRecord, save: Callable[[], object]) -> None:
    """Save `record` by `save` with its texts as they are to be stored (masked in team mode), and its
    secrets listed on the Secrets page: the importer's and a person's writes (services) alike."""
    scan = secret_rows.DocumentScan()
    scan.fields(record, KNOWLEDGE_TEXTS)
    save()
    scan.save(
        record,
        where=f"knowledge record {record.record_id}",
        url=reverse("ledger:candidate-detail", args=[record.pk]),
        session_id=record.session_id,
    )


def apply_file(
    record: KnowledgeRecord,
    parsed: knowledge_format.Knowledge,
    source_class: str,
    digest: str,
    *,
    sessions: SessionsBySid | None = None,
    lookups: Lookups | None = None,
) -> bool:
    """Index what the file says; a file that reverts a person's decision is flagged, not obeyed
    (False: only the conflict and the hash were set)."""
    decided = record.pk and record.actions.filter(verb__in=("promote", "reject")).exists()
    file_status = str(parsed.get("status"))
    if decided and record.status != file_status and file_status:
        record.conflict = (
            f"the file now says {file_status!r} but a person decided {record.status!r}; "
            "nothing was redone or undone"
        )
        record.sha256 = digest
        return False
    record.conflict = ""
    record.source_class, record.sha256, record.present = source_class, digest, True
    record.problem = (
        "; ".join(parsed.problems)
        if not parsed.quarantine
        else f"{parsed.quarantine[0]}: {parsed.quarantine[1]}"
    )
    data = parsed.data
    record.klass, record.status = str(data.get("class") or ""), file_status or record.status
    record.epistemics, record.title = str(data.get("epistemics") or ""), str(data.get("title") or "")
    record.description, record.date = str(data.get("description") or ""), str(data.get("date") or "")
    tags, derived_from, relations = listed(data.get("tags")), [], listed(data.get("relations"))
    provenance = data.get("provenance") if isinstance(data.get("provenance"), dict) else {}
    derived_from = listed(provenance.get("derived_from"))
    record.tags = [str(t) for t in tags if isinstance(t, (str, int))]
    record.derived_from = [r for r in derived_from if isinstance(r, str)]
    record.relations = [r for r in relations if isinstance(r, dict)]
    # What the index cannot hold is named on the record (the file keeps it): never dropped unsaid.
    left_out = [
        f"{name}: {len(values) - len(kept)} value{'s' if len(values) - len(kept) != 1 else ''} left out"
        for name, values, kept in (
            ("tags", tags, record.tags),
            ("provenance.derived_from", derived_from, record.derived_from),
            ("relations", relations, record.relations),
        )
        if len(values) != len(kept)
    ]
    if left_out:
        record.problem = "; ".join(part for part in (record.problem, *left_out) if part)
    record.superseded_by = str(data.get("superseded_by") or "")
    record.about = str(data.get("about") or "")
    record.body, record.frontmatter = parsed.body, json.loads(json.dumps(data, default=str))
    overlong = column_fit.fit_instance(record)  # the file keeps the value; the column cannot
    if overlong:
        record.problem = "; ".join(part for part in (record.problem, *overlong) if part)
    link_provenance(
        record, SessionsBySid() if sessions is None else sessions, Lookups() if lookups is None else lookups
    )
    return True


def listed(value: object) -> list:
    """A front-matter list as a list; a lone scalar as a list of one; nothing as an empty list."""
    if value is None or value == "":
        return []
    return list(value) if isinstance(value, (list, tuple)) else [value]


def recover_audit(record: KnowledgeRecord, parsed: knowledge_format.Knowledge) -> None:
    """A promotion or rejection written to the file whose database commit was lost (a crash between
    the two) is recorded from the reviewer line the file carries, so the audit trail stays whole."""
    if (
        record.status not in ("verified", "superseded")
        or record.actions.filter(verb__in=("promote", "reject", "recover")).exists()
    ):
        return
    marker = "Promoted by " if record.status == "verified" else "Rejected by "
    line = next(
        (line for line in parsed.body.splitlines() if line.startswith(marker) and "waysweb" in line), ""
    )
    if line:
        ReviewAction.objects.create(
            record=record,
            verb=ReviewAction.Verb.RECOVER,
            reviewer_name=column_fit.cut(
                line[len(marker) :].split(" via ", 1)[0].strip(), ReviewAction, "reviewer_name"
            ),
            note=line,
            file_sha_after=record.sha256,
            class_after=record.klass,
        )
