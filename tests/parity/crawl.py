"""Crawl every page of the bundled sample and of the fixture transcripts with one checkout's code.

A refactor promises "behaviour unchanged"; this is how it is checked. Run it in two checkouts (the
commit before and the commit after) and diff the two output folders — `compare.sh OLD NEW` does all
of it. For each corpus (the sample as `serve --demo` shows it, and the real transcripts of
tests/fixtures) it imports into a fresh database, then, anonymously and logged in as a reviewer,
follows every same-site link from `/` breadth first, writing each answer (status, content type, body)
to a file named after its URL; and it writes `manage.py introspect list|dump|fires|replay` for every
session. Per-request values (CSRF tokens, CSP nonces) are masked; nothing else is.

    python tests/parity/crawl.py OUTDIR [--fixtures DIR] [--limit N]

Run from the checkout's root with its own interpreter and time-machine
(`uv run --with time-machine python tests/parity/crawl.py …`).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path


def corpus_env(corpus: str, work: Path, fixtures: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("WAYSWEB_", "XDG_", "CLAUDE_"))}
    env.update(TZ="UTC", DJANGO_ALLOWED_HOSTS="testserver", WAYSWEB_DATA_DIR=str(work / f"data-{corpus}"))
    if corpus == "sample":
        env.update(HOME=str(work / "home-sample"), WAYSWEB_DEMO="1")
    else:
        home = work / "home-fixtures"
        projects = home / ".claude" / "projects" / "-fixtures"
        projects.mkdir(parents=True)
        # The hook log too, as the shared folder kept it beside them: the corpus earlier crawls read.
        for transcript in sorted(
            [*(fixtures / "transcripts").glob("*.jsonl"), *(fixtures / "hook-logs").glob("*.jsonl")]
        ):
            shutil.copy(transcript, projects / transcript.name)
        env.update(HOME=str(home))
    Path(env["HOME"]).mkdir(parents=True, exist_ok=True)
    return env


def work_dir(out: Path) -> Path:
    """Where a crawl imports: beside its output folder, so the two crawls of one comparison (OUTDIR/old
    and OUTDIR/new) read the same paths (the pages show them) and no other comparison touches them.
    One fixed folder for every crawl made two comparisons run at once delete each other's data
    directory mid-crawl: the status page then read no heartbeat ("not run yet") for one identity and
    the stopped importer for the other."""
    return out.resolve().parent / "parity-work"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--fixtures", type=Path, default=Path(__file__).resolve().parents[1] / "fixtures")
    parser.add_argument("--limit", type=int, default=6000, help="URLs per corpus and identity")
    args = parser.parse_args()
    if args.out.exists():
        shutil.rmtree(args.out)
    work = work_dir(args.out)
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir()
    try:
        for corpus in ("sample", "fixtures"):
            env = corpus_env(corpus, work, args.fixtures)
            child = Path(__file__).with_name("crawl_corpus.py")
            command = [sys.executable, str(child), str(args.out / corpus), "--limit", str(args.limit)]
            subprocess.run(command, env=env, check=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
