"""`manage.py serve`: set everything up and show the dashboard on http://127.0.0.1:8000.

Migrates, starts listening, and imports behind it: a background process reads the history
(newest files first, so today's sessions are on the list within seconds; every page shows its
progress) and then keeps following new lines. Served with waitress (a production WSGI server;
static files through whitenoise). With no agent-ways data on this machine — no events log and
nothing imported before — it shows the bundled sample.
"""

from __future__ import annotations

import gc
import ipaddress
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import webbrowser
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.core.wsgi import get_wsgi_application
from waitress.server import create_server

from introspect import served_database
from introspect.importer import activity
from lib import streams
from waysweb import schema, static_build, supervisor

LOGIN_MIDDLEWARE = "django.contrib.auth.middleware.LoginRequiredMiddleware"
Address = ipaddress.IPv4Address | ipaddress.IPv6Address


@dataclass(frozen=True)
class Listen:
    """Where `--host` makes the server listen, decided from the addresses it resolves to."""

    host: str  # what the server binds: the address, or the name as the resolver knows it
    name: str  # what a browser sends in Host: for this address (an ALLOWED_HOSTS entry)
    addresses: tuple[Address, ...]

    @property
    def wildcard(self) -> bool:
        """Every interface: `0`, `0.0.0.0`, `::`, `[::]`, or a name that resolves to one of them."""
        return any(plain(address).is_unspecified for address in self.addresses)

    @property
    def loopback(self) -> bool:
        return all(plain(address).is_loopback for address in self.addresses)


def plain(address: Address) -> Address:
    """An IPv4-mapped IPv6 address (`::ffff:127.0.0.1`) as the IPv4 address it carries."""
    mapped = getattr(address, "ipv4_mapped", None)
    return mapped or address


def parse_host(raw: str) -> Listen:
    """`--host` read as an address, the way the socket layer reads it, or a CommandError.

    The resolver decides, not the spelling: `0`, `127.1` and `2130706433` are IPv4 literals to it
    (`0` is every interface), `[::]` is `::` in the brackets of a URL, and a name is looked up, its
    one trailing dot (`localhost.`, fully qualified) dropped as Django drops it from a Host header.
    """
    text = raw.strip()
    bracketed = text.startswith("[") and text.endswith("]")
    if bracketed:
        text = text[1:-1]
    elif text.endswith(".") and not text.endswith(".."):
        text = text[:-1]
    if not text:
        raise CommandError(
            f"--host {raw!r} names no address: give one (127.0.0.1, ::1, 0.0.0.0) or a host name"
        )
    numeric = resolve(text, socket.AI_NUMERICHOST)
    if bracketed and (not numeric or numeric[0].version != 6):
        raise CommandError(f"--host {raw!r}: brackets hold an IPv6 address, as in [::1] or [::]")
    if numeric:
        # Canonical (`0` listens on 0.0.0.0 and is reported so), keeping a zone (`fe80::1%eth0`).
        host = str(numeric[0]) + (text[text.index("%") :] if "%" in text else "")
        return Listen(host=host, name=f"[{host}]" if numeric[0].version == 6 else host, addresses=numeric)
    try:
        addresses = resolve(text)
    except (OSError, UnicodeError) as exc:
        raise CommandError(
            f"--host {raw!r} is not an address this machine can listen on "
            f"({getattr(exc, 'strerror', None) or exc}): give an IP address, or a name it resolves"
        ) from exc
    return Listen(host=text, name=text.lower(), addresses=addresses)


def resolve(text: str, flags: int = 0) -> tuple[Address, ...]:
    """The addresses `text` binds to (empty when AI_NUMERICHOST is asked and it is a name)."""
    try:
        found = socket.getaddrinfo(
            text, None, socket.AF_UNSPEC, socket.SOCK_STREAM, 0, socket.AI_PASSIVE | flags
        )
    except (socket.gaierror, UnicodeError):
        if flags & socket.AI_NUMERICHOST:
            return ()  # not a numeric address: a name, resolved next
        raise
    # A zone (`fe80::1%eth0`) names the interface, not the address.
    return tuple(dict.fromkeys(ipaddress.ip_address(info[4][0].split("%", 1)[0]) for info in found))


# `uv run` passes a Ctrl-C on to the command, which the terminal has already sent it: the same
# keypress arrives twice, this far apart at most. A later one means "now": the importer is killed.
SAME_CTRL_C_SECS = 1.0
STOP_IMPORTER_SECS = 10.0


