"""waysweb settings: one module, driven by the environment, safe by default (STYLE.md §8)."""

from __future__ import annotations

import contextlib
import os
import secrets
import socket
import tempfile
from datetime import timedelta
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from django.utils.csp import CSP

from lib import locations


def env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    if raw.lower() not in {"1", "0", "true", "false"}:
        raise ImproperlyConfigured(f"{name} must be 1/0/true/false, got {raw!r}")
    return raw.lower() in {"1", "true"}


def env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


def env_int(name: str, default: int) -> int:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        return int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a whole number, got {raw!r}") from None


BASE_DIR = locations.BASE_DIR
WAYSWEB_DEMO = env_bool("WAYSWEB_DEMO", False)
WAYSWEB_LOCATIONS = locations.resolve(os.environ, demo=WAYSWEB_DEMO)
DATA_DIR = WAYSWEB_LOCATIONS.data_dir
WAYSWEB_MAX_LINE_BYTES = env_int("WAYSWEB_MAX_LINE_BYTES", 64 << 20)
WAYSWEB_KEEP_INERT_RAW = env_bool("WAYSWEB_KEEP_INERT_RAW", False)
# A pass with at least this many transcript bytes to read prepares them in a second process
# (introspect/importer/prefetch.py); 0 never does. Below it (an append while following, a short
# pass) the process start would cost more than it saves.
WAYSWEB_PREPARE_WORKER_BYTES = env_int("WAYSWEB_PREPARE_WORKER_BYTES", 32 << 20)
# The agent-ways events logs prepared by that process too: it hands each chunk over as one flat
# event_prep.Sorted (rows ready for the database, no object a line), so the writer per line only
# looks up what the database knows and writes. Large tier's events, one run at load ~22 (issue 29):
# the writer 105 CPU s instead of 140 in one process, the worker 46 beside it (+11 CPU s in all).
WAYSWEB_PREPARE_EVENTS = env_bool("WAYSWEB_PREPARE_EVENTS", True)
# Knowledge derivation at the episode boundary, switchable per trigger like majordomus' policy.
WAYSWEB_DERIVE_ON_END = env_bool("WAYSWEB_DERIVE_ON_END", True)
WAYSWEB_DERIVE_ON_COMPACT = env_bool("WAYSWEB_DERIVE_ON_COMPACT", True)
# ADR directories to look in (relative to each repository) beyond the conventional ones.
WAYSWEB_ADR_DIRS = env_list("WAYSWEB_ADR_DIRS", [])
# The label of this machine's importer: several machines may feed one PostgreSQL database, and two
# of them can hold files at the same paths.
WAYSWEB_HOST = (os.environ.get("WAYSWEB_HOST") or socket.gethostname() or "localhost").strip()[:255]


def data_dir() -> Path:
    try:
        DATA_DIR.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ImproperlyConfigured(f"cannot create the data directory {DATA_DIR}: {exc}") from exc
    return DATA_DIR


def secret_key() -> str:
    """DJANGO_SECRET_KEY, else a key generated once and kept in the data directory."""
    if os.environ.get("DJANGO_SECRET_KEY"):
        return os.environ["DJANGO_SECRET_KEY"]
    path = data_dir() / "secret_key"
    with contextlib.suppress(FileNotFoundError):
        if kept := path.read_text().strip():
            return kept
    # Written whole under another name, then linked into place: two processes starting together
    # agree on one key, and neither reads the file half written. (Created with O_EXCL and then
    # written, the file was seen empty by a second `serve` on a slow machine: every page it served
    # failed on an empty SECRET_KEY.)
    key, temp = secrets.token_urlsafe(50), None
    try:
        fd, temp = tempfile.mkstemp(dir=path.parent, prefix=".secret_key.")
        with os.fdopen(fd, "w") as fh:
            fh.write(key)
        try:
            os.link(temp, path)
        except FileExistsError:
            if kept := path.read_text().strip():
                return kept  # another process's, linked first
            os.replace(temp, path)  # an empty file: an earlier version killed between create and write
        return key
    except OSError as exc:
        raise ImproperlyConfigured(
            f"cannot keep a secret key in {path}: {exc}; set DJANGO_SECRET_KEY instead"
        ) from exc
    finally:
        if temp is not None:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temp)


