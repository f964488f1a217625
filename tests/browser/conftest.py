"""A real browser (Debian's Chromium driven by Playwright) against a live server on the sample."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.core.servers.basehttp import WSGIServer
from django.db import connection
from django.test.testcases import LiveServerThread

from lib import locations
from tests.browser import plain_session
from tests.conftest import import_sample, ingest

# Playwright's sync API runs an event loop in this thread; Django's ORM calls made by the test
# itself (importing, asserting) are still synchronous and safe here.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

PLAYWRIGHT_MISSING = (
    "playwright is not installed: it is in the `browser` dependency group, which `uv run` leaves out; "
    "`uv sync --group browser` adds it"
)
CHROMIUM = os.environ.get("WAYSWEB_CHROMIUM", "/usr/bin/chromium")
ARTIFACTS = Path(
    os.environ.get("WAYSWEB_TEST_ARTIFACTS", Path(__file__).resolve().parents[2] / "test-artifacts")
)
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
    "--no-first-run",
]


class OneRequestAtATime(WSGIServer):
    """The live server on SQLite: Django's own server without threads, which answers one request
    at a time and closes each connection after it (basehttp.ServerHandler).

    Django's SQLite test database lives in memory with a shared cache: every connection to it
    shares one cache and its locks. Two requests at once deadlocked a CI run: one was inside
    SQLite's step running `entry_text()` (a Python function) for a search snippet, waiting for the
    GIL; the other, a session page, held the GIL while it waited in SQLite for a lock
    (`sqlite3_column_int64`). On PostgreSQL the live server stays threaded, as a user's is."""

    def __init__(self, *args, connections_override=None, **kwargs):
        # LiveServerThread.run itself gives its thread, which answers every request here, the
        # overridden connections.
        super().__init__(*args, **kwargs)
        self.connections_override = connections_override


@pytest.fixture(scope="session", autouse=True)
def one_request_at_a_time_on_sqlite():
    """pytest-django's live server made with OneRequestAtATime on SQLite (an autouse fixture of the
    session is set up before the `live_server` a test asks for)."""
    if connection.vendor != "sqlite":
        yield
        return
    before = LiveServerThread.server_class
    LiveServerThread.server_class = OneRequestAtATime
    yield
    LiveServerThread.server_class = before


@pytest.fixture(scope="session")
def browser():
    if not Path(CHROMIUM).exists():
        # CI installs Chromium and sets WAYSWEB_REQUIRE_BROWSER, so a missing browser fails there.
        if os.environ.get("WAYSWEB_REQUIRE_BROWSER"):
            pytest.fail(f"no Chromium at {CHROMIUM} (apt-get install chromium)")
        pytest.skip(f"no Chromium at {CHROMIUM}")
    # Playwright is not a default dependency group (`serve` needs none of it): without it every
    # browser test skips with the way to get it, except on CI, which installs the group.
    try:
        sync_api = pytest.importorskip("playwright.sync_api", reason=PLAYWRIGHT_MISSING)
    except pytest.skip.Exception:
        if os.environ.get("WAYSWEB_REQUIRE_BROWSER"):
            pytest.fail(PLAYWRIGHT_MISSING)
        raise

    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield chromium
        chromium.close()


@pytest.fixture(autouse=True)
def every_request_answered(request):
    """A browser test ends once the live server has answered every request its pages sent.

    Teardown empties every table (TRUNCATE on PostgreSQL). A request still being answered then, the
    last one a page sent (the nav's count refetched on an HX-Trigger after a ruling), holds its own
    locks on the tables it reads, and the two deadlock. So a tab is closed once its pages have their
    answers (`Page.close`); then (an autouse fixture is set up first, so torn down last) this
    waits for the server's request threads, each ending once the closed tab's connection is gone."""
    yield
    if "live_server" in request.fixturenames:
        answered(request.getfixturevalue("live_server"))


def answered(live_server, timeout: float = 30.0) -> None:
    """Wait for the live server's request threads: socketserver keeps them for server_close, in the
    server's own `_threads` once it has answered a request (before that, a class-wide placeholder)."""
    deadline = time.monotonic() + timeout
    threads = list(vars(live_server.thread.httpd).get("_threads", ()))
    for thread in threads:
        thread.join(max(0.0, deadline - time.monotonic()))


@pytest.fixture(scope="session")
def expect(browser):
    """Playwright's retrying assertions, reached through the `browser` fixture so that a test using
    them skips (or, on CI, fails) exactly as every browser test does when Playwright is absent."""
    return pytest.importorskip("playwright.sync_api", reason=PLAYWRIGHT_MISSING).expect


