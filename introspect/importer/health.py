"""The importer's last failure, kept in a small file beside the database.

When the disk is full or read-only, or the database is gone, the failure cannot be written to the
database it is about; a file in the data directory usually can (fault case 22: the status is
visible in the UI). Best effort by design: if even that write fails, the command's own message
still says what happened.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import orjson
from django.conf import settings

from lib import statefile

NAME = "importer-failure.json"


def path() -> Path:
    return Path(settings.DATA_DIR) / NAME


def record(message: str) -> None:
    """Remember why the last pass failed (the newest failure replaces an older one)."""
    data = {
        "at": datetime.now(UTC).isoformat(timespec="seconds"),
        "host": settings.WAYSWEB_HOST,
        "message": message,
    }
    statefile.write(path(), data)


def clear() -> None:
    """A pass that completed: the importer is healthy again."""
    statefile.remove(path())


def last_failure() -> dict | None:
    try:
        data = orjson.loads(path().read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return None
    if not isinstance(data, dict) or not isinstance(data.get("message"), str):
        return None
    try:
        data["at"] = datetime.fromisoformat(data.get("at", ""))
    except (TypeError, ValueError):
        data["at"] = None
    return data
