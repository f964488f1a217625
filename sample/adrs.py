"""The ADR collections (knowledge-and-records.md §10-§13): four formats in two repositories, with the
deliberate faults listed in sample/README.md. Each record's numbers, dates and statuses are here; its prose
is sample/texts/adr/<repository>/<directory>/<file name> (sample/texts.py says how sections are cut)."""

from __future__ import annotations

from sample import formats, texts
from sample.majordomus import REPO_ROOT
from sample.state import Home

WEB_ROOT = "repos/web-ui"
ADR_TOOLS_DIR = (
    "docs/adr"  # named by api-server's .adr-dir; the sessions and knowledge records cite docs/adr/…
)
API_TEXTS = "adr/api-server"
WEB_TEXTS = "adr/web-ui"

# adr-tools (Nygard) records of api-server: (file name, number, title, date); Status and the other
# sections are the text. Two files claim number 5: two branches ran `adr new` from the same main (a
# deliberate duplicate id). 3 is superseded by 7 in adr-tools' own spelling. 8, 9 and 10 are the records
# the sample sessions wrote (S03, S07, S11). 14 puts questions to a person (knowledge-and-records.md
# §10.7): rulings R<n> and forks F<n>, some ruled, some open; the decision backlog lists the open ones.
ADR_TOOLS: list[tuple[str, int, str, str]] = [
    ("0001-record-architecture-decisions.md", 1, "Record architecture decisions", "2026-01-12"),
    (
        "0002-use-postgresql-with-alembic-migrations.md",
        2,
        "Use PostgreSQL with Alembic migrations",
        "2026-01-14",
    ),
    (
        "0003-authenticate-api-clients-with-server-side-session-cookies.md",
        3,
        "Authenticate API clients with server-side session cookies",
        "2026-01-20",
    ),
    (
        "0004-version-the-public-api-in-the-url-path.md",
        4,
        "Version the public API in the URL path",
        "2026-02-09",
    ),
    ("0005-store-api-keys-as-sha-256-hashes.md", 5, "Store API keys as SHA-256 hashes", "2026-03-04"),
    ("0005-log-structured-json-to-stdout.md", 5, "Log structured JSON to stdout", "2026-03-05"),
    ("0006-run-one-uvicorn-worker-per-container.md", 6, "Run one Uvicorn worker per container", "2026-04-15"),
    (
        "0007-use-short-lived-jwt-access-tokens-with-refresh-tokens.md",
        7,
        "Use short-lived JWT access tokens with refresh tokens",
        "2026-06-22",
    ),
    ("0008-refresh-token-rotation.md", 8, "Refresh token rotation with reuse detection", "2026-11-02"),
    ("0009-rate-limiting.md", 9, "Rate-limit per API key with a Redis token bucket", "2026-11-05"),
    ("0010-audit-log.md", 10, "Append-only audit log", "2026-11-07"),
    (
        "0014-audit-retention-and-redaction.md",
        14,
        "Keep audit events for a fixed period and redact secrets before writing",
        "2026-11-20",
    ),
]

# web-ui: MADR (docs/decisions, one MADR 2.x record with the bullet header) and agent-ways v0
# (docs/architecture/<area>/ADR-NNN-…, archive under docs/architecture/archive/<area>/). The two
# numberings do not overlap (0000-0004 vs 101-105), so the ids stay unique within the repository.
# MADR: (file name, title, front matter or bullet header).
MADR: list[tuple[str, str, dict]] = [
    (
        "0000-use-markdown-architectural-decision-records.md",
        "Use Markdown Architectural Decision Records",
        {"header": (("Status", "accepted"), ("Deciders", "dev, Jana Weber"), ("Date", "2026-02-16"))},
    ),
    (
        "0001-use-jest-with-react-testing-library.md",
        "Use Jest with React Testing Library for component tests",
        {"front": {"status": '"superseded by ADR-0002"', "date": "2026-11-06", "decision-makers": "dev"}},
    ),
    (
        "0002-use-vitest-and-mock-the-api-client.md",
        "Use Vitest and mock the API client at the module boundary",
        {
            "front": {
                "status": "accepted",
                "date": "2026-11-06",
                "decision-makers": ["dev"],
                "consulted": ["Jana Weber"],
            }
        },
    ),
    (
        "0003-map-server-validation-errors-in-the-form.md",
        "Map server validation errors to fields in the form, not in the API client",
        {"front": {"status": "accepted", "date": "2026-11-06", "decision-makers": "dev"}},
    ),
    (
        "0004-import-date-fns-per-function.md",
        "Import date-fns per function, enforced by a lint rule",
        {
            "front": {
                "status": "proposed",
                "date": "2026-11-08",
                "decision-makers": "dev",
                "informed": "web team",
            }
        },
    ),
]
# agent-ways v0: (path, number, title, front matter, archive banner or None). ADR-105 puts questions to a
# person: R1 ruled, R2 and F1 open.
AGENT_WAYS: list[tuple[str, int, str, dict, str | None]] = [
    (
        "archive/frontend/ADR-101-keep-the-session-in-localstorage.md",
        101,
        "Keep the session in localStorage so that a reload stays logged in",
        {
            "status": "Superseded",
            "date": "2026-03-10",
            "deciders": ["dev", "claude"],
            "related": ["ADR-102"],
            "superseded_by": "[ADR-103]",
        },
        "Archived 2026-11-03: superseded by ADR-103.",
    ),
    (
        "frontend/ADR-102-poll-the-session-endpoint-every-60-seconds.md",
        102,
        "Poll the session endpoint every 60 seconds to detect expiry",
        {"status": "Superseded", "date": "2026-04-21", "deciders": ["dev", "claude"], "related": ["ADR-101"]},
        None,
    ),
    (
        "frontend/ADR-103-session-state-lives-in-memory-and-starts-unknown.md",
        103,
        "Session state lives in memory and starts unknown until GET /auth/session answers",
        {
            "status": "Accepted",
            "date": "2026-11-03",
            "deciders": ["dev", "claude"],
            "related": ["ADR-102", "ADR-104"],
            "supersedes": "[ADR-101]",
        },
        None,
    ),
    (
        "frontend/ADR-105-forms-keep-their-input-across-a-session-expiry.md",
        105,
        "Forms keep their input across a session expiry",
        {"status": "Proposed", "date": "2026-11-12", "deciders": ["dev", "claude"], "related": ["ADR-103"]},
        None,
    ),
]


