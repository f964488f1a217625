"""Crawl every page of the bundled sample and of the shared fixtures with one checkout's code.

A refactor promises "behaviour unchanged"; this is how it is checked. Run it in two checkouts (the
commit before and the commit after) and diff the two output folders — `compare.sh OLD NEW` does all
of it. For each corpus (the sample as `serve --demo` shows it, and the real transcripts of
../shared/fixtures) it imports into a fresh database, then, anonymously and logged in as a reviewer,
follows every same-site link from `/` breadth first, writing each answer (status, content type, body)
to a file named after its URL; and it writes `manage.py introspect list|dump|fires|replay` for every
session. Per-request values (CSRF tokens, CSP nonces) are masked; nothing else is.

    python tests/parity/crawl.py OUTDIR [--fixtures DIR] [--limit N]

Run from the checkout's root with its own interpreter and time-machine
(`uv run --with time-machine python tests/parity/crawl.py …`).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import deque
from io import StringIO
from pathlib import Path
from urllib.parse import urljoin, urlsplit

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


def masked(body: bytes) -> bytes:
    for pattern, replacement in MASKS:
        body = pattern.sub(replacement, body)
    return body


def file_name(url: str) -> str:
    """A readable, unique, filesystem-safe name for a URL."""
    readable = re.sub(r"[^A-Za-z0-9._=-]+", "_", url.strip("/"))[:120] or "root"
    return f"{readable}.{hashlib.sha256(url.encode()).hexdigest()[:10]}"


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


def run_corpus(corpus: str, out: Path, limit: int) -> None:
    """Inside a child process whose environment names this corpus: import, then crawl.

    The clock stands still at one instant (time-machine), so import times, ages and "live" read
    the same on both commits."""
    import time_machine

    with time_machine.travel(FROZEN_AT, tick=False):
        import_and_crawl(corpus, out, limit)


def import_and_crawl(corpus: str, out: Path, limit: int) -> None:
    sys.path.insert(0, str(Path.cwd()))
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Permission
    from django.core.management import call_command
    from django.test import Client

    from introspect.models import Session

    call_command("migrate", verbosity=0)
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
    print(f"{corpus}: {anonymous} anonymous and {logged_in} reviewer URLs", file=sys.stderr)


def command_output(call_command, args: list[str]) -> str:
    stdout = StringIO()
    try:
        call_command("introspect", *args, stdout=stdout, stderr=StringIO())
    except Exception as exc:  # the command's refusal is an output too
        return f"error: {type(exc).__name__}: {exc}\n"
    return stdout.getvalue()


def corpus_env(corpus: str, work: Path, fixtures: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("WAYSWEB_", "XDG_", "CLAUDE_"))}
    env.update(TZ="UTC", DJANGO_ALLOWED_HOSTS="testserver", WAYSWEB_DATA_DIR=str(work / f"data-{corpus}"))
    if corpus == "sample":
        env.update(HOME=str(work / "home-sample"), WAYSWEB_DEMO="1")
    else:
        home = work / "home-fixtures"
        projects = home / ".claude" / "projects" / "-fixtures"
        projects.mkdir(parents=True)
        for transcript in sorted((fixtures / "transcripts").glob("*.jsonl")):
            shutil.copy(transcript, projects / transcript.name)
        env.update(HOME=str(home))
    Path(env["HOME"]).mkdir(parents=True, exist_ok=True)
    return env


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument(
        "--fixtures", type=Path, default=Path(__file__).resolve().parents[3] / "shared" / "fixtures"
    )
    parser.add_argument("--limit", type=int, default=6000, help="URLs per corpus and identity")
    parser.add_argument("--corpus", help=argparse.SUPPRESS)
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "waysweb.settings")
    if args.corpus:
        run_corpus(args.corpus, args.out / args.corpus, args.limit)
        return
    if args.out.exists():
        shutil.rmtree(args.out)
    # One fixed place: the pages show the paths they read, so both commits must read the same ones.
    work = Path(tempfile.gettempdir()) / "waysweb-parity-work"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir()
    try:
        for corpus in ("sample", "fixtures"):
            env = corpus_env(corpus, work, args.fixtures)
            command = [
                sys.executable,
                __file__,
                str(args.out),
                "--corpus",
                corpus,
                "--limit",
                str(args.limit),
            ]
            subprocess.run(command, env=env, check=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