class Page:
    """A browser tab that records console errors and failed requests, and saves screenshots."""

    def __init__(self, page, base: str):
        self.page, self.base, self.errors = page, base, []
        self.pending: set = set()  # requests sent and not yet answered (see `settle`)
        page.on("request", lambda req: self.pending.add(req))
        page.on("requestfinished", lambda req: self.pending.discard(req))
        page.on("requestfailed", lambda req: self.pending.discard(req))
        page.on("console", lambda msg: msg.type == "error" and self.errors.append(msg.text))
        page.on("pageerror", lambda exc: self.errors.append(str(exc)))
        # A request aborted by navigating on (a replay fetch when the next page loads) is no failure.
        page.on(
            "requestfailed",
            lambda req: (
                req.failure != "net::ERR_ABORTED"
                and self.errors.append(f"request failed: {req.url} {req.failure}")
            ),
        )

    def go(self, path: str) -> None:
        self.page.goto(self.base + path)

    def settle(self, timeout: float = 10.0) -> None:
        """Wait until every request the tab sent has its answer: one a test does not wait for (the
        nav's count refetched after a ruling) must not still be answered by the server when the
        tables are emptied (`every_request_answered`)."""
        deadline = time.monotonic() + timeout
        while self.pending and time.monotonic() < deadline:
            self.page.wait_for_timeout(20)  # Playwright delivers the page's events while it waits

    def close(self) -> None:
        """The tab's browser context closed once its requests are answered (`settle`)."""
        self.settle()
        self.page.context.close()

    def shot(self, name: str) -> Path:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        path = ARTIFACTS / f"{name}.png"
        self.page.screenshot(path=str(path), full_page=False)
        return path


@pytest.fixture
def sample_home(kept_imports, settings):
    """A writable copy of the bundled sample HOME, imported into the test database (imported once a
    session, then copied back with its rows for each test: tests/kept_imports.py); the same state
    as the `sample` fixture's."""
    settings.WAYSWEB_LOCATIONS = locations.resolve({"HOME": str(kept_imports.home)})
    settings.ALLOWED_HOSTS = ["localhost", "127.0.0.1", "testserver"]
    return kept_imports.start("sample", import_sample)


@pytest.fixture
def tab(browser, live_server, sample_home):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = Page(context.new_page(), live_server.url)
    yield page
    page.close()
    assert page.errors == [], f"console errors: {page.errors}"


@pytest.fixture
def api_server(sample_home, settings, kept_imports) -> Path:
    """The sample with its api-server repository (majordomus knowledge candidates, ADR-0014's open
    rulings) imported too."""
    locs = settings.WAYSWEB_LOCATIONS
    folder = sample_home / "repos" / "api-server"
    settings.WAYSWEB_LOCATIONS = locs.__class__(**{**locs.__dict__, "repos": (folder,)})
    kept_imports.then("api-server", lambda home: ingest())
    return folder


@pytest.fixture
def repos(sample_home, settings, kept_imports):
    """The sample with both its repositories (knowledge, decisions) imported too."""
    locs = settings.WAYSWEB_LOCATIONS
    folders = (sample_home / "repos" / "api-server", sample_home / "repos" / "web-ui")
    settings.WAYSWEB_LOCATIONS = locs.__class__(**{**locs.__dict__, "repos": folders})
    kept_imports.then("repos", lambda home: ingest())
    return folders


def sign_in_reviewer(tab, then: str = "/ledger/knowledge/") -> Page:
    """Make rita, a reviewer, and sign her in through the login form; she lands on `then`."""
    user = get_user_model().objects.create_user("rita", password="correct horse battery")
    user.user_permissions.add(Permission.objects.get(codename="review_knowledge"))
    tab.go("/accounts/login/" + ("" if then == "/ledger/knowledge/" else f"?next={then}"))
    tab.page.fill("input[name=username]", "rita")
    tab.page.fill("input[name=password]", "correct horse battery")
    tab.page.click("button[type=submit]")
    tab.page.wait_for_url(f"**{then}")
    return tab


@pytest.fixture
def signed_in(tab, repos):
    """The sample with both repositories imported, and a reviewer signed in."""
    return sign_in_reviewer(tab)


@pytest.fixture
def plain(sample_home, kept_imports) -> str:
    """The long plain Claude Code session (tests/browser/plain_session.py) imported beside the sample."""

    def written(home: Path) -> None:
        plain_session.write(home)
        ingest()

    kept_imports.then("plain", written)
    return plain_session.SID


def sign_in(tab: Page, username: str, password: str, *, lands_on: str = "**/ledger/knowledge/") -> Page:
    """Log in through the login page, as a person does; `lands_on` is where it sends them."""
    tab.go("/accounts/login/")
    tab.page.fill("input[name=username]", username)
    tab.page.fill("input[name=password]", password)
    tab.page.click("button[type=submit]")
    tab.page.wait_for_url(lands_on)
    return tab