def majordomus_adrs(episodes: dict[str, str]) -> list[tuple[str, str]]:
    """api-server's .ai/repo/adrs: numbered above the adr-tools high-water mark (10), so ids never clash.
    adr-0012 supersedes adr-0011, which still says accepted and has no superseded_by (one-sided, on purpose)."""
    ep_b, ep_c = episodes["S07"], episodes["S11"]
    adrs = [
        (
            "0011-rate-limit-burst-defaults-to-the-per-minute-limit.md",
            dict(
                id="adr-0011",
                title="Rate-limit burst defaults to the per-minute limit",
                status="accepted",
                date="2026-11-06",
                tags=["ratelimit", "configuration"],
                related=[
                    "file:src/api/settings.py",
                    "file:docs/adr/0009-rate-limiting.md",
                    "test:tests/test_ratelimit.py",
                ],
                origin="extracted",
                derived_from=[f"session:{ep_b}", "decision:t-ratelimit"],
            ),
        ),
        (
            "0012-burst-size-is-set-per-api-key-tier.md",
            dict(
                id="adr-0012",
                title="Burst size and rate are set per API key tier, not per deployment",
                status="accepted",
                date="2026-11-09",
                tags=["ratelimit", "configuration"],
                supersedes=["adr-0011"],
                related=[
                    "file:src/api/ratelimit.py",
                    "file:src/api/models.py",
                    "test:tests/test_ratelimit_store.py",
                ],
                origin="authored",
            ),
        ),
        (
            "0013-audit-events-are-kept-for-13-months.md",
            dict(
                id="adr-0013",
                title="Audit events are kept for 13 months, then exported to cold storage",
                status="proposed",
                date="2026-11-07",
                tags=["audit", "retention", "compliance"],
                related=["file:src/api/audit.py", "file:docs/adr/0010-audit-log.md"],
                origin="extracted",
                derived_from=[f"session:{ep_c}", "task:t-audit-retention"],
            ),
        ),
    ]
    return [
        (name, formats.adr_majordomus(**adr, body=texts.text(f"{API_TEXTS}/.ai/repo/adrs/{name}")))
        for name, adr in adrs
    ]


def adr_tools(name: str, number: int, title: str, date: str) -> str:
    (_, status), *sections = texts.sections(f"{API_TEXTS}/{ADR_TOOLS_DIR}/{name}")
    return formats.adr_nygard(number, title, date=date, status=status, sections=sections)


def madr(name: str, title: str, front: dict) -> str:
    sections = texts.sections(f"{WEB_TEXTS}/docs/decisions/{name}")
    return formats.adr_madr(title, sections=sections, **front)


def agent_ways(rel: str, number: int, title: str, front: dict, banner: str | None) -> str:
    sections = texts.sections(f"{WEB_TEXTS}/docs/architecture/{rel}")
    return formats.adr_agent_ways(number, title, front=front, sections=sections, banner=banner)


def adr_collections(h: Home, episodes: dict[str, str]) -> None:
    """Four ADR formats in two repositories, with the deliberate faults listed in sample/README.md."""
    h.put_text(f"{REPO_ROOT}/.adr-dir", ADR_TOOLS_DIR + "\n")
    for name, *record in ADR_TOOLS:
        h.put_text(f"{REPO_ROOT}/{ADR_TOOLS_DIR}/{name}", adr_tools(name, *record))
    for name, text in majordomus_adrs(episodes):
        h.put_text(f"{REPO_ROOT}/.ai/repo/adrs/{name}", text)
    for name, *record in MADR:
        h.put_text(f"{WEB_ROOT}/docs/decisions/{name}", madr(name, *record))
    for rel, *record in AGENT_WAYS:
        h.put_text(f"{WEB_ROOT}/docs/architecture/{rel}", agent_ways(rel, *record))
