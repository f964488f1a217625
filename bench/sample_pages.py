"""Whether two checkouts render every page of the bundled sample the same: issue 29's "every page of the
sample renders the same HTML as before", checked by crawling, not by sampling.

    uv run python bench/sample_pages.py crawl --repo /tmp/old --work /tmp/pages-old --out /tmp/old.json
    uv run python bench/sample_pages.py crawl --repo . --work /tmp/pages-new --out /tmp/new.json
    uv run python bench/sample_pages.py compare /tmp/old.json /tmp/new.json

`crawl` imports the sample (WAYSWEB_DEMO=1) with the checkout's own code into a fresh data folder,
then renders every page reachable from / through links and htmx fragment links (href, hx-get),
HTML and JSON alike, through Django's test client, and writes {url: "status body"}. `compare`
takes out what differs between any two renders (the nonce, the CSRF token, the clock of today's
run, the data folder, the checkout's path) and names the pages that still differ. Exits 1 then.
Run the two crawls on the same day: the sample's own stamps are fixed, the import's clock is taken out by its date.
Not part of the test suite.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import re
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

# The crawl, run by the checkout's own Python path in a child (its cwd): the pages are that code's.
RENDER = """
import json, os, re, sys
sys.path.insert(0, os.getcwd())
import django
django.setup()
from django.conf import settings
from django.test import Client, override_settings
from django.test.utils import setup_test_environment

out, limit = sys.argv[1], int(sys.argv[2])
link_in = re.compile(r'(?:href|hx-get)="(/[^"#]*)"')
left_out = ("/static/", "/admin", "/logout")  # not pages of the sample; a download is rendered all the same
setup_test_environment()
plain = {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}  # no manifest needed
override_settings(STORAGES={**settings.STORAGES, "staticfiles": plain}, DEBUG=False).enable()
client, pages, queue = Client(), {}, ["/"]
while queue and len(pages) < limit:
    url = queue.pop(0)
    if url in pages:
        continue
    response = client.get(url)
    kind = response.get("Content-Type", "")
    content = b"".join(response.streaming_content) if response.streaming else response.content
    readable = kind.startswith(("text/", "application/json"))
    body = content.decode("utf-8", "replace") if readable else f"<{kind} {len(content)} bytes>"
    pages[url] = f"{response.status_code} {body}"
    if response.status_code == 200 and kind.startswith("text/html"):
        found = (link.replace("&amp;", "&") for link in link_in.findall(body))
        queue += [link for link in found if not link.startswith(left_out) and link not in pages]
with open(out, "w") as written:
    json.dump(pages, written)
"""
LIMIT = 5000  # pages a crawl renders at most: the sample has about 800


def crawl(repo: Path, work: Path, out: Path) -> None:
    env = {**os.environ, "WAYSWEB_DEMO": "1", "WAYSWEB_DATA_DIR": str(work)}
    env.pop("WAYSWEB_DATABASE_URL", None)
    env["DJANGO_SETTINGS_MODULE"] = "waysweb.settings"
    work.mkdir(parents=True, exist_ok=True)
    for command in (
        ["manage.py", "migrate", "-v0"],
        ["manage.py", "ingest"],
        ["-c", RENDER, str(out), str(LIMIT)],
    ):
        subprocess.run([sys.executable, *command], cwd=repo, env=env, check=True, capture_output=True)
    pages = json.loads(out.read_text())
    out.write_text(json.dumps({"repo": str(repo), "work": str(work), "pages": pages}))
    print(f"{len(pages)} pages rendered by {repo}: {out}")


def normalized(body: str, crawl: dict) -> str:
    """The body without what differs between any two renders of the same page."""
    body = re.sub(r'nonce="[^"]+"', 'nonce=""', body)
    body = re.sub(r'"x-csrftoken": "[^"]+"', '"x-csrftoken": ""', body)
    body = re.sub(r'name="csrfmiddlewaretoken" value="[^"]+"', 'name="csrfmiddlewaretoken"', body)
    today = datetime.now(UTC).date().isoformat()  # the import's own clock: when the crawl ran
    body = re.sub(rf"{today}[ T]\d\d:\d\d(:\d\d(\.\d+)?)?", "TODAY", body)
    return body.replace(crawl["work"], "/WORK").replace(crawl["repo"], "/REPO")


def compare(old_path: Path, new_path: Path) -> int:
    old, new = json.loads(old_path.read_text()), json.loads(new_path.read_text())
    only = set(old["pages"]) ^ set(new["pages"])
    differ = [
        url
        for url in old["pages"]
        if url in new["pages"] and normalized(old["pages"][url], old) != normalized(new["pages"][url], new)
    ]
    print(f"{len(old['pages'])} pages and {len(new['pages'])}: {len(only)} in one only, {len(differ)} differ")
    for url in sorted(only)[:20]:
        print(f"  only in {'the old' if url in old['pages'] else 'the new'}: {url}")
    for url in differ[:10]:
        print(f"== {url}")
        lines = difflib.unified_diff(
            normalized(old["pages"][url], old).splitlines(),
            normalized(new["pages"][url], new).splitlines(),
            lineterm="",
            n=0,
        )
        for line in list(lines)[2:12]:
            print(f"  {line[:300]}")
    return 1 if only or differ else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    steps = parser.add_subparsers(dest="step", required=True)
    crawling = steps.add_parser("crawl", help="import the sample with one checkout and render its pages")
    crawling.add_argument("--repo", type=Path, default=Path(__file__).resolve().parent.parent)
    crawling.add_argument("--work", type=Path, required=True, help="a fresh data folder")
    crawling.add_argument("--out", type=Path, required=True)
    comparing = steps.add_parser("compare", help="the pages two crawls rendered differently")
    comparing.add_argument("old", type=Path)
    comparing.add_argument("new", type=Path)
    args = parser.parse_args()
    if args.step == "crawl":
        crawl(args.repo.resolve(), args.work.resolve(), args.out.resolve())
    else:
        raise SystemExit(compare(args.old, args.new))


if __name__ == "__main__":
    main()
