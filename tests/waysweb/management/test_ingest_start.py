"""What `manage.py ingest` imports when it finds nothing to do (issue 29: a no-op re-run < 1 s).

Most of a no-op re-run is the start: Django and the modules the command imports. What only a
changed file, a page or `--follow` needs is imported when first needed, and these tests keep it
so: PyYAML (front matter, parsed only for a way or a document that changed), the secret scanner's
patterns and automata (built on the first scan), watchfiles (only a follower watches) and the page
queries ledger registers for introspect's pages.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
# Runs manage.py in the child and, at its exit, writes the modules it imported and whether the
# secret scanner was built.
PROBE = """
import atexit, json, runpy, sys

out = sys.argv[1]

def report():
    scanner = sys.modules.get("introspect.rules.secrets")
    built = scanner is not None and scanner.scanner.cache_info().currsize > 0
    with open(out, "w") as file:
        json.dump({"modules": sorted(sys.modules), "scanner_built": built}, file)

atexit.register(report)
sys.argv = ["manage.py", *sys.argv[2:]]
runpy.run_path("manage.py", run_name="__main__")
"""
NOT_ON_A_NO_OP = ("yaml", "watchfiles", "anyio", "ledger.queries")


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    """The bundled sample imported once into a database of its own: the next `ingest` is a no-op."""
    work = tmp_path_factory.mktemp("ingest-start")
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "waysweb.settings",
        "WAYSWEB_DEMO": "1",
        "WAYSWEB_DATA_DIR": str(work / "data"),
        "WAYSWEB_DATABASE_URL": f"sqlite:///{work / 'db.sqlite3'}",
        "HOME": str(work / "home"),
    }
    for args in (["migrate", "--no-input", "-v0"], ["ingest", "-v0"]):
        done = subprocess.run(
            [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
    return work, env


def probe(work: Path, env: dict[str, str], *args: str) -> tuple[dict, str]:
    out = work / "probe.json"
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(out), *args], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return json.loads(out.read_text()), done.stdout


def loaded(modules: list[str], prefix: str) -> list[str]:
    return [name for name in modules if name == prefix or name.startswith(prefix + ".")]


def test_it_imports_no_yaml_scanner_watcher_or_page_query_on_a_no_op_run(demo):
    work, env = demo
    found, output = probe(work, env, "ingest", "-v1")
    assert " 0 imported," in output  # nothing to do: every file as it was
    for prefix in NOT_ON_A_NO_OP:
        assert loaded(found["modules"], prefix) == [], prefix
    assert not found["scanner_built"]


def test_a_changed_way_file_is_still_parsed(demo):
    """The lazy YAML is loaded when a way changed: the catalog sees the edit."""
    work, env = demo
    way = work / "data" / "probe-ways" / "probe" / "way" / "way.md"
    way.parent.mkdir(parents=True)
    way.write_text("---\npattern: probe-pattern\n---\n# Probe\n")
    found, output = probe(work, env, "ingest", "-v1", "--user-ways", str(work / "data" / "probe-ways"))
    assert "+1 new" in output
    assert loaded(found["modules"], "yaml")
