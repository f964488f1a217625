"""A transcript line made ready to store, as far as that needs no database: its columns, its
packed bytes, the secrets in it. No Django (importer/prefetch.py runs it in a worker process).

The writer (entry_rows.store_entries) adds what only the database knows: the session, whether the
uuid is a copy, which secrets people marked "not a secret". Both the in-process path and the worker
build entries here, so both store the same rows.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from introspect.importer import parser, tailer, transcripts
from introspect.rules import secrets
from lib import column_fit, linepack
from lib.hashing import sha256


@dataclass(frozen=True)
class Config:
    """The settings preparing reads, passed as values (a worker has no Django settings)."""

    bounds: column_fit.Bounds  # TranscriptEntry's bounded columns
    keep_inert: bool  # settings.WAYSWEB_KEEP_INERT_RAW
    scan: bool  # settings.WAYSWEB_SECRET_SCAN
    # Packed here (the worker), with this dictionary; or left for the writer, which packs a batch
    # once it is scanned (entry_rows.store_entries: the dictionary is trained on the first batches).
    pack: bool = True
    dictionary: linepack.Dictionary | None = None
    # The text column packed here too (lib/packed_text.py: SQLite's; PostgreSQL stores it as it is).
    pack_text: bool = False


@dataclass
class Prepared:
    """One record of a line, ready for its TranscriptEntry row but for the database's part."""

    fields: dict  # EntryFields' columns, flags and `has_secret`
    sha: str  # the record's identity
    packed: bytes | None  # None: not packed yet (Config.pack)
    compressed: bool
    found: list | None  # the secrets in the stored bytes; None when not scanned
    # The stored bytes unpacked: kept when not packed yet, or when a secret may have to be masked.
    data: bytes = b""
    # `fields["text"]` as its column stores it (linepack.pack_text); None: not packed here.
    text: str | bytes | None = None


def prepare(line: tailer.Line, record: parser.Record, sha: str, config: Config) -> Prepared:
    # The parsed line's own dict (EntryFields' columns and flags; one per line, never shared).
    fields = vars(transcripts.fields_of(record.obj))
    overlong = column_fit.fit_to(config.bounds, fields)
    fields["flags"] = [*record.flags, *fields["flags"], *overlong]
    if line.nul_prefix:
        fields["flags"].append(f"nul_prefix={line.nul_prefix}")
    data = record.data if (not fields["inert"] or config.keep_inert) else b""
    found = None
    if config.scan and data:
        found = secrets.find_secrets(
            data.decode("utf-8", "surrogateescape"), ascii_data=data if data.isascii() else None
        )
    fields["has_secret"] = None if found is None else bool(found)
    if not config.pack:
        return Prepared(fields, sha, None, False, found, data)
    packed, compressed = linepack.pack(data, config.dictionary)
    text = linepack.pack_text(fields["text"]) if config.pack_text else None
    return Prepared(fields, sha, packed, compressed, found, data if found else b"", text)


def read_line(line: tailer.Line, parse=parser.parse_line) -> tuple[str, parser.Parsed, list[str]]:
    """A line's sha256, what parsing made of it and each record's sha256 (a record of the whole
    line shares the line's, hashed once)."""
    sha = sha256(line.data)
    parsed = parse(line.data)
    return (
        sha,
        parsed,
        [sha if record.data is line.data else sha256(record.data) for record in parsed.records],
    )


def prepare_line(line: tailer.Line, config: Config) -> tuple[tailer.Line, tuple | None]:
    """A line as the worker hands it to the writer: (its sha256, its Parsed with Prepared records),
    None for a line over the cap (the writer quarantines it). The line's bytes go along only when
    part of it is quarantined (its Quarantine row keeps them): every record carries what it stores."""
    if line.too_long:
        return line, None
    sha, parsed, shas = read_line(line)
    records = [prepare(line, record, rsha, config) for record, rsha in zip(parsed.records, shas, strict=True)]
    if parsed.quarantine is None:
        line = tailer.Line(line.offset, b"", line.length, line.index, line.nul_prefix)
    return line, (sha, parser.Parsed(records, parsed.quarantine, parsed.inert))


def prepare_chunk(chunk: tailer.Chunk, config: Config) -> tailer.Chunk:
    """The chunk as the writer lands it: each line with what preparing made of it (`Chunk.prepared`)."""
    pairs = [prepare_line(line, config) for line in chunk.lines]
    return dataclasses.replace(chunk, lines=[line for line, _ in pairs], prepared=tuple(p for _, p in pairs))
