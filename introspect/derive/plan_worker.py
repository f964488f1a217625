"""The planner's worker process (derive/planner.py): Django set up with the writer's settings and
database before any app module is imported, then the chunks planned. Nothing here imports Django at
module level: the worker starts as `python -c`, with no app registry yet."""

from __future__ import annotations

import contextlib
import os
import pickle
import sys


def main() -> None:
    """The order on stdin (plain values: the writer's settings module and database, the chunks);
    (chunk index, Planned or Unplanned) on stdout, chunk after chunk."""
    out = sys.stdout.buffer
    sys.stdout = sys.stderr  # whatever is printed is not a message
    order = pickle.load(sys.stdin.buffer)
    os.environ["DJANGO_SETTINGS_MODULE"] = order["settings_module"]
    import django
    from django.conf import settings
    from django.db import DEFAULT_DB_ALIAS

    settings.DATABASES = {DEFAULT_DB_ALIAS: order["database"]}  # before any connection is made
    django.setup()
    from introspect.derive import planner
    from lib import worker_pipes

    with contextlib.suppress(BrokenPipeError):  # the writer is gone (killed): nothing of ours to keep
        planner.work(order["chunks"], worker_pipes.sender(out))
