"""Two `serve` started at the same moment on one data directory both come up (issue 24).

Both used to run `migrate` and `collectstatic` into the same places at once, and one died in 3 of 4
tries. Drives the real command twice, in subprocesses started back to back, on free ports, with a
new data directory: a database to migrate and static files nobody has collected.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from django.conf import settings

from tests.waysweb.management.served import free_ports

# Seconds for both to answer: about 10 here; the second migrates after the first and a loaded CI
# machine imports the sample beside them.
UP_WITHIN = 120


def get(url: str) -> tuple[int, str]:
    with urllib.request.urlopen(url, timeout=10) as response:
        return response.status, response.read().decode()


def answer(url: str) -> str:
    """'200' when the page answers, else what happened instead (said when the test fails)."""
    try:
        with urllib.request.urlopen(url, timeout=3) as response:
            return str(response.status)
    except urllib.error.HTTPError as error:
        return f"{error.code} {error.read()[:300]!r}"
    except OSError as error:
        return f"{type(error).__name__}: {error}"


def stop(server: subprocess.Popen) -> None:
    """Ctrl-C to the server and its importer, then SIGKILL; one that died already (its importer may
    live on in its group) must not keep the other from being stopped."""
    try:
        os.killpg(server.pid, signal.SIGINT)
    except ProcessLookupError:
        return
    try:
        server.wait(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(server.pid, signal.SIGKILL)
        server.wait()


def test_two_serve_started_at_once_both_come_up_on_one_data_directory(tmp_path):
    (tmp_path / "home").mkdir()
    static = tmp_path / "data" / "static"  # where serve collects: nothing there yet
    env = {
        **os.environ,
        "HOME": str(tmp_path / "home"),
        "WAYSWEB_DATA_DIR": str(tmp_path / "data"),
        "WAYSWEB_DATABASE_URL": "",  # SQLite in the data directory, new: both find it unmigrated
        "WAYSWEB_DEMO": "1",  # the bundled sample: both importers want it, the second waits its turn
        "DJANGO_SETTINGS_MODULE": "waysweb.settings",
    }
    manage = Path(settings.BASE_DIR) / "manage.py"
    ports = free_ports(2)
    outputs = [tmp_path / f"serve-{port}.out" for port in ports]
    servers = []
    try:
        for port, out in zip(ports, outputs, strict=True):
            with out.open("wb") as sink:
                servers.append(
                    subprocess.Popen(
                        [sys.executable, str(manage), "serve", "--port", str(port)],
                        env=env,
                        stdout=sink,
                        stderr=subprocess.STDOUT,
                        start_new_session=True,
                    )
                )
        started = time.monotonic()
        waiting = dict(zip(ports, zip(servers, outputs, strict=True), strict=True))
        last: dict[int, str] = {}
        while waiting:
            for port, (server, out) in list(waiting.items()):
                assert server.poll() is None, f"serve on {port} died:\n{out.read_text()[-3000:]}"
                last[port] = answer(f"http://127.0.0.1:{port}/")
                if last[port] == "200":
                    del waiting[port]
            assert time.monotonic() - started < UP_WITHIN, "\n".join(
                f"serve on {port} not up after {UP_WITHIN} s; it last answered {last[port]}; "
                f"its output:\n{out.read_text()[-3000:]}"
                for port, (_, out) in waiting.items()
            )
            time.sleep(0.3)
        # Each serves the static files of the one build both collected into, from its own process.
        page = get(f"http://127.0.0.1:{ports[0]}/")[1]
        stylesheet = re.search(r'href="(/static/css/app\.[0-9a-f]+\.css)"', page).group(1)
        for port in ports:
            status, css = get(f"http://127.0.0.1:{port}{stylesheet}")
            assert status == 200 and css
        builds = sorted(p.name for p in static.iterdir())
        assert len(builds) == 1 and builds[0].startswith("build-"), builds  # no scratch copy left
    finally:
        for server in servers:
            stop(server)
