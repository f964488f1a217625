"""Which database `serve` uses — the user's, or the bundled sample's own — decided once for every command.

`serve` shows the sample when asked (`--demo`) or when nothing of the user's exists; `adduser` and
`doctor` must then act on the sample's database too, or an account is made where nobody logs in.
The choice is a process-wide setting (WAYSWEB_DEMO picks the data and the database file at start-up),
so moving to the sample's database is a restart of the same command with it set.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NoReturn

from django.conf import settings
from django.db import DatabaseError, connections

from introspect.models import Session
from lib.locations import Locations


def should_use_sample(*, has_files: bool, has_rows: bool) -> bool:
    """The sample is shown only when there is nothing of the user's to show."""
    return not has_files and not has_rows


def has_sessions() -> bool:
    """True when sessions were imported before; a database not migrated yet holds none."""
    try:
        return Session.objects.exists()
    except DatabaseError:
        return False


def sample_reason(locs: Locations) -> str | None:
    """Why `serve` (with no `--demo`) would show the sample instead of the user's data, or None."""
    if not should_use_sample(has_files=locs.has_user_data(), has_rows=has_sessions()):
        return None
    return (
        f"no agent-ways events found under {locs.state_dir} or {' or '.join(str(log) for _, log in locs.legacy_logs)}, "
        f"and no Claude Code transcripts under {' or '.join(str(p) for p in locs.projects_dirs)}"
    )


def why_the_sample(demo: bool, locs: Locations) -> str | None:
    """Why this process must move to the sample's database to act on the one `serve` uses, or None."""
    if settings.WAYSWEB_DEMO:
        return None  # on it already
    if demo:
        return "--demo given"
    return sample_reason(locs)


def restart_on_sample() -> NoReturn:
    """Run this same command again on the sample's data and database (WAYSWEB_DEMO=1)."""
    env = {**os.environ, "WAYSWEB_DEMO": "1"}
    sys.stdout.flush()
    sys.stderr.flush()
    manage = str(Path(settings.BASE_DIR) / "manage.py")
    args = [a for a in sys.argv[1:] if a != "--demo"]
    os.execve(sys.executable, [sys.executable, manage, *args], env)


def label(config: Mapping[str, Any]) -> str:
    """A database (Django's settings for it) by its file or URL, never its password."""
    if config["ENGINE"].endswith("sqlite3"):
        return str(config["NAME"])
    user = f"{config['USER']}@" if config.get("USER") else ""
    host = config.get("HOST") or "localhost"
    port = f":{config['PORT']}" if config.get("PORT") else ""
    return f"postgresql://{user}{host}{port}/{config['NAME']}"


def described(alias: str = "default") -> str:
    """Whose database this process is on, and where it is: what a command says it acted on."""
    whose = "the bundled sample's database" if settings.WAYSWEB_DEMO else "your database"
    return f"{whose} {label(connections[alias].settings_dict)}"
