"""A Django process set up once that forks importer children on request (the fault suite's crash
loop and racing runners). Protocol: one JSON object per line on stdin, one reply per line on stdout.

  {"op": "ping"}                               -> {"ok": true}
  {"op": "ingest", "log": path, "args": [...]} -> {"pid": n}   the `ingest` command in a child
  {"op": "bypass", "log": path, "args": []}    -> {"pid": n}   import passes without the lock
  {"op": "wait", "pid": n}                     -> {"code": c, "signal": s}

The parent never opens a database connection, so a child inherits none: each child connects on
its own, as a freshly started `manage.py ingest` would, and dies of whatever the test sends it.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
import traceback

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "waysweb.settings")

import django

django.setup()

from django.conf import settings
from django.core.management import call_command, load_command_class
from django.db import DatabaseError, connection

from introspect.importer import batch
from introspect.importer.run import Options
from waysweb.passes import sessions_pass

load_command_class("waysweb", "ingest")  # imported here, once, not in every child


def bypass() -> None:
    """Import passes straight through the loader, no lock, retrying what a racing runner refuses,
    until a pass finds nothing new (fault case 20: correctness never depends on the lock)."""
    conflicts, errors, passes = 0, [], 0
    for _ in range(500):
        try:
            result = sessions_pass(settings.WAYSWEB_LOCATIONS, Options(ways=False))
        except batch.CheckpointMoved:
            conflicts += 1
            continue
        except DatabaseError as exc:
            errors.append(f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}")
            connection.close()
            time.sleep(0.05)
            continue
        passes += 1
        if not result.found:
            break
    print(json.dumps({"passes": passes, "conflicts": conflicts, "errors": errors}), flush=True)


def child(op: str, log: str, args: list[str]) -> int:
    fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    try:
        if op == "ingest":
            call_command("ingest", *args)
        else:
            bypass()
        return 0
    except BaseException:
        traceback.print_exc()
        return 1
    finally:
        sys.stdout.flush()
        sys.stderr.flush()


def main() -> None:
    for raw in sys.stdin:
        message = json.loads(raw)
        op = message["op"]
        if op == "ping":
            reply = {"ok": True}
        elif op in ("ingest", "bypass"):
            pid = os.fork()
            if pid == 0:
                os._exit(child(op, message["log"], message.get("args", [])))
            reply = {"pid": pid}
        elif op == "wait":
            _, status = os.waitpid(message["pid"], 0)
            reply = {
                "code": os.WEXITSTATUS(status) if os.WIFEXITED(status) else None,
                "signal": os.WTERMSIG(status) if os.WIFSIGNALED(status) else None,
            }
        else:
            reply = {"error": f"unknown op {op!r}"}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
