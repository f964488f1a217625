"""What `uv run manage.py serve` installs, and what the browser tests do without Playwright.

Serving needs none of the test tools' browser driver: Playwright is in its own dependency group,
outside uv's default groups, so a fresh clone's `uv run` leaves it out; CI asks for it and refuses
to let the browser tests skip.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ONE_BROWSER_TEST = "tests/browser/test_walkthrough.py::test_it_lists_the_sessions_and_opens_one"
EVERY_BROWSER_TEST = "tests/browser"
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())


def names(requirements: list[str]) -> set[str]:
    return {req.split(">")[0].split("=")[0].split("[")[0].strip() for req in requirements}


def test_playwright_is_only_in_the_browser_group_which_uv_does_not_install_by_default():
    groups = PYPROJECT["dependency-groups"]
    assert names(groups["browser"]) == {"playwright"}
    assert "playwright" not in names(groups["dev"]) | names(PYPROJECT["project"]["dependencies"])
    assert PYPROJECT["tool"]["uv"]["default-groups"] == ["dev"]
    # `uv run pytest` still works: its addopts start two workers (pytest-xdist).
    assert {"pytest", "pytest-django", "pytest-xdist"} <= names(groups["dev"])


def test_ci_installs_the_browser_group_and_forbids_skipping_the_browser_tests():
    script = (ROOT / ".ci" / "run").read_text()
    assert "uv sync --locked --group browser" in script
    assert "export WAYSWEB_REQUIRE_BROWSER=1" in script
    test_runs = [line for line in script.splitlines() if "uv run" in line and "pytest" in line]
    assert test_runs and all("--group browser" in line for line in test_runs)


def run_browser_test(tmp_path: Path, test: str = ONE_BROWSER_TEST, **env: str) -> subprocess.CompletedProcess:
    """Browser tests in a child pytest that cannot import playwright (a package that refuses)."""
    hidden = tmp_path / "hide" / "playwright"
    hidden.mkdir(parents=True)
    (hidden / "__init__.py").write_text(
        "raise ModuleNotFoundError('hidden by the test', name='playwright')\n"
    )
    child_env = {k: v for k, v in os.environ.items() if k != "WAYSWEB_REQUIRE_BROWSER"}
    # Any existing file passes the Chromium check, which comes first: playwright's is the one tested.
    child_env.update(PYTHONPATH=str(hidden.parent), WAYSWEB_CHROMIUM=sys.executable, **env)
    # `-n 0`: in one process; the addopts would start two workers of its own for a test that skips.
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-n", "0", "-rs", "-q", test],
        cwd=ROOT,
        env=child_env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_without_playwright_the_browser_tests_skip_saying_how_to_install_it(tmp_path):
    result = run_browser_test(tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 skipped" in result.stdout
    assert "playwright is not installed" in result.stdout and "uv sync --group browser" in result.stdout


def test_without_playwright_every_browser_test_module_is_still_collected_and_skips(tmp_path):
    # A module that imports playwright at its top would be a collection error, not a skip.
    result = run_browser_test(tmp_path, EVERY_BROWSER_TEST)
    assert result.returncode == 0, result.stdout + result.stderr
    assert " skipped" in result.stdout and "error" not in result.stdout, result.stdout
    assert "passed" not in result.stdout and "failed" not in result.stdout, result.stdout


def test_without_playwright_the_browser_tests_fail_where_a_browser_is_required(tmp_path):
    result = run_browser_test(tmp_path, WAYSWEB_REQUIRE_BROWSER="1")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "1 error" in result.stdout and "playwright is not installed" in result.stdout