def database() -> dict:
    """WAYSWEB_DATABASE_URL, else embedded SQLite in the data directory (demo: its own file)."""
    url = os.environ.get("WAYSWEB_DATABASE_URL", "")
    if not url:
        name = "demo.sqlite3" if WAYSWEB_DEMO else "waysweb.sqlite3"
        url = f"sqlite:///{data_dir() / name}"
    if not url.startswith(("sqlite:", "postgres:", "postgresql:")):
        raise ImproperlyConfigured(
            f"WAYSWEB_DATABASE_URL must start with sqlite:/// or postgres://, got {url.split(':')[0]!r}"
        )
    config = dj_database_url.parse(url)
    if config["ENGINE"] == "django.db.backends.sqlite3":
        # importer-reliability.md §10: WAL so the dashboard reads while the importer writes;
        # IMMEDIATE so writers queue for the lock up front instead of deadlocking on upgrade.
        # A checkpoint every 64 MiB of WAL, not every 4 MiB: each batch of a cold import dirties
        # pages all over the line-hash indexes, and checkpointing (with its fsync) after nearly
        # every commit cost a quarter of the import (524,000 events: 130 → 96 s); the WAL file is
        # cut back to 64 MiB after each checkpoint.
        # Pages stay 4 KiB: 16 KiB ones make the large tier's database 538 -> 519 MB, but every commit
        # writes whole pages to the WAL, and the fault suite's import onto a 32 MiB disk no longer
        # fits (bench/results/2026-12-03-dbsize-tables.txt).
        config["OPTIONS"] = {
            "init_command": (
                "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; "
                "PRAGMA wal_autocheckpoint=16384; PRAGMA journal_size_limit=67108864;"
            ),
            "transaction_mode": "IMMEDIATE",
            "timeout": 20,
        }
    return config


DEBUG = env_bool("DJANGO_DEBUG", False)
SECRET_KEY = secret_key()
ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]"])

INSTALLED_APPS = [
    "whitenoise.runserver_nostatic",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django_htmx",
    "axes",
    "waysweb",
    "introspect",
    "ledger",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "lib.middleware.RefuseNul",  # before anything reads the request into a query
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # Last, as axes asks: it turns a refused login into the lockout page (waysweb/throttle.py).
    "axes.middleware.AxesMiddleware",
]
# A dashboard shared beyond this machine asks for a login before showing anything: transcripts
# hold file contents and pasted secrets. `serve --host <lan address>` turns this on.
LOGIN_REQUIRED = env_bool("WAYSWEB_LOGIN_REQUIRED", False)
if LOGIN_REQUIRED:
    MIDDLEWARE.append("django.contrib.auth.middleware.LoginRequiredMiddleware")

ROOT_URLCONF = "waysweb.urls"
WSGI_APPLICATION = "waysweb.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.csp",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "waysweb.context_processors.waysweb",
            ],
        },
    },
]

DATABASES = {"default": database()}
# Secrets (introspect/rules/secrets.py) are masked on every page, search and export whatever this says.
# Detection at import (WAYSWEB_SECRET_SCAN) finds them for the Secrets page and keeps them out of the
# search index. Team mode (WAYSWEB_SECRETS_MASKED_ONLY, on by default on a shared PostgreSQL) stores
# the masked line only, so a secret never leaves the machine that imported it: nothing can be revealed.
WAYSWEB_SECRET_SCAN = env_bool("WAYSWEB_SECRET_SCAN", True)
WAYSWEB_SECRETS_MASKED_ONLY = env_bool(
    "WAYSWEB_SECRETS_MASKED_ONLY", DATABASES["default"]["ENGINE"] != "django.db.backends.sqlite3"
)
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}

SECURE_CSP = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF, CSP.NONCE],
    "style-src": [CSP.SELF, CSP.NONCE],
    "img-src": [CSP.SELF, "data:"],
}
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"

# Login throttling (waysweb/throttle.py): after AXES_FAILURE_LIMIT failed logins for one user name
# from one address, both are refused for AXES_COOLOFF_TIME, the right password included; a failure
# during the lockout starts the cool-off again. Counts live in the database (shared by every server
# of one PostgreSQL); a successful login clears its own. `manage.py axes_reset` lifts every lockout.
AUTHENTICATION_BACKENDS = [
    "waysweb.throttle.LoginThrottle",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = env_int("WAYSWEB_LOGIN_FAILURES", 5)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("WAYSWEB_LOGIN_COOLOFF_MINUTES", 15))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_CALLABLE = "waysweb.throttle.locked_out"
AXES_DISABLE_ACCESS_LOG = True  # failures are what is counted and logged; successes need no table
# Each failure is logged (logger `axes`, WARNING) naming the user name and the client address, which
# axes masks by default; the password it always masks.
AXES_SENSITIVE_PARAMETERS: list[str] = []

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "ledger:candidate-list"
LOGOUT_REDIRECT_URL = "introspect:session-list"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": "WARNING"},
    # psycopg warns "error ignored terminating <Pipeline>" only while another error is already on its way
    # up (a full disk, a dropped database): that error is reported once, in the user's words.
    "loggers": {"psycopg": {"level": "ERROR"}},
}
