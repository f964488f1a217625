"""One corpus of the parity crawl (crawl.py runs it in a child whose environment names the corpus).

Imports into a fresh database, writes `manage.py introspect list|fires|dump|replay`, then crawls every
page anonymously and as a reviewer. The clock stands still at one instant (time-machine), so import
times, ages and "live" read the same on both commits.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

# The checkout under test, not this file's, provides the code: crawl.py runs this from its root.
sys.path.insert(0, str(Path.cwd()))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "waysweb.settings")

import django

django.setup()

# Pages name their static files through the manifest, as `serve` builds it (waysweb/static_build.py:
# once per build, in the data directory); before that module existed, serve collected into STATIC_ROOT.
try:
    from django.conf import settings as _settings

    from waysweb import static_build

    static_build.serve_from(Path(_settings.DATA_DIR) / "static")
except ImportError:
    from django.core.management import call_command as _collect

    _collect("collectstatic", interactive=False, verbosity=0)

import argparse
import hashlib
import re
from collections import deque
from io import StringIO
from urllib.parse import urljoin, urlsplit

import time_machine
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.core.management import call_command
from django.test import Client

from introspect.models import Session
from waysweb import passes

FROZEN_AT = "2026-12-01T12:00:00+00:00"
MASKS = [
    (re.compile(rb'name="csrfmiddlewaretoken" value="[^"]+"'), b'name="csrfmiddlewaretoken" value="CSRF"'),
    (re.compile(rb'"x-csrftoken": ?"[^"]+"'), b'"x-csrftoken": "CSRF"'),
    (re.compile(rb'nonce="[^"]+"'), b'nonce="NONCE"'),
    (re.compile(rb"'nonce-[^']+'"), b"'nonce-NONCE'"),
]
LINK = re.compile(rb'(href|hx-get)="([^"#]*)')
# Never followed: they end the login, or are files the crawl need not fetch again and again.
SKIP = ("/static/", "/accounts/logout", "/logout")


def crawl(client, out: Path, *, limit: int) -> int:
    """Breadth first from `/`: every href as a page, every hx-get also as the fragment htmx asks for."""
    seen, queue = {("/", False)}, deque([("/", False)])
    out.mkdir(parents=True, exist_ok=True)
    while queue and len(seen) <= limit:
        url, fragment = queue.popleft()
        response = client.get(url, headers={"HX-Request": "true"} if fragment else {})
        body = b"".join(response.streaming_content) if response.streaming else response.content
        kind = response.get("Content-Type", "")
        head = f"{response.status_code} {kind} {response.get('Location', '')}\n".encode()
        (out / file_name(("hx:" if fragment else "") + url)).write_bytes(head + masked(body))
        links = [(b"href", response["Location"].encode())] if response.has_header("Location") else []
        if "html" in kind:
            links += LINK.findall(body)
        for attribute, raw in links:
            link = urljoin(url, raw.decode("utf-8", "replace").replace("&amp;", "&"))
            parts = urlsplit(link)
            if parts.netloc not in ("", "testserver") or parts.path.startswith(SKIP):
                continue
            key = (parts.path + (f"?{parts.query}" if parts.query else ""), attribute == b"hx-get")
            if key not in seen:
                seen.add(key)
                queue.append(key)
    (out / "_urls.txt").write_text("".join(f"{'hx ' if hx else ''}{u}\n" for u, hx in sorted(seen)))
    return len(seen)


def file_name(url: str) -> str:
    """A readable, unique, filesystem-safe name for a URL."""
    readable = re.sub(r"[^A-Za-z0-9._=-]+", "_", url.strip("/"))[:120] or "root"
    return f"{readable}.{hashlib.sha256(url.encode()).hexdigest()[:10]}"


def masked(body: bytes) -> bytes:
    for pattern, replacement in MASKS:
        body = pattern.sub(replacement, body)
    return body


def import_and_crawl(out: Path, limit: int) -> None:
    call_command("migrate", verbosity=0)
    # One derive, at the pass's end: deriving as files land follows the wall clock, and the order
    # sessions are first derived in numbers their projects (the ids in ?project= links).
    passes.DERIVE_EVERY_SECS = float("inf")
    call_command("ingest", stdout=StringIO(), stderr=StringIO())
    commands = out / "commands"
    commands.mkdir(parents=True, exist_ok=True)
    for name, args in [("list", ["list", "--json"]), ("fires", ["fires", "--json"])]:
        (commands / f"{name}.json").write_text(command_output(call_command, args))
    for sid in Session.objects.order_by("sid").values_list("sid", flat=True):
        for what in ("dump", "replay"):
            (commands / f"{what}-{sid}.json").write_text(command_output(call_command, [what, sid, "--json"]))

    anonymous = crawl(Client(), out / "anonymous", limit=limit)
    user = get_user_model().objects.create_user("parity", password="parity-password")
    # A reviewer (adduser --reviewer) sees the action forms too.
    user.user_permissions.add(Permission.objects.get(codename="review_knowledge"))
    reviewer = Client()
    reviewer.force_login(user)
    logged_in = crawl(reviewer, out / "reviewer", limit=limit)
    print(f"{out.name}: {anonymous} anonymous and {logged_in} reviewer URLs", file=sys.stderr)


def command_output(call_command, args: list[str]) -> str:
    stdout = StringIO()
    try:
        call_command("introspect", *args, stdout=stdout, stderr=StringIO())
    except Exception as exc:  # the command's refusal is an output too
        return f"error: {type(exc).__name__}: {exc}\n"
    return stdout.getvalue()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--limit", type=int, default=6000)
    args = parser.parse_args()
    with time_machine.travel(FROZEN_AT, tick=False):
        import_and_crawl(args.out, args.limit)
