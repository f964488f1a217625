"""What stopped the importer, and what to do about it, in one line of the user's words.

importer-reliability.md §2: the command ends non-zero only when the importer itself could not run
(fault case 22), and then says why in one line, never a traceback. The wording lives here, beside
the importer, so `ingest`, `serve` and `doctor` say the same thing.
"""

from __future__ import annotations

import errno

from django.db import DatabaseError, DataError, IntegrityError, OperationalError, connection

from introspect.importer import batch


def one_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return printable(text.splitlines()[0]) if text else type(exc).__name__


def printable(text: str) -> str:
    """Text safe to print on a terminal: a file name may hold escape sequences (`\\x1b]0;…`) or
    bytes that are not UTF-8; each such character is shown escaped, never sent to the terminal."""
    if text.isprintable():
        return text
    return "".join(char if char.isprintable() else ascii(char)[1:-1] for char in text)


def caused_by_content(exc: BaseException) -> bool:
    """Whether one file's lines or one session's rows can have raised this, rather than a database
    or disk that nothing can be written to: the pass reports that file or session and goes on with
    the others, instead of stopping (a stamp in the year 9999 once stopped every later run).

    A value the database refuses (DataError, IntegrityError) is content; a locked, full, missing or
    read-only database, an OSError and a moved checkpoint are the importer's own trouble (explain()).
    """
    if not isinstance(exc, Exception) or isinstance(exc, (OSError, batch.CheckpointMoved)):
        return False
    return not isinstance(exc, DatabaseError) or isinstance(exc, (DataError, IntegrityError))


def described(exc: BaseException) -> str:
    """`ExcType: first line`, the way a file's or session's failure is listed."""
    return f"{type(exc).__name__}: {one_line(exc)}"


def is_locked(exc: BaseException) -> bool:
    return "locked" in str(exc).lower()


def database_name() -> str:
    settings_dict = connection.settings_dict
    if connection.vendor == "sqlite":
        return str(settings_dict["NAME"])
    return f"{settings_dict.get('NAME')} on {settings_dict.get('HOST') or 'the local socket'}"


def explain(exc: BaseException) -> str:
    """One line: what stopped the importer and what to do about it (importer-reliability.md §2:
    non-zero only when the importer itself could not run; fault case 22)."""
    what = one_line(exc)
    lowered = what.lower()
    where = database_name()
    resume = "then run ingest again: it resumes from its checkpoints, nothing was half-written"
    if isinstance(exc, OSError):
        target = f" {exc.filename}" if exc.filename else ""
        if exc.errno == errno.ENOSPC:
            return f"the disk is full (writing{target}: {exc.strerror}): free some space, {resume}."
        if exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
            return (
                f"cannot write{target} ({exc.strerror}): make it writable (a read-only mount? its "
                f"permissions?), {resume}."
            )
        return f"import failed ({target.strip() or 'a file'}: {exc.strerror or what}); {resume}."
    if isinstance(exc, batch.CheckpointMoved):
        return f"{what}; {resume}."
    if "readonly" in lowered or "read-only" in lowered:
        how = (
            "default_transaction_read_only? a standby server?"
            if connection.vendor == "postgresql"
            else "a read-only mount? the file's or its folder's permissions?"
        )
        return f"the database {where} is read-only ({what}): make it writable ({how}), {resume}."
    if "disk is full" in lowered or "no space left" in lowered or "could not extend" in lowered:
        return f"the disk holding the database {where} is full ({what}): free some space, {resume}."
    if "no such table" in lowered or ("relation" in lowered and "does not exist" in lowered):
        return (
            f"the database {where} has no waysweb tables ({what}): it was deleted or never migrated; run "
            "`manage.py migrate` (or `manage.py serve`, which migrates), then ingest again."
        )
    if "database" in lowered and "does not exist" in lowered:
        return (
            f"the database {where} does not exist ({what}): create it (createdb) and run `manage.py "
            "migrate`, or fix WAYSWEB_DATABASE_URL; then ingest again."
        )
    if "unable to open database file" in lowered:
        return (
            f"cannot open the database {where} ({what}): check that its folder exists and is writable "
            "(SQLite writes -wal and -shm files beside it), then ingest again."
        )
    if is_locked(exc):
        return (
            f"another writer held the database {where} past every retry ({what}): find it (a long "
            f"transaction, another tool), {resume}."
        )
    if isinstance(exc, OperationalError):
        return f"the database {where} could not be used ({what}); {resume}."
    return f"import failed ({type(exc).__name__}: {what}); {resume}."