class Command(BaseCommand):
    help = "Migrate, import, keep importing in the background, and serve the dashboard."
    requires_system_checks = ()

    def add_arguments(self, parser):
        parser.add_argument(
            "--host",
            default="127.0.0.1",
            help="address or name to listen on (default 127.0.0.1); every interface needs --allow-host",
        )
        parser.add_argument("--port", type=int, default=8000, help="port to listen on (default 8000)")
        parser.add_argument(
            "--demo", action="store_true", help="show the bundled sample instead of your data"
        )
        parser.add_argument("--no-ingest", action="store_true", help="serve what is imported; do not import")
        parser.add_argument(
            "--open",
            action="store_true",
            dest="open_browser",
            help="open the dashboard in your web browser once it listens",
        )
        parser.add_argument(
            "--poll",
            action="store_true",
            help="the importer polls every file instead of being told of changes by inotify (see ingest --poll)",
        )
        parser.add_argument("--threads", type=int, default=8, help="worker threads (default 8)")
        parser.add_argument(
            "--allow-host",
            action="append",
            default=[],
            metavar="NAME",
            help="a name people use to reach a LAN server (repeatable); sets ALLOWED_HOSTS",
        )
        parser.add_argument(
            "--open-reads",
            action="store_true",
            help="on a LAN address, let anyone who can reach it read without logging in",
        )

    def handle(
        self,
        *args,
        host: str,
        port: int,
        demo: bool,
        no_ingest: bool,
        threads: int,
        allow_host: list[str],
        open_reads: bool,
        poll: bool,
        open_browser: bool,
        **options,
    ) -> None:
        # `serve | head -1`: a closed stdout must not end the server or its importer.
        streams.outlive_reader(self.stdout)
        streams.outlive_reader(self.stderr)
        self.interrupted_at: float | None = None
        self.hurry = False
        listen = self.check_host(host, allow_host, open_reads=open_reads)
        if demo and not settings.WAYSWEB_DEMO:
            self.restart_as_demo("--demo given")
        self.prepare_database()
        if (
            settings.LOGIN_REQUIRED and not get_user_model().objects.exists()
        ):  # after migrate: the table exists
            # adduser picks the database the way serve does; --demo says so when it was asked for.
            demo_flag = " --demo" if settings.WAYSWEB_DEMO else ""
            self.stderr.write(
                self.style.WARNING(
                    f"Nobody can log in yet: create an account with `uv run manage.py adduser NAME{demo_flag}` "
                    "(add --reviewer to let them decide on knowledge)."
                )
            )
        if not settings.WAYSWEB_DEMO and not no_ingest:
            why = served_database.sample_reason(settings.WAYSWEB_LOCATIONS)
            if why:
                self.restart_as_demo(why)
        # Django and the app are loaded by now; frozen, the collector stops walking their
        # long-lived objects on every full collection (pauses in page p95 otherwise).
        gc.collect()
        gc.freeze()
        server = self.listen(listen.host, port, threads)
        if open_browser:
            self.open_browser(listen, port)
        # The first import runs in the follower, behind the server: on a long history the pages
        # answer at once and fill in, newest first, while it reads. If it dies, it is started again.
        follower = None if no_ingest else self.supervise(poll=poll)
        try:
            self.serve(server)
        finally:
            self.stop(follower)

    def check_host(self, host: str, names: list[str] = (), *, open_reads: bool = False) -> Listen:
        """Loopback needs nothing; a wider address needs the names people will use, and a login to read.

        Decided on what `--host` resolves to (parse_host): `0`, `[::]` or a name for 0.0.0.0 are
        every interface as much as `0.0.0.0` is.
        """
        listen = parse_host(host)
        if listen.loopback:
            return listen
        names = [
            *names,
            *(n.strip() for n in os.environ.get("DJANGO_ALLOWED_HOSTS", "").split(",") if n.strip()),
        ]
        if listen.wildcard and not names:
            every = ", ".join(str(address) for address in listen.addresses)
            raise CommandError(
                f"--host {host} listens on every interface ({every}). Name the hosts people will use with "
                "--allow-host (for example --allow-host myhost.lan --allow-host 192.168.1.20) or "
                "DJANGO_ALLOWED_HOSTS, and read the README's section on sharing before exposing your transcripts "
                "to the network."
            )
        wanted = [*names, *([] if listen.wildcard else [listen.name])]
        settings.ALLOWED_HOSTS = [
            *settings.ALLOWED_HOSTS,
            *(n for n in dict.fromkeys(wanted) if n not in settings.ALLOWED_HOSTS),
        ]
        if open_reads:
            self.stderr.write(
                self.style.WARNING(
                    f"Listening on {listen.host} with --open-reads: anyone who can reach it can read these sessions "
                    "(writes still need a reviewer's login)."
                )
            )
            return listen
        settings.LOGIN_REQUIRED = True
        if LOGIN_MIDDLEWARE not in settings.MIDDLEWARE:  # before the WSGI handler loads its middleware
            settings.MIDDLEWARE = [*settings.MIDDLEWARE, LOGIN_MIDDLEWARE]
        self.stderr.write(
            self.style.WARNING(
                f"Listening on {listen.host} for {', '.join(names or [listen.name])}: every page asks for a login."
            )
        )
        return listen

    def restart_as_demo(self, why: str) -> None:
        self.stdout.write(
            self.style.WARNING(
                f"Showing the bundled sample: {why}. "
                "Run agent-ways, or pass its locations (see README), to see your own."
            )
        )
        served_database.restart_on_sample()

    def prepare_database(self) -> None:
        # Both safe when two `serve` start at once: the second migrates after the first (nothing
        # left to do), and static files are collected once per build into the data directory,
        # never into a directory another server reads (waysweb/static_build.py).
        schema.migrate()
        static_build.serve_from(Path(settings.DATA_DIR) / "static")

    def start_follower(self, *, poll: bool = False) -> subprocess.Popen | None:
        manage = str(Path(settings.BASE_DIR) / "manage.py")
        # A separate process: importing never competes with page rendering for the GIL, and a
        # crash there cannot take the web server down. SQLite WAL lets both work at once. It is
        # `ingest --follow` itself: told of changes by inotify, or polling with --poll.
        process = subprocess.Popen(
            [sys.executable, manage, "ingest", "--follow", "--verbosity", "1", *(["--poll"] if poll else [])],
            env={**os.environ},
            stdout=sys.stdout,
            stderr=sys.stderr,
        )
        # The pages this process serves say the import is starting until it speaks for itself.
        activity.launched(process)
        return process

    def supervise(self, *, poll: bool = False) -> supervisor.Supervisor:
        """The follower, started again with a growing pause whenever it exits while serving (every
        page says so meanwhile: waysweb/supervisor.py)."""
        return supervisor.Supervisor(
            lambda: self.start_follower(poll=poll),
            notice=lambda text: self.stderr.write(self.style.ERROR(text)),
        ).start()

    def listen(self, host: str, port: int, threads: int):
        """The server, bound and announced (it answers once `serve` runs it)."""
        # Built here, not imported from waysweb.wsgi: the handler loads its middleware once, and
        # check_host may have added the login middleware for a LAN address.
        application = get_wsgi_application()
        try:
            server = create_server(application, host=host, port=port, threads=threads, ident="waysweb")
        except OSError as exc:
            raise CommandError(
                f"cannot listen on {host}:{port}: {exc.strerror or exc}. "
                f"Is another server using it? Try --port {port + 1}."
            ) from exc
        url_host = f"[{host}]" if ":" in host else host
        self.stdout.write(
            self.style.SUCCESS(f"waysweb is serving http://{url_host}:{port}/  (Ctrl-C to stop)")
        )
        self.stdout.flush()  # before the follower draws its progress on the same terminal
        return server

    def open_browser(self, listen: Listen, port: int) -> threading.Thread:
        """The dashboard in the user's browser; the socket listens already, so the first request waits
        in its backlog until `serve` answers it."""
        # Every interface includes loopback, the one address this machine's browser surely reaches.
        host = "127.0.0.1" if listen.wildcard else listen.name
        url = f"http://{host}:{port}/"

        def opened() -> None:
            if not webbrowser.open(url):
                self.stderr.write(f"Found no web browser to open: go to {url}")

        # A terminal browser (lynx, w3m) runs in the foreground until it quits: not in the server's way.
        opener = threading.Thread(target=opened, name="open-browser", daemon=True)
        opener.start()
        return opener

    def interrupt(self, signum, frame) -> None:
        """Ctrl-C or SIGTERM: the first stops the server (waitress turns KeyboardInterrupt into a
        shutdown); none after it may break off stopping the importer, which a traceback out of
        `stop` would leave running. One well after the first hurries it (see `stop`)."""
        now = time.monotonic()
        if self.interrupted_at is None:
            self.interrupted_at = now
            raise KeyboardInterrupt
        if now - self.interrupted_at > SAME_CTRL_C_SECS:
            self.hurry = True

    def serve(self, server) -> None:
        signal.signal(signal.SIGTERM, self.interrupt)
        signal.signal(signal.SIGINT, self.interrupt)
        try:
            server.run()  # returns on Ctrl-C: waitress turns KeyboardInterrupt into a shutdown
        except KeyboardInterrupt:
            pass
        finally:
            if self.interrupted_at is None:
                self.interrupted_at = time.monotonic()  # from here on a signal only hurries the stop
            server.close()
        self.stdout.write("Stopped the web server; stopping the importer.")

    def stop(self, follower: supervisor.Supervisor | None) -> None:
        """The importer asked to stop (it ends its batch: nothing is lost), killed after
        STOP_IMPORTER_SECS or at a second Ctrl-C (a kill loses nothing either, only the batch)."""
        if follower is not None:
            follower.stop(timeout=STOP_IMPORTER_SECS, hurry=lambda: self.hurry)
