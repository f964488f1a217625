"""Static files collected once per build of them, so that two `serve` can start at the same time.

`serve` used to run `collectstatic` into the one STATIC_ROOT of the checkout: two servers started
together wrote the same files at once. Now each set of static sources is collected into a directory
of its own in the data directory (`static/build-<hash of the sources>`), written in a temporary
directory beside it and renamed into place: a build directory that exists is complete, the first
rename wins, and nobody writes into a directory a server serves. A later start of the same build
collects nothing. The checkout is never written (it may be read-only), and STATIC_ROOT keeps its
meaning for a plain `collectstatic` behind another WSGI server.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from io import StringIO
from pathlib import Path

from django.apps import apps
from django.conf import settings
from django.contrib.staticfiles import finders
from django.contrib.staticfiles.management.commands import collectstatic
from django.contrib.staticfiles.storage import staticfiles_storage
from django.core.files.storage import storages
from django.core.management import call_command

PREFIX = "build-"
# Builds kept: the one served and the most recently used others (a server started before an
# upgrade still reads its own). Each is a few MB; a checkout whose static files change often
# would otherwise fill the data directory with them.
KEEP = 3


def sources() -> dict[str, Path]:
    """The files `collectstatic` would collect, by the path it gives them (the first finder to name
    a path wins, as in `collectstatic`)."""
    ignore = apps.get_app_config("staticfiles").ignore_patterns
    found: dict[str, Path] = {}
    for finder in finders.get_finders():
        for path, storage in finder.list(ignore):
            prefix = getattr(storage, "prefix", None)
            found.setdefault(os.path.join(prefix, path) if prefix else path, Path(storage.path(path)))
    return found


def build_key() -> str:
    """A hash of every static source (path and bytes) and of the storage that collects them."""
    digest = hashlib.sha256(settings.STORAGES["staticfiles"]["BACKEND"].encode())
    for name, path in sorted(sources().items()):
        digest.update(f"\0{name}\0".encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def collected(root: Path) -> Path:
    """This build's directory under `root`, collected now unless a finished one is there already."""
    target = root / f"{PREFIX}{build_key()}"
    if target.is_dir():
        os.utime(target)  # used now: the last to be pruned
        return target
    root.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=".collecting-", dir=root))
    try:
        collect_into(scratch)
        try:
            scratch.rename(target)
        except OSError:
            # Another process renamed its finished copy there first: the same files, use them.
            if not target.is_dir():
                raise
    finally:
        shutil.rmtree(scratch, ignore_errors=True)  # gone already when the rename was ours
    prune(root, keep=target)
    return target


def collect_into(directory: Path) -> None:
    """`collectstatic` with the configured storage, writing into `directory` instead of STATIC_ROOT."""
    config = settings.STORAGES["staticfiles"]
    command = collectstatic.Command(stdout=StringIO(), stderr=StringIO())
    command.storage = storages.create_storage(
        {**config, "OPTIONS": {**config.get("OPTIONS", {}), "location": str(directory)}}
    )
    call_command(command, interactive=False, verbosity=0)


def prune(root: Path, *, keep: Path) -> None:
    """Remove all but the KEEP most recently used builds (`keep` always stays)."""
    builds = sorted(
        (path for path in root.iterdir() if path.name.startswith(PREFIX) and path != keep),
        key=last_used,
        reverse=True,
    )
    for old in builds[KEEP - 1 :]:
        shutil.rmtree(old, ignore_errors=True)


def last_used(build: Path) -> float:
    try:
        return build.stat().st_mtime
    except OSError:
        return 0.0  # pruned meanwhile by another server


def serve_from(root: Path) -> Path:
    """Collect this build under `root` if needed and make this process serve it. Called before the
    WSGI application and the first `{% static %}` are built: both read STATIC_ROOT once."""
    build = collected(root)
    settings.STATIC_ROOT = build
    if Path(staticfiles_storage.location) != build:
        raise RuntimeError(f"static files storage was built before STATIC_ROOT moved to {build}")
    return build
