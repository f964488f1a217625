"""A deterministic benchmark corpus: a HOME with agent-ways events, way files and Claude Code transcripts.

    uv run python bench/corpus.py --tier small --out /tmp/x      # ≈ 30 MB of transcripts, ≈ 30,000 events
    uv run python bench/corpus.py --tier large --out /tmp/y      # ≈ 1 GiB of transcripts, ≥ 1,000,000 events

Layout (formats-agent-ways.md §2, §10; formats-claude-code.md §1):
  .local/state/agent-ways/events.jsonl              live log (kept judge_call lines, rotation overlap, newest days)
  .local/state/agent-ways/events-YYYY-MM-DD.jsonl.gz older lines, multi-member gzip (members' mtime 0)
  .claude/projects/<slug>/<session>.jsonl            trunk transcripts (Claude Code 2.1.180 shapes)
  .claude/projects/<slug>/<session>/subagents/agent-<id>.jsonl (+ .meta.json)
  .claude/hooks/ways/<domain>/…/<leaf>/<leaf>.md     core way files of every way that fires

What is in it:
- Sessions with transcripts (the newest, ``Tier.sessions`` of them plus the long session) share the transcript
  byte budget; older sessions whose transcripts Claude Code's 30-day retention already deleted carry events only
  and are added until ``Tier.events_target`` events exist.
- One long session (``Tier.long_session_turns`` fire turns, every one keyed to a UserPromptSubmit attachment)
  in project ``/home/dev/src/long-haul``.
- Every event type of the catalogue (formats-agent-ways.md §6), both near-miss / keyword-gate generations,
  every trigger channel of §7; values are strings, ``ts`` first; prompt-lane events sit 0–2 s after the hook
  second and the attachment follows within a second, so turns join keyed (introspection.md §4).
- Line-size mix of real transcripts: most lines 0.5–3 KiB, ≈ 9 % 10–20 KiB (Read / Edit results with the
  structured copy and ``originalFile``), ≈ 1 % 100–400 KiB (long Bash output), a few multi-MB tool results and,
  in the large tier, one single line of ``huge_line_bytes``.

Deterministic: one seeded ``random.Random`` per session and one for the text pools, fixed timestamps from
2026-10-01, gzip members with mtime 0; the same (tier, seed) gives byte-identical files. File mtimes are
those a real machine would show: a transcript's its last line's, an archive's its rotation's, the live log's
its last line's. Every line and file
is serialised by sample/formats.py and every transcript written by sample/transcript.py's builder, both shared
with the sample HOME (sample/build.py); this file decides what to write and how much.
``CorpusInfo.events_bytes`` counts uncompressed event-line bytes (archives included); ``transcript_bytes`` the
``.jsonl`` transcript files on disk.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import re
import shutil
import sys
import time
from bisect import bisect_left
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

# `uv run python bench/corpus.py` puts bench/ first on sys.path; the writers are imported as a package
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sample import formats  # noqa: E402 - the repository root first, so that `sample` imports as run
from sample.transcript import HEAD, Thread, TranscriptBuilder  # noqa: E402


@dataclass(frozen=True)
class Tier:
    name: str
    projects: int
    sessions: int  # sessions with transcripts, besides the long one
    turns_per_session: int  # mean prompt turns of an ordinary session
    long_session_turns: int
    events_target: int
    transcript_bytes_target: int
    big_tool_output_bytes: int
    huge_line_bytes: int


TIERS = {
    "small": Tier(
        "small",
        projects=4,
        sessions=6,
        turns_per_session=20,
        long_session_turns=5000,
        events_target=30_000,
        transcript_bytes_target=30 << 20,
        big_tool_output_bytes=1 << 20,
        huge_line_bytes=0,
    ),
    # A slice to iterate on (profiles, before/after): ≈ 160 MB of transcripts, 200,000 events.
    "medium": Tier(
        "medium",
        projects=6,
        sessions=60,
        turns_per_session=40,
        long_session_turns=2000,
        events_target=200_000,
        transcript_bytes_target=160 << 20,
        big_tool_output_bytes=2 << 20,
        huge_line_bytes=0,
    ),
    "large": Tier(
        "large",
        projects=12,
        sessions=360,
        turns_per_session=40,
        long_session_turns=5000,
        events_target=1_000_000,
        transcript_bytes_target=1 << 30,
        big_tool_output_bytes=6 << 20,
        huge_line_bytes=50_000_000,
    ),
}
BIG_OUTPUTS = 3  # multi-MB tool results per tier


@dataclass(frozen=True)
class CorpusInfo:
    home: Path
    tier: str
    events_files: list[Path]
    transcript_files: list[Path]
    events_lines: int
    events_bytes: int
    transcript_lines: int
    transcript_bytes: int
    long_session_id: str
    long_session_project: str
    search_terms: list[str]
    seconds: float


STATE = formats.EVENTS_DIR
CORE = formats.CORE_WAYS
MARKER = ".waysweb-bench-corpus"
LONG_PROJECT = "/home/dev/src/long-haul"
SEARCH_TERMS = ["idempotency", "backpressure", "flamegraph", "tombstones", "kubeconfig"]

OPUS, SONNET, HAIKU = "claude-opus-4-6", "claude-sonnet-4-6", "claude-haiku-4-5-20251001"
JUDGE_MODEL = "claude-haiku-4-5"
VERSION = "2.1.180"

BASE = datetime(2026, 10, 1, tzinfo=UTC)
DAYS = [(BASE + timedelta(days=d)).strftime("%Y-%m-%d") for d in range(400)]


def D(month: int, day: int, hour: int = 0, minute: int = 0) -> int:
    """Seconds since BASE."""
    return int((datetime(2026, month, day, hour, minute, tzinfo=UTC) - BASE).total_seconds())


# Archive routing (formats-agent-ways.md §2-§3): lines older than `upto` were appended to the archive of the
# day they were removed; the last tenth of the newest archive's lines are still in the live file too;
# judge_call lines are never archived.
ARCHIVES = [
    ("events-2026-10-23.jsonl.gz", D(10, 16)),
    ("events-2026-10-23.jsonl.gz", D(10, 22, 12)),
    ("events-2026-11-13.jsonl.gz", D(11, 12)),
    ("events-2026-11-27.jsonl.gz", D(11, 26)),
]
LIVE_FROM = ARCHIVES[-1][1]
EVENT_ONLY_SPAN = (D(10, 1, 6), D(11, 25, 20))
TRANSCRIPT_SPAN = (D(11, 26, 7), D(12, 29, 20))
LONG_START = D(12, 2, 8, 30)
OLD_GEN_UNTIL = D(10, 12)  # before ADR-156 / PR #544 on this machine
SCAN_UNTIL = D(11, 10)  # later builds write scan_candidates into decisions.jsonl


def ts_s(t: int) -> str:
    d, r = divmod(t, 86400)
    h, r = divmod(r, 3600)
    m, s = divmod(r, 60)
    return f"{DAYS[d]}T{h:02d}:{m:02d}:{s:02d}Z"


def ts_ms(ms: int) -> str:
    t, f = divmod(ms, 1000)
    d, r = divmod(t, 86400)
    h, r = divmod(r, 3600)
    m, s = divmod(r, 60)
    return f"{DAYS[d]}T{h:02d}:{m:02d}:{s:02d}.{f:03d}Z"


# The corpus has always written these keys in the opposite order to the sample's (formats.KeyOrder); readers
# never depend on it, and keeping it keeps the corpus byte-identical from one revision to the next.
ORDER = formats.KeyOrder(
    type_first=True,
    fields_after_stamp=False,
    metadata_after_stamp=True,
    patch_before_flags=True,
    agent_caller_first=True,
)


# --------------------------------------------------------------------------------------------------------
# Ways (formats-agent-ways.md §10): id, front matter, body, and how each can be triggered
# --------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Way:
    id: str
    front: str
    bullets: tuple[str, ...]
    keyword: str = ""  # phrase put into a prompt so `pattern:` matches (span = the phrase)
    commands: tuple[str, ...] = ()  # shell commands `commands:` matches; span = the first word(s)
    files: tuple[str, ...] = ()  # paths `files:` matches
    semantic: bool = True
    scope_sub: bool = False

    @property
    def domain(self) -> str:
        return self.id.split("/")[0]

    @property
    def leaf(self) -> str:
        return self.id.split("/")[-1]


GENERIC = (
    "Say what you verified and how; say what you did not verify.",
    "Prefer the smallest change that fixes the problem; leave unrelated cleanups for later.",
    "When a step fails twice, stop and re-read the error before trying a third variant.",
    "Name things after what they mean to the reader, not after how they are implemented.",
    "Keep the user informed: one line per meaningful step, no running commentary.",
    "If the instructions conflict with the code you see, ask before guessing.",
    "Record decisions where the next person will look for them, not only in the chat.",
    "Delete dead code instead of commenting it out; version control remembers it.",
)

WAYS = [
    Way(
        "softwaredev/delivery",
        "description: shipping work end to end, from a finished change to a merged and released one\n"
        "vocabulary: ship deliver merge release handoff done version tag\nrefire: rare\nscope: agent",
        (
            "Finish the change before packaging it: tests green, no stray debug output.",
            "One logical change per commit, one pull request per reviewable unit.",
        ),
    ),
    Way(
        "softwaredev/delivery/commits",
        "description: git commit messages, conventional commits, atomic changes\n"
        "vocabulary: commit message conventional feat fix refactor scope atomic squash amend\npattern: \\bcommit\\b\n"
        "commands: git\\ commit\nrefire: 0.15\nscope: agent, subagent",
        (
            "`feat(scope): …`, `fix(scope): …`, `docs`, `refactor`, `test`, `chore`.",
            "Keep commits atomic: one logical change per commit.",
            "Write the message about the why, not the what; the diff shows the what.",
        ),
        keyword="commit",
        commands=("git commit -am", "git commit -m", "git commit --amend -m"),
        scope_sub=True,
    ),
    Way(
        "softwaredev/delivery/pull-requests",
        "description: opening and updating pull requests, PR descriptions, review requests\n"
        "vocabulary: pull request pr review reviewer description draft approve gh\npattern: \\bpull request\\b\n"
        "commands: gh\\ pr\\ (create|edit|merge)\nrefire: normal",
        (
            "Title says what changes for a user; the body says why and how to test it.",
            "Open as draft while CI is red; request review only when it is green.",
        ),
        keyword="pull request",
        commands=("gh pr create --draft --fill", "gh pr edit --add-reviewer"),
    ),
    Way(
        "softwaredev/code/testing",
        "description: writing and running unit tests, fixtures, golden files, test failures\n"
        "vocabulary: test tdd unit golden fixture assert pytest vitest coverage flaky mock\n"
        "pattern: \\bunit tests?\\b|\\bwrite (a|the) tests?\\b\nfiles: (^|/)tests?/.*\\.(py|tsx?)$\nrefire: 0.2\n"
        "scope: agent, subagent",
        (
            "Write the failing test first and watch it fail for the right reason.",
            "One behaviour per test; name the test after the behaviour.",
            "Prefer real objects and `tmp_path` over mocks; mock only at process boundaries.",
            "A flaky test is a bug: quarantine it with an issue link, never retry it silently.",
        ),
        keyword="unit tests",
        files=("tests/test_{m}.py", "tests/unit/test_{m}.py", "web/tests/{m}.test.ts"),
        scope_sub=True,
    ),
    Way(
        "softwaredev/code/quality",
        "description: code quality after an edit, lint and type errors, dead code, naming\n"
        "vocabulary: lint ruff eslint mypy typecheck naming complexity dead unused\nfiles: \\.(py|ts|tsx)$\n"
        "refire: frequent",
        (
            "Run the linter and the type checker on the files you touched before you say done.",
            "Fix the warning, do not silence it; a suppression needs a comment saying why.",
        ),
        files=("src/{m}/core.py", "src/{m}/views.py", "web/src/{m}.tsx"),
    ),
    Way(
        "softwaredev/code/debugging",
        "description: systematic debugging when a fix keeps failing, reproducing, bisecting\n"
        "vocabulary: debug bisect reproduce stack trace regression failing again root cause\n"
        "trigger:\n  type: attend\n  signals: [repeated-failure, frustration]\nrefire: 0.3",
        (
            "Reproduce first: a failing command you can rerun beats a theory.",
            "Bisect when the last good state is known; read the diff when it is small.",
            "Write down each hypothesis and the observation that killed it.",
        ),
    ),
    Way(
        "softwaredev/code/navigation",
        "description: exploring an unfamiliar codebase, finding where something is defined or used\n"
        "vocabulary: where defined find usage callers entrypoint module layout explore\nscope: subagent\n"
        "refire: normal",
        (
            "Start at the entrypoints and the tests; they say what the code is for.",
            "Report file:line for every claim so the parent agent can check it.",
        ),
    ),
    Way(
        "softwaredev/code/performance",
        "description: profiling and speeding up slow code, latency, allocations\n"
        "vocabulary: profile flamegraph latency p99 allocation hot path benchmark cache\n"
        "pattern: \\bprofil(e|ing)\\b\nrefire: 0.25",
        (
            "Measure before and after with the same benchmark; report both numbers.",
            "Read the flamegraph top-down: the widest frame you own is the place to start.",
            "Cache only what you can invalidate.",
        ),
        keyword="profile",
    ),
    Way(
        "softwaredev/docs/adr",
        "description: architecture decision records, writing an ADR, superseding a decision\n"
        "vocabulary: adr decision record context consequences supersede status accepted proposed\n"
        "pattern: \\bADRs?\\b|architecture decision\nfiles: docs/adr/.*\\.md$\nrefire: 0.25",
        (
            "Context, decision, consequences; one decision per record.",
            "Supersede instead of editing an accepted record.",
        ),
        keyword="ADR",
        files=("docs/adr/00{n}-{m}.md",),
    ),
    Way(
        "softwaredev/docs/readme",
        "description: README files: install steps, usage, badges\n"
        "vocabulary: readme install usage quickstart badge\npattern: \\bREADME\\b\nrefire: 0.3",
        ("Install, run, test: three commands a newcomer can paste.",),
        keyword="README",
    ),
    Way(
        "softwaredev/architecture/design",
        "description: software design trade-offs, module boundaries, interfaces, coupling\n"
        "vocabulary: design architecture boundary interface coupling cohesion layer abstraction tradeoff\n"
        "refire: 0.25",
        (
            "Draw the boundary where the rate of change differs.",
            "An interface with one implementation is a guess; wait for the second one.",
            "Write the trade-off down: what you gave up and why it was acceptable.",
        ),
    ),
    Way(
        "softwaredev/architecture/api",
        "description: HTTP API design, endpoints, versioning, error shapes, pagination\n"
        "vocabulary: endpoint route rest versioning pagination status code error schema openapi\n"
        "pattern: \\bendpoints?\\b\nrefire: 0.2",
        (
            "One error shape for the whole API, with a stable code field.",
            "Paginate with cursors, not offsets, for anything that grows.",
        ),
        keyword="endpoint",
    ),
    Way(
        "softwaredev/data/migrations",
        "description: database schema migrations, backfills, zero-downtime changes\n"
        "vocabulary: migration schema alembic backfill column index lock downtime rollback\n"
        "pattern: \\bmigrations?\\b\nfiles: (^|/)migrations/.*\\.(py|sql)$\nrefire: 0.2",
        (
            "Expand, migrate, contract: never drop a column the running code still reads.",
            "Build indexes concurrently; a lock on a big table is an outage.",
        ),
        keyword="migration",
        files=("migrations/00{n}_{m}.py", "db/migrations/00{n}_{m}.sql"),
    ),
    Way(
        "collaboration/teams",
        "description: working as one agent of a team, handoffs, shared task lists\n"
        "vocabulary: team teammate handoff coordinate lead shared task\ntrigger: session-start\nscope: teammate\n"
        "refire: once",
        ("Claim a task before starting it; release it if you stop.",),
        semantic=False,
    ),
    Way(
        "meta/context",
        "trigger: context-threshold\nthreshold: 75\nmacro: prepend\nrefire: once",
        ("The context window is filling up: summarise what is settled, drop what is not needed.",),
        semantic=False,
    ),
    Way(
        "meta/orientation",
        "trigger: session-start\nrefire: once",
        ("Read the project's CLAUDE.md and the open task list before changing anything.",),
        semantic=False,
    ),
    Way(
        "security/secrets",
        "description: handling secrets, API keys, tokens and credentials safely\n"
        "vocabulary: secret token apikey credential password dotenv vault leak rotate\n"
        "commands: \\b(printenv|env)\\b|cat\\ .*\\.env\nfiles: (^|/)\\.env(\\..*)?$|secrets?\\.ya?ml$\nrefire: 0.1\n"
        "scope: agent, subagent",
        (
            "Never print a secret to the terminal or paste it into the conversation.",
            "A leaked key is rotated first and investigated second.",
        ),
        commands=("printenv", "env"),
        files=(".env", ".env.example", "deploy/secrets.yaml"),
        scope_sub=True,
    ),
    Way(
        "security/dependencies",
        "description: vulnerable dependencies, CVEs, audits, pinning and upgrades\n"
        "vocabulary: cve vulnerability audit advisory pin upgrade lockfile supply chain\n"
        "pattern: \\bvulnerab(le|ility)\\b\ncommands: \\b(pip-audit|npm\\ audit)\\b\nrefire: 0.3",
        ("Upgrade the smallest version that fixes the advisory; read its changelog.",),
        keyword="vulnerable",
        commands=("pip-audit", "npm audit"),
    ),
    Way(
        "build",
        "description: building the project, build tools, compile errors, packaging\n"
        "vocabulary: build compile make cargo npm vite bundle package artifact\n"
        "commands: \\b(make|npm\\ run\\ build|vite\\ build|uv\\ build|cargo\\ build)\\b\nrefire: normal",
        (
            "Build from a clean tree before you trust a green build.",
            "A warning in the build output is tomorrow's error; read them.",
        ),
        commands=("make", "npm run build", "cargo build", "uv build"),
    ),
    Way(
        "infra/terraform",
        "description: terraform plans, state, modules and drift\n"
        "vocabulary: terraform plan apply state module provider drift workspace\n"
        "commands: \\bterraform\\b\nfiles: \\.tf$\nrefire: 0.2",
        (
            "Always `terraform plan -out` and apply that plan file; never apply blind.",
            "Treat drift as a bug report: find who changed it before overwriting it.",
        ),
        commands=("terraform",),
        files=("infra/{m}.tf", "infra/modules/{m}/main.tf"),
    ),
    Way(
        "infra/kubernetes",
        "description: kubernetes deployments, kubectl, rollouts, manifests, clusters\n"
        "vocabulary: kubectl deployment pod rollout manifest helm namespace kubeconfig cluster\n"
        "pattern: \\bkubeconfig\\b\ncommands: \\bkubectl\\b\nrefire: 0.2",
        (
            "Check the current context before every `kubectl apply`.",
            "Roll out with a readiness probe or do not roll out.",
        ),
        keyword="kubeconfig",
        commands=("kubectl",),
    ),
    Way(
        "infra/ci",
        "description: continuous integration pipelines, workflow files, caching, flaky jobs\n"
        "vocabulary: ci pipeline workflow github actions runner cache artifact matrix\n"
        "files: (^|/)\\.github/workflows/.*\\.ya?ml$\nrefire: 0.2",
        ("Pin actions to a commit, not a tag.", "Cache by lockfile hash."),
        files=(".github/workflows/{m}.yml",),
    ),
    Way(
        "writing/docs-style",
        "description: writing documentation prose: tone, structure, examples\n"
        "vocabulary: docs documentation prose tone example tutorial reference explain\nrefire: 0.3",
        ("Lead with what the reader can do, then how.", "One example beats three paragraphs."),
    ),
]
WAY = {w.id: w for w in WAYS}
RX = {
    w.id: {
        k: re.compile(m.group(1), re.IGNORECASE)
        for k in ("files", "commands")
        if (m := re.search(rf"^{k}: (.*)$", w.front, re.MULTILINE))
    }
    for w in WAYS
}
SEMANTIC = [w for w in WAYS if w.semantic and w.id != "softwaredev/code/navigation"]
KEYWORD = [w for w in WAYS if w.keyword]
BASH_WAYS = [w for w in WAYS if w.commands]
FILE_WAYS = [w for w in WAYS if w.files]
CHECKS = {
    "softwaredev/code/testing": "assert expect mock patch fixture snapshot parametrize",
    "security/secrets": "token key password secret credential",
}


def way_body(w: Way) -> str:
    """The text a way injects (its markdown body); 0.4–1.6 KiB."""
    n = sum(map(ord, w.id))
    extra = [GENERIC[(n + i * 3) % len(GENERIC)] for i in range(2 + n % 5)]
    title = w.leaf.replace("-", " ").title()
    intro = (
        f"This way applies when the work touches {w.leaf.replace('-', ' ')}. It is a reminder of the "
        f"house rules, not a tutorial; follow the project's own docs where they are stricter."
    )
    return f"# {title} Way\n\n{intro}\n\n" + "\n".join(f"- {b}" for b in (*w.bullets, *extra))


BODIES = {w.id: way_body(w) for w in WAYS}


# --------------------------------------------------------------------------------------------------------
# Text pools: big strings sliced at line boundaries, so big payloads cost a slice, not a loop
# --------------------------------------------------------------------------------------------------------

WORDS = [
    "request",
    "user",
    "order",
    "item",
    "cache",
    "queue",
    "worker",
    "token",
    "session",
    "account",
    "invoice",
    "report",
    "metric",
    "event",
    "handler",
    "client",
    "server",
    "config",
    "limit",
    "bucket",
    "retry",
    "timeout",
    "batch",
    "index",
    "shard",
    "replica",
    "lease",
    "lock",
    "snapshot",
    "cursor",
    "page",
    "filter",
    "schema",
    "record",
    "payload",
    "signal",
    "stream",
    "buffer",
    "window",
]
MODULES = [
    "api",
    "billing",
    "auth",
    "search",
    "ingest",
    "metrics",
    "orders",
    "users",
    "payments",
    "notify",
    "scheduler",
    "gateway",
    "ratelimit",
    "storage",
    "export",
    "audit",
]
PROSE = (
    "Let me look at {m} first, because the {w} path goes through it before anything else runs.",
    "The failure says the {w} is stale, which fits a missing invalidation after the {w2} update.",
    "I'll keep the change small: touch {m}/{w}.py and its test, nothing else.",
    "That output shows {n} passing and one failing test; the failing one is about the {w}.",
    "The {w} handler retries without a limit, so a slow {w2} turns into a storm of requests.",
    "Before editing I want to see how {m} builds the {w}; the constructor may already take a {w2}.",
    "This matches the earlier stack trace: the {w2} is None when the {w} arrives first.",
    "I'll run the narrow test first and the full suite only once it passes.",
    "The config already has a {w} setting, so I'll thread it through instead of adding a new one.",
    "There are {n} call sites; only two of them pass a {w2}, the rest rely on the default.",
)
TASKS = (
    "fix the {w} bug in {m}: {sym}",
    "add {feat} to the {m} service",
    "why does the {m} {w} {sym}?",
    "refactor {m}/{w}.py so the {w2} handling is in one place",
    "look at the failing {m} tests and tell me what broke",
    "explain how {m} handles {concept}",
    "make the {w} limit configurable per {w2}",
    "clean up the {m} module, it has grown three ways of building a {w}",
    "review my change to {m}/{w2}.py",
    "can you speed up the {w} query in {m}? it shows up at the top of the {concept} report",
    "the {m} worker keeps dying with a {w} error after deploys, find out why",
    "write a small script that exports every {w} of {m} as csv",
    "rename {w} to {w2} across {m}, keep the API stable",
)
SYMPTOMS = (
    "returns 500 for empty input",
    "hangs after a few minutes",
    "double-counts every {w}",
    "drops the last {w} of each batch",
    "is slow under load",
    "leaks {w2} handles",
    "ignores the timeout",
)
FEATURES = (
    "pagination",
    "retries with jitter",
    "a dry-run flag",
    "structured logging",
    "a health check",
    "per-tenant limits",
    "request tracing",
    "an export command",
)
CONCEPTS = (
    "idempotency",
    "backpressure",
    "flamegraph",
    "tombstones",
    "kubeconfig",
    "retries",
    "caching",
    "ordering",
    "timeouts",
    "sharding",
    "auth",
    "clock skew",
)
LOG_LEVELS = ("INFO", "INFO", "INFO", "DEBUG", "WARN", "ERROR")
CODE_TEMPLATES = (
    "def {w}_{w2}(self, {w}: {T}, *, limit: int = {n}) -> {T}:",
    "    if {w} is None:",
    '        raise ValueError("{w} is required")',
    "    {w2} = self.{w}s.get({w}.id)",
    "    return {w2}",
    "class {C}{C2}:",
    '    """Keeps the {w} and its {w2} together."""',
    "    {w}: {T}",
    "    {w2}_count: int = 0",
    "",
    "    for {w} in self.{w2}s:",
    "        total += {w}.{w2}",
    'logger.debug("{w} %s took %.1f ms", {w}.id, elapsed)',
    "from {m}.{w} import {C}",
    "import {m}.{w2} as {w2}",
    "    async with self.{w}_lock:",
    "        await self.{w2}.flush()",
    "    # {w} must be flushed before the {w2} is released",
    "export function {w}{C}({w2}: {C2}): {C} {{",
    "  const {w} = await fetch{C}({w2}.id);",
    "  return {w};",
    "}}",
    '@pytest.mark.parametrize("{w}", [1, 2, {n}])',
    "def test_{w}_{w2}({w}, tmp_path):",
    "    assert {m}.{w}({w}) == {n}",
)


class Pools:
    def __init__(self, seed: int) -> None:
        r = random.Random(f"waysweb-bench-corpus:pools:{seed}")
        C = [w.capitalize() for w in WORDS]

        def fill(tpl: str) -> str:
            return tpl.format(
                w=r.choice(WORDS),
                w2=r.choice(WORDS),
                m=r.choice(MODULES),
                C=r.choice(C),
                C2=r.choice(C),
                T=r.choice(("int", "str", "float", "bytes", "dict")),
                n=r.randint(2, 999),
            )

        code = [fill(r.choice(CODE_TEMPLATES)) for _ in range(40_000)]
        self.code_raw, self.code_raw_off = self._join(code)
        self.code_num, self.code_num_off = self._join([f"{i + 1:>6}→{line}" for i, line in enumerate(code)])
        logs = []
        for i in range(60_000):
            mod, w = r.choice(MODULES), r.choice(WORDS)
            k = r.random()
            if k < 0.45:
                logs.append(
                    f"2026-11-{1 + i // 2400:02d}T{i // 100 % 24:02d}:{i % 60:02d}:{r.randint(0, 59):02d}."
                    f"{r.randint(0, 999):03d}Z {r.choice(LOG_LEVELS):5s} {mod}.{w} request_id={r.getrandbits(48):012x} "
                    f"path=/v1/{w}s/{r.randint(1, 99999)} status={r.choice((200, 200, 201, 204, 404, 500))} "
                    f"dur_ms={r.randint(1, 900)}"
                )
            elif k < 0.75:
                logs.append(
                    f"tests/{mod}/test_{w}.py::test_{r.choice(WORDS)}_{r.choice(WORDS)}"
                    f"[{r.randint(0, 9)}] {r.choice(('PASSED', 'PASSED', 'PASSED', 'SKIPPED', 'FAILED'))}"
                    f" [{r.randint(0, 99):>3d}%]"
                )
            elif k < 0.9:
                logs.append(
                    f'  File "/home/dev/src/{mod}/{w}.py", line {r.randint(1, 900)}, in '
                    f"{r.choice(WORDS)}_{r.choice(WORDS)}"
                )
            else:
                logs.append(
                    f"   Compiling {w}-{mod} v0.{r.randint(1, 30)}.{r.randint(0, 9)} "
                    f"(/home/dev/src/{mod}/crates/{w})"
                )
        self.log, self.log_off = self._join(logs)
        prose = [fill(r.choice(PROSE)) for _ in range(8000)]
        self.prose, self.prose_off = self._join(prose, sep=" ")
        self.sig = "".join(
            r.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
            for _ in range(20_000)
        )

    @staticmethod
    def _join(lines: list[str], sep: str = "\n") -> tuple[str, list[int]]:
        offs, pos = [], 0
        for line in lines:
            offs.append(pos)
            pos += len(line) + len(sep)
        offs.append(pos)
        return "".join(line + sep for line in lines), offs

    @staticmethod
    def cut(text: str, offs: list[int], r: random.Random, size: int) -> tuple[int, int]:
        """(first line, line count) of a run of whole lines of about `size` characters."""
        last = bisect_left(offs, len(text) - size) - 1
        k = r.randint(0, max(0, last))
        end = min(len(offs) - 1, max(k + 1, bisect_left(offs, offs[k] + size)))
        return k, end - k

    def logs(self, r: random.Random, size: int) -> str:
        k, n = self.cut(self.log, self.log_off, r, size)
        return self.log[self.log_off[k] : self.log_off[k + n]]

    def big_logs(self, size: int) -> str:
        text = self.log * (size // len(self.log) + 1)
        cut = text.rfind("\n", 0, size)
        return text[: cut + 1]

    def code(self, r: random.Random, size: int) -> tuple[str, str, int, int]:
        """(raw text, numbered text, start line, line count) of a file excerpt."""
        k, n = self.cut(self.code_raw, self.code_raw_off, r, size)
        return (
            self.code_raw[self.code_raw_off[k] : self.code_raw_off[k + n]],
            self.code_num[self.code_num_off[k] : self.code_num_off[k + n]],
            k + 1,
            n,
        )

    def text(self, r: random.Random, size: int) -> str:
        k, n = self.cut(self.prose, self.prose_off, r, size)
        return self.prose[self.prose_off[k] : self.prose_off[k + n]].strip()

    def signature(self, r: random.Random) -> str:
        k = r.randint(0, len(self.sig) - 400)
        return "Eu8C" + self.sig[k : k + r.randint(180, 380)]


# --------------------------------------------------------------------------------------------------------
# The generator
# --------------------------------------------------------------------------------------------------------


class Corpus:
    def __init__(self, home: Path, tier: Tier, seed: int) -> None:
        self.home = home
        self.tier = tier
        self.seed = seed
        self.pools = Pools(seed)
        self.events: list[tuple[int, int, bytes]] = []
        self.transcript_bytes = 0
        self.transcript_lines = 0
        self.transcript_files: list[Path] = []
        self.term_hits = dict.fromkeys(SEARCH_TERMS, 0)
        names = [
            "api-server",
            "web-ui",
            "infra",
            "notes",
            "billing",
            "llama.cpp-kv",
            "data_pipeline",
            "mobile-app",
            "search",
            "auth-service",
            "docs-site",
            "cli-tools",
            "ml.experiments",
            "gateway",
        ]
        self.projects = [
            f"/home/dev/src/{names[i % len(names)]}" + (f"-{i // len(names)}" if i >= len(names) else "")
            for i in range(tier.projects)
        ]

    # events -----------------------------------------------------------------------------------------
    def emit(self, t: int, d: dict) -> None:
        self.events.append((t, len(self.events), formats.events_line(**d).encode() + b"\n"))

    # the corpus -------------------------------------------------------------------------------------
    def run(self) -> str:
        tier = self.tier
        long_s = Session(self, 0, LONG_PROJECT, LONG_START * 1000, transcript=True, long=True)
        long_s.play(tier.long_session_turns)
        fixed = BIG_OUTPUTS * tier.big_tool_output_bytes + tier.huge_line_bytes
        budget_left = tier.transcript_bytes_target - self.transcript_bytes
        n = tier.sessions
        span = TRANSCRIPT_SPAN[1] - TRANSCRIPT_SPAN[0]
        big_at = {max(0, n * (i + 1) // (BIG_OUTPUTS + 1) - 1): "big" for i in range(BIG_OUTPUTS)}
        if tier.huge_line_bytes:
            big_at[n // 2 + (n // 2 in big_at)] = "huge"
        for i in range(n):
            left = n - i
            share = (budget_left - fixed) / left if fixed < budget_left else budget_left / left
            special = big_at.get(i)
            size = {"big": tier.big_tool_output_bytes, "huge": tier.huge_line_bytes}.get(special, 0)
            fixed -= size
            start = (
                TRANSCRIPT_SPAN[0] + span * i // n + random.Random(f"{self.seed}:start:{i}").randint(0, 3600)
            )
            s = Session(
                self,
                1 + i,
                self.projects[i % len(self.projects)],
                start * 1000,
                transcript=True,
                special=(special, size),
            )
            before = self.transcript_bytes
            s.play(None, byte_budget=int(share) + size)
            budget_left -= self.transcript_bytes - before
        # older sessions: their transcripts are gone (30-day retention), their events remain
        i = 0
        est = max(1, len(self.events) // max(1, n + tier.long_session_turns // tier.turns_per_session))
        planned = max(1, (tier.events_target - len(self.events)) // est)
        span = EVENT_ONLY_SPAN[1] - EVENT_ONLY_SPAN[0]
        while len(self.events) < tier.events_target:
            k = n + 1 + i
            r = random.Random(f"{self.seed}:start:{k}")
            frac = (i * 0.6180339887) % 1.0 if i >= planned else i / planned
            start = EVENT_ONLY_SPAN[0] + int(span * frac) + r.randint(0, 1800)
            s = Session(
                self, k, self.projects[r.randrange(len(self.projects))], start * 1000, transcript=False
            )
            s.play(max(3, int(r.gauss(tier.turns_per_session, tier.turns_per_session / 3))))
            i += 1
        self.emit(
            D(11, 28, 3, 12),
            {
                "ts": ts_s(D(11, 28, 3, 12)),
                "event": "event_log_dropped",
                "bytes": 41943040,
                "reason": "archive failed",
            },
        )
        return long_s.sid

    def write_events(self) -> tuple[list[Path], int, int]:
        self.events.sort()  # (second, write order): seq is unique, the bytes are never compared
        live: list[tuple[int, int, bytes]] = []
        members: dict[int, list[bytes]] = {}
        judge = b'"event":"judge_call"'
        newest: list[tuple[int, int, bytes]] = []
        for e in self.events:
            t, line = e[0], e[2]
            if t >= LIVE_FROM or judge in line[:64]:
                live.append(e)
                continue
            for m, (_, upto) in enumerate(ARCHIVES):
                if t < upto:
                    members.setdefault(m, []).append(line)
                    break
            if m == len(ARCHIVES) - 1:
                newest.append(e)
        # rotation overlap: the newest archive's last lines are still in the live file as well
        live += newest[len(newest) * 9 // 10 :]
        live.sort()
        state = self.home / STATE
        state.mkdir(parents=True, exist_ok=True)
        files: dict[str, list[bytes]] = {}
        lines = nbytes = 0
        for m, chunk in sorted(members.items()):
            data = b"".join(chunk)
            lines += len(chunk)
            nbytes += len(data)
            files.setdefault(ARCHIVES[m][0], []).append(formats.gzip_member(data, level=1))
        paths = []
        rotated = {name: upto for name, upto in ARCHIVES}  # the last member's end: its rotation
        for name, parts in files.items():
            (state / name).write_bytes(b"".join(parts))
            at = BASE.timestamp() + rotated[name]
            os.utime(state / name, (at, at))
            paths.append(state / name)
        data = b"".join(e[2] for e in live)
        (state / "events.jsonl").write_bytes(data)
        if live:
            at = BASE.timestamp() + live[-1][0]
            os.utime(state / "events.jsonl", (at, at))
        paths.append(state / "events.jsonl")
        return paths, lines + len(live), nbytes + len(data)

    def write_ways(self) -> None:
        root = self.home / CORE
        for w in WAYS:
            path = root / formats.way_path(w.id)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(formats.way_file(w.front, BODIES[w.id]).encode())
        for wid, vocab in CHECKS.items():
            w = WAY[wid]
            front = (
                f"description: check that the {w.leaf} rules were followed in the last edit\n"
                f"vocabulary: {vocab}\nthreshold: 2.0\nscope: agent, subagent"
            )
            body = f"# {w.leaf.title()} check\n\n- Did the last edit follow the {w.leaf} way?"
            (root / formats.way_path(wid, check=True)).write_bytes(formats.way_file(front, body).encode())

    def finish(self, tier: str, sid: str, project: str, terms: list[str], started: float) -> CorpusInfo:
        """Write the way files and the events the sessions played, and say what was written."""
        self.write_ways()
        events_files, events_lines, events_bytes = self.write_events()
        return CorpusInfo(
            home=self.home,
            tier=tier,
            events_files=events_files,
            transcript_files=self.transcript_files,
            events_lines=events_lines,
            events_bytes=events_bytes,
            transcript_lines=self.transcript_lines,
            transcript_bytes=self.transcript_bytes,
            long_session_id=sid,
            long_session_project=project,
            search_terms=terms,
            seconds=time.perf_counter() - started,
        )


class Session(TranscriptBuilder):
    order = ORDER

    def __init__(
        self,
        c: Corpus,
        idx: int,
        project: str,
        start_ms: int,
        *,
        transcript: bool,
        long: bool = False,
        special: tuple[str | None, int] = (None, 0),
    ) -> None:
        self.c = c
        self.p = c.pools
        self.r = self.rng = r = random.Random(f"waysweb-bench-corpus:{c.seed}:{idx}")
        self.sid = self.new_uuid()
        self.project = project
        self.ms = start_ms
        self.long = long
        self.tx = self.writes_lines = transcript
        self.special, self.special_size = special
        t0 = start_ms // 1000
        self.gen = "old" if t0 < OLD_GEN_UNTIL else "new"
        self.judge = "enforce" if long else r.choice((None, None, None, "enforce", "shadow"))
        self.scan = t0 < SCAN_UNTIL and not long and r.random() < 0.6
        self.pulls = self.gen == "new" and (long or r.random() < 0.4)
        self.team = None if long or r.random() > 0.08 else f"{r.choice(MODULES)}-team"
        self.subagents_off = not long and r.random() < 0.15
        self.model = OPUS if long or r.random() < 0.7 else SONNET
        self.branch = r.choice(("main", "main", "feat/" + r.choice(WORDS), "fix/" + r.choice(WORDS)))
        hs = "-".join(
            r.choice(w)
            for w in (
                ("quiet", "amber", "brisk", "silver", "patient", "velvet"),
                ("harbor", "lantern", "meadow", "circuit", "orchard", "ember"),
                ("whisper", "falcon", "river", "summit", "beacon", "pebble"),
            )
        )
        self.version = "2.1.120" if long else VERSION  # ≥ 2.1.97 (attachments), < 2.1.150 (no turn_duration)
        self.human_slug = hs
        self.trunk = Thread(self.envelope(), self.model, None, r.randint(14000, 19000))
        self.subs: list[tuple[Thread, dict]] = []
        self.shown: dict[str, int] = {}  # way -> times shown in the current window
        self.epoch = 0
        self.way_epoch: dict[str, int] = {}
        self.check_fires: dict[str, int] = {}
        self.failures = 0
        self.ctx_state = 0
        self.bytes = 0
        self.edited: list[str] = []
        self.prompts = 0
        self.last_prompt = ""

    # bookkeeping ------------------------------------------------------------------------------------
    def adv(self, lo: int, hi: int) -> None:
        self.ms += self.r.randint(lo, hi)

    def base(self) -> dict:
        return {"project": self.project, "session": self.sid}

    def emit(self, t: int, d: dict) -> None:
        self.c.emit(t, d)

    # transcript lines -------------------------------------------------------------------------------
    def envelope(self, agent: str | None = None) -> dict:
        return formats.envelope(
            cwd=self.project,
            session_id=self.sid,
            version=self.version,
            git_branch=self.branch,
            slug=self.human_slug,
            agent_id=agent,
        )

    def flush(self, th: Thread, f) -> None:
        if th.lines:
            data = ("\n".join(th.lines) + "\n").encode()
            f.write(data)
            self.bytes += len(data)
            self.c.transcript_bytes += len(data)
            self.c.transcript_lines += len(th.lines)
            th.lines.clear()

    def stamp(self) -> str:
        return ts_ms(self.ms)

    def output_tokens(self, blocks: list[dict]) -> int:
        return self.r.randint(12, 900)

    def message_ids(self) -> tuple[str, str]:
        r = self.r
        return f"msg_01{r.getrandbits(88):022x}", f"req_011C{r.getrandbits(80):020x}"

    def progress(self, th: Thread, hook_event: str, hook_name: str, tool_id: str | None) -> None:
        """A hook_progress start; `tool_id` None = a hook-run id that matches no tool call."""
        if self.tx:
            tool_id = tool_id or self.new_uuid()
            self.put(
                th,
                formats.transcript_hook_progress,
                hook_event=hook_event,
                hook_name=hook_name,
                command="${HOME}/.claude/hooks/ways/hook.sh " + hook_event,
                tool_use_id=tool_id,
                chain=False,
            )

    def attach(
        self,
        th: Thread,
        hook_event: str,
        hook_name: str,
        tool_id: str | None,
        bodies: list[str],
        parent=HEAD,
    ) -> str:
        """The hook's attachment, when it injected anything; its bodies join the context window either way."""
        u = super().attach(th, hook_event, hook_name, tool_id, bodies, parent) if self.tx and bodies else ""
        th.pending += sum(map(len, bodies)) // 4
        return u

    # events -----------------------------------------------------------------------------------------
    def fire(
        self,
        t: int,
        th: Thread,
        w: Way,
        trigger: str,
        *,
        span: str | None = None,
        score: float | None = None,
        surface: str = "",
        minimal: bool = False,
        scope: str | None = None,
        redisclose: bool = False,
    ) -> str | None:
        """way_fired / way_redisclosed; returns the body it injects."""
        agent = th.agent or "main"
        d = {
            "ts": ts_s(t),
            "event": "way_redisclosed" if redisclose else "way_fired",
            "way": w.id,
            "domain": w.domain,
            "trigger": trigger,
            "scope": scope or ("subagent" if th.agent else "agent"),
            "project": self.project,
            "session": self.sid,
        }
        if minimal:
            if th.agent:
                d["agent_id"] = agent
            if self.team and w.id == "collaboration/teams":
                d["team"] = self.team
            self.emit(t, d)
            return None
        d["token_position"] = str(th.position)
        if self.gen == "new":
            d["model"] = th.model
            d["agent_id"] = agent
        if score is not None:
            d["fire_score"] = f"{score:.4f}"
            d["surface"] = surface if len(surface) <= 200 else surface[:200] + "…"
        if span and not redisclose:
            d["matched_span"] = span
        if (
            w.id in ("softwaredev/delivery/commits", "softwaredev/delivery/pull-requests")
            and "softwaredev/delivery" in self.shown
        ):
            d.update(
                parent="softwaredev/delivery",
                tree_depth="1",
                epoch_distance=str(self.epoch - self.way_epoch.get("softwaredev/delivery", 0)),
            )
        self.emit(t, d)
        self.shown[w.id] = self.shown.get(w.id, 0) + 1
        self.way_epoch[w.id] = self.epoch
        body = BODIES[w.id]
        if w.id == "meta/context":
            body = f"Context in use: {th.position} tokens\n\n{body}"
        return body

    def suppress(self, t: int, th: Thread, w: Way, trigger: str, reason: str) -> None:
        self.emit(
            t,
            {
                "ts": ts_s(t),
                "event": "way_suppressed",
                "kind": "way",
                "way": w.id,
                "domain": w.domain,
                "trigger": trigger,
                "reason": reason,
                "scope": "subagent" if th.agent else "agent",
                "project": self.project,
                "session": self.sid,
                "agent_id": th.agent or "main",
            },
        )

    def show_or_hold(
        self, t: int, th: Thread, w: Way, trigger: str, *, show: bool = False, **kw
    ) -> str | None:
        """A match: first fire, redisclosure, or a refire hold."""
        if w.id not in self.shown:
            return self.fire(t, th, w, trigger, **kw)
        if show or self.r.random() < 0.45:
            return self.fire(t, th, w, trigger, redisclose=True, **kw)
        self.suppress(t, th, w, trigger, "refire")
        return None

    def semantic_channel(self) -> str:
        x = self.r.random()
        if x < 0.5:
            return "semantic:embedding:multi"
        if x < 0.85:
            return "semantic:embedding:en"
        if x < 0.99:
            return "semantic:late-interaction:en"
        return "unknown"

    # a prompt turn ----------------------------------------------------------------------------------
    def make_prompt(self, phrases: list[str]) -> str:
        r = self.r
        w, w2, m = r.choice(WORDS), r.choice(WORDS), r.choice(MODULES)
        text = r.choice(TASKS).format(
            w=w,
            w2=w2,
            m=m,
            concept=r.choice(CONCEPTS),
            feat=r.choice(FEATURES),
            sym=r.choice(SYMPTOMS).format(w=w, w2=w2),
        )
        if r.random() < 0.25:
            text += f". Keep {r.choice(CONCEPTS)} in mind, the {w2} path depends on it"
        for ph in phrases:
            text += r.choice(
                (f", and the {ph} too", f" and mention the {ph}", f"; also the {ph} part", f" ({ph})")
            )
        text = text[0].upper() + text[1:]
        if r.random() < 0.08 and not self.long:
            text += "\n\nHere is what I see:\n\n```\n" + self.p.logs(r, r.randint(800, 16000)) + "```"
        for term in SEARCH_TERMS:
            if term in text:
                self.c.term_hits[term] += 1
        return text

    def prompt_turn(self) -> None:
        r, th = self.r, self.trunk
        self.prompts += 1
        # what the hook will do, decided first so the prompt can carry the keyword spans
        keyword = [w for w in r.sample(KEYWORD, 2) if r.random() < 0.22]
        semantic = [w for w in r.sample(SEMANTIC, 3) if r.random() < 0.3]
        gated = r.choice(KEYWORD) if r.random() < 0.06 else None
        if self.long and not keyword and not semantic and not gated:
            semantic = [r.choice(SEMANTIC)]
        phrases = [w.keyword for w in keyword] + ([gated.keyword] if gated else [])
        text = self.make_prompt(phrases)
        self.last_prompt = text
        self.epoch += 1
        gap = r.randint(15_000, 45_000) if self.long else r.randint(25_000, 240_000)
        self.ms += gap
        steps = int(r.random() < 0.15) if self.long else max(0, min(12, int(r.expovariate(1 / 3.2))))
        u = umid = None
        if self.tx and (steps or not self.long):
            umid = self.new_uuid()
            backups = {
                f"{self.project}/{p}": formats.file_backup(
                    f"{r.getrandbits(64):016x}@v{1 + j}", 1 + j, ts_ms(self.ms - 1000)
                )
                for j, p in enumerate(self.edited[-3:])
            }
            th.lines.append(formats.transcript_file_history_snapshot(umid, backups, timestamp=ts_ms(self.ms)))
        if self.tx:
            u = self.put(
                th, formats.transcript_prompt, text, prompt_id=self.new_uuid(), uid=umid, order=ORDER
            )
            if self.prompts == 1:
                th.lines.append(formats.transcript_ai_title(self.sid, text.split(",")[0][:60]))
        th.pending += len(text) // 4 + 4
        hook_ms = self.ms + r.randint(300, 800)
        self.ms = hook_ms
        if not self.long:
            self.progress(th, "UserPromptSubmit", "UserPromptSubmit", None)
        hs = hook_ms // 1000
        bodies = self.prompt_events(hs, th, text, keyword, semantic, gated)
        # the attachment is written once the hook is done: after its last event second
        self.ms = max(self.ms, (hs + (1 if self.judge else 0)) * 1000) + r.randint(150, 900)
        self.attach(th, "UserPromptSubmit", "UserPromptSubmit", None, bodies, parent=u if u else HEAD)
        self.work(th, steps)
        if self.tx and not self.long:
            self.adv(20, 120)
            self.put(th, formats.transcript_turn_duration, duration_ms=r.randint(3000, 240000))
        if th.cached + th.pending > 165_000:
            self.compact("auto")
        elif not self.long and r.random() < 0.004:
            self.compact("manual")

    def prompt_events(
        self, hs: int, th: Thread, text: str, keyword: list[Way], semantic: list[Way], gated: Way | None
    ) -> list[str]:
        r, base = self.r, self.base()
        surface = " ".join(text.split())
        bodies: list[str] = []
        if self.scan:
            self.scan_candidates(hs, semantic)
        # state: context threshold (first fire, then one bare repeat row)
        if th.position >= 150_000 and self.ctx_state < 2:
            self.ctx_state += 1
            b = self.fire(hs, th, WAY["meta/context"], "state", minimal=self.ctx_state == 2)
            if b:
                bodies.insert(0, b)
        if self.failures >= 2:
            self.failures = 0
            w = WAY["softwaredev/code/debugging"]
            b = self.show_or_hold(hs, th, w, "attend:repeated-failure")
            if b:
                bodies.append(b)
        cands = [(w, "keyword") for w in keyword]
        cands += [(w, self.semantic_channel()) for w in semantic if w not in keyword]
        allowed = cands
        if self.judge and cands:
            allowed = self.judge_events(hs, cands)
        t = hs + (1 if self.judge else 0)
        for i, (w, channel) in enumerate(allowed):
            if len(bodies) >= 3 and r.random() < 0.5:
                self.suppress(t, th, w, channel, "context_cap")
                continue
            show = self.long and i == 0 and r.random() < 0.85
            if channel == "keyword":
                b = self.show_or_hold(t, th, w, channel, span=w.keyword, show=show)
            elif channel == "unknown":
                b = self.show_or_hold(t, th, w, channel, show=show)
            else:
                b = self.show_or_hold(
                    t, th, w, channel, score=r.uniform(0.5, 0.93), surface=surface, show=show
                )
            if b:
                bodies.append(b)
        if gated:
            d = {
                "ts": ts_s(t),
                "event": "way_keyword_gated",
                "way": gated.id,
                "corpus_id": gated.id,
                "domain": gated.domain,
                "matched_span": gated.keyword,
            }
            if self.gen == "new":
                d.update(
                    prob_en=f"{r.uniform(0.01, 0.149):.4f}",
                    prob_multi=r.choice(("", f"{r.uniform(0.01, 0.149):.4f}")),
                    floor="0.1500",
                    trigger="prompt",
                    scope="agent",
                    **base,
                    token_position=str(th.position),
                )
            else:
                d.update(
                    score_en=f"{r.uniform(0.1, 0.29):.4f}",
                    score_multi=f"{r.uniform(0.1, 0.29):.4f}",
                    floor_en="0.3000",
                    floor_multi="0.3100",
                    trigger="prompt",
                    scope="agent",
                    **base,
                )
            self.emit(t, d)
        if r.random() < 0.12:
            w = r.choice(SEMANTIC)
            d = {"ts": ts_s(t), "event": "way_nearmiss", "way": w.id, "corpus_id": w.id, "domain": w.domain}
            if self.gen == "new":
                p = r.uniform(0.4501, 0.4999)
                multi = r.random() < 0.5
                d.update(
                    prob_en="" if multi else f"{p:.4f}",
                    prob_multi=f"{p:.4f}" if multi else "",
                    tau_s="0.5000",
                    margin=f"{0.5 - p:.4f}",
                )
            else:
                s = r.uniform(0.40, 0.4599)
                d.update(
                    score_en=f"{s:.4f}",
                    score_multi="",
                    thr_en="0.4600",
                    thr_multi="",
                    margin=f"{0.46 - s:.4f}",
                )
            d.update(
                trigger="prompt", scope="agent", **base, query_tokens=str(round(len(text.split()) * 1.3))
            )
            self.emit(t, d)
        if self.pulls and r.random() < 0.06 and self.shown:
            wid = r.choice(list(self.shown))
            d = {
                "ts": ts_s(t + 1),
                "event": "way_pulled",
                "way": wid,
                "domain": wid.split("/")[0],
                "window": r.choice(("first_fire", "refire", "refire", "suppressed")),
                "scope": "agent",
                **base,
                "agent_id": "main",
                "token_position": str(th.position),
                "out_of_band": r.random() < 0.2,
                "stamped": r.random() < 0.85,
            }
            if r.random() < 0.3:
                d["epoch_distance"] = r.randint(1, 30)
            self.emit(t + 1, d)
        return bodies

    def judge_events(self, hs: int, cands: list[tuple[Way, str]]) -> list[tuple[Way, str]]:
        r, base = self.r, self.base()
        n = len(cands)
        if r.random() < 0.04:
            self.emit(
                hs,
                {
                    "ts": ts_s(hs),
                    "event": "gate_fallback",
                    "reason": "deadline",
                    "gate_ms": "1500",
                    "candidates": str(n),
                    "hook": "UserPromptSubmit",
                    "scope": "agent",
                    **base,
                },
            )
            self.judge_call(hs, n, fallback="deadline")
            return cands
        if r.random() < 0.01:
            self.emit(
                hs,
                {
                    "ts": ts_s(hs),
                    "event": "gate_capped",
                    "judged": "8",
                    "unjudged": "2",
                    "ways": "infra/ci,writing/docs-style",
                    "hook": "UserPromptSubmit",
                    "scope": "agent",
                    **base,
                },
            )
        allowed = []
        judge_ms = r.randint(180, 1300)
        gate_ms = judge_ms + r.randint(5, 60)
        for i, (w, channel) in enumerate(cands):
            p = r.betavariate(4, 1.6) if r.random() > 0.1 else r.uniform(0.02, 0.29)
            if self.long and i == 0:
                p = max(p, 0.31)  # the long session keeps one fire turn per prompt
            verdict = "pass" if p >= 0.30 else ("block" if self.judge == "enforce" else "would_block")
            self.emit(
                hs,
                {
                    "ts": ts_s(hs),
                    "event": "way_judged",
                    "way": w.id,
                    "p_yes": f"{p:.3f}",
                    "threshold": "0.30",
                    "verdict": verdict,
                    "mode": self.judge,
                    "engine": "anthropic",
                    "model": JUDGE_MODEL,
                    "judge_ms": str(judge_ms),
                    "gate_ms": str(gate_ms),
                    "candidates": str(n),
                    "hook": "UserPromptSubmit",
                    "scope": "agent",
                    **base,
                    "agent_id": "main",
                },
            )
            if verdict != "block":
                allowed.append((w, channel))
            elif w.id == "softwaredev/delivery" and r.random() < 0.5:
                self.emit(
                    hs,
                    {
                        "ts": ts_s(hs),
                        "event": "way_judged",
                        "way": "softwaredev/delivery/commits",
                        "p_yes": f"{p:.3f}",
                        "threshold": "0.30",
                        "verdict": "block",
                        "reason": "ancestor",
                        "ancestor": w.id,
                        "mode": self.judge,
                        "engine": "anthropic",
                        "model": JUDGE_MODEL,
                        "hook": "UserPromptSubmit",
                        "scope": "agent",
                        **base,
                        "agent_id": "main",
                    },
                )
        self.judge_call(hs, n)
        return allowed

    def judge_call(self, hs: int, n: int, fallback: str | None = None) -> None:
        r = self.r
        d = {"ts": ts_s(hs), "event": "judge_call", "outcome": "fallback" if fallback else "judged"}
        if fallback:
            d["reason"] = fallback
        inp, out = 380 + 210 * n + r.randint(0, 90), 6 * n + r.randint(0, 20)
        known = r.random() < 0.9 and not fallback
        d.update(
            engine="anthropic",
            provider="anthropic",
            model=JUDGE_MODEL,
            candidates=str(n),
            cost_source=("provider" if r.random() < 0.7 else "price_table") if known else "unknown",
        )
        if not fallback:
            d.update(
                input_tokens=str(inp), output_tokens=str(out), cache_read_tokens="0", cache_write_tokens="0"
            )
        if known:
            d["cost_usd"] = f"{inp * 1e-6 + out * 5e-6:.8f}"
        d.update(hook="UserPromptSubmit", scope="agent", project=self.project, session=self.sid)
        self.emit(hs, d)

    def scan_candidates(self, hs: int, semantic: list[Way]) -> None:
        r = self.r
        ways = [w.id for w in semantic] + [w.id for w in r.sample(SEMANTIC, 5)]
        top = list(dict.fromkeys(ways))[:5]
        cos = sorted((round(r.uniform(0.3, 0.75), 4) for _ in top), reverse=True)
        shares = [math.exp(x / 0.08) for x in cos]
        total = sum(shares) * 1.15
        cands = [
            {
                "way": w,
                "cosine": c,
                "share": round(s / total, 4),
                "margin": round(c - cos[i + 1], 4) if i + 1 < len(cos) else None,
            }
            for i, (w, c, s) in enumerate(zip(top, cos, shares, strict=True))
        ]
        self.emit(
            hs,
            {
                "ts": ts_s(hs),
                "event": "scan_candidates",
                "lane": r.choice(("en", "multi")),
                "basis": "single",
                "session": self.sid,
                "project": self.project,
                "sidecar": r.random() < 0.1,
                "candidates": cands,
            },
        )

    # tools ------------------------------------------------------------------------------------------
    def work(self, th: Thread, steps: int) -> None:
        r = self.r
        think = (not self.long or r.random() < 0.3) and r.random() < 0.7
        for i in range(steps):
            blocks: list[dict] = []
            if self.tx:
                if i == 0 and think:
                    thinking = self.p.text(r, r.randint(200, 700 if self.long else 2400))
                    blocks.append(formats.thinking_block(thinking, self.p.signature(r)))
                if r.random() < 0.4:
                    blocks.append(formats.text_block(self.p.text(r, r.randint(60, 500))))
            if not self.long and not th.agent and r.random() < 0.035 and len(self.subs) < 3:
                self.agent_step(th, blocks)
            else:
                self.tool_step(th, blocks)
        blocks = []
        if self.tx:
            if steps == 0 and think:
                thinking = self.p.text(r, r.randint(200, 700 if self.long else 2000))
                blocks.append(formats.thinking_block(thinking, self.p.signature(r)))
            size = r.randint(40, 300) if self.long else r.randint(80, 1800)
            blocks.append(formats.text_block(self.p.text(r, size)))
        self.respond(th, blocks, "end_turn")

    def tool_step(self, th: Thread, blocks: list[dict]) -> None:
        r, p, cwd = self.r, self.p, self.project
        tid = f"toolu_01{r.getrandbits(88):022x}"
        m, n = r.choice(MODULES), r.randint(1, 40)
        x = r.random()
        match = None  # (way, trigger, span)
        big = None
        if self.special and not th.agent and self.prompts >= 2:
            big, self.special = self.special_size, None
        if big:
            kind = "bash"
        elif x < 0.30:
            kind = "read"
        elif x < 0.50:
            kind = "edit"
        elif x < 0.60 and not self.long:
            kind = "write"
        elif x < 0.92:
            kind = "bash"
        else:
            kind = "grep"
        # file / command choice, possibly one a way matches
        if kind in ("read", "edit", "write"):
            if r.random() < 0.3:
                w = r.choice(FILE_WAYS)
                path = r.choice(w.files).format(m=m, n=n)
                match = (w, "file", RX[w.id]["files"].search(path).group(0))
            else:
                path = f"src/{m}/{r.choice(WORDS)}.py"
        if kind == "bash":
            if big:
                cmd = r.choice(
                    ("cat logs/ingest-full.log", "pytest -vv --durations=0", "journalctl -u api --no-pager")
                )
            elif r.random() < 0.3:
                w = r.choice(BASH_WAYS)
                c = r.choice(w.commands)
                cmd = {
                    "git commit -am": (
                        f"git commit -am '{r.choice(('feat', 'fix', 'refactor'))}({m}): {r.choice(WORDS)}'"
                    ),
                    "git commit -m": f"git commit -m 'fix({m}): {r.choice(WORDS)} {r.choice(WORDS)}'",
                    "git commit --amend -m": f"git commit --amend -m 'chore({m}): tidy'",
                    "make": f"make {r.choice(('test', 'build', 'lint'))}",
                    "terraform": "terraform plan -out tfplan",
                    "kubectl": f"kubectl rollout status deploy/{m}",
                    "printenv": "printenv | grep -i api_",
                    "env": "env | sort",
                }.get(c, c)
                match = (w, "bash", RX[w.id]["commands"].search(cmd).group(0))
                if r.random() < 0.3:
                    match = (w, r.choice(("semantic:bash:en", "semantic:bash:multi")), None)
            else:
                cmd = r.choice(
                    (
                        f"pytest -q tests/{m}",
                        f"rg -n {r.choice(WORDS)} src/{m}",
                        "git status --short",
                        f"python -m {m}.cli --dry-run",
                        f"ls src/{m}",
                        "git diff --stat",
                        f"ruff check src/{m}",
                    )
                )
        name = {"read": "Read", "edit": "Edit", "write": "Write", "bash": "Bash", "grep": "Grep"}[kind]
        inp: dict = {}
        if self.tx:  # payloads only where a transcript is written
            if kind == "bash":
                inp = {"command": cmd, "description": cmd.split()[0]}
            elif kind == "grep":
                inp = {"pattern": r.choice(WORDS), "path": cwd, "output_mode": "files_with_matches"}
            else:
                inp = {"file_path": f"{cwd}/{path}"}
                if kind == "edit":
                    inp.update(
                        old_string=p.code(r, r.randint(40, 300))[0],
                        new_string=p.code(r, r.randint(40, 400))[0],
                        replace_all=False,
                    )
                elif kind == "write":
                    inp["content"] = p.code(r, r.randint(8800, 17000))[0]
            blocks.append(formats.tool_use_block(tid, name, inp))
        tu = self.respond(th, blocks, "tool_use")
        th.tool_uses += 1
        self.epoch += 1
        self.adv(80, 400)
        self.progress(th, "PreToolUse", f"PreToolUse:{name}", tid)
        bodies = self.tool_events(self.ms // 1000, th, kind, match, cmd if kind == "bash" else "")
        if bodies:
            self.adv(100, 400)
            self.attach(th, "PreToolUse", f"PreToolUse:{name}", tid, bodies)
        self.adv(200, 3500)
        err = kind == "bash" and not big and r.random() < 0.08
        self.failures += err
        if self.tx:
            content = self.tool_result(th, kind, inp, tid, tu, err, big)
            th.pending += min(25_000, len(content) // 4) + r.randint(50, 400)
        else:
            th.pending += r.choice((60, 150, 300, 900, 2500, 4000, 12000 if r.random() < 0.15 else 500))
        if kind in ("edit", "write"):
            self.edited.append(path)
        if kind == "edit" and path.endswith(".py") and r.random() < 0.08 and not self.long:
            self.adv(100, 500)
            self.progress(th, "PostToolUse", "PostToolUse:Edit", tid)
            b = self.show_or_hold(self.ms // 1000, th, WAY["softwaredev/code/quality"], "postcheck")
            if b:
                self.adv(50, 300)
                self.attach(th, "PostToolUse", "PostToolUse:Edit", tid, [b])

    def tool_result(
        self, th: Thread, kind: str, inp: dict, tid: str, tu: str, err: bool, big: int | None
    ) -> str:
        """Write the tool_result line; the size class follows the mix of real transcripts."""
        r, p = self.r, self.p
        size = r.random() + (1 if self.long else 0)  # the long session stays lean
        if kind == "read":
            raw, num, start, count = p.code(r, r.randint(5000, 8800) if size < 0.65 else r.randint(300, 1200))
            content = num
            tur = formats.read_tool_result(
                inp["file_path"],
                raw,
                start_line=start,
                num_lines=count,
                total_lines=start + count + r.randint(0, 400),
            )
        elif kind == "edit":
            orig = p.code(r, r.randint(8000, 15000) if size < 0.55 else r.randint(200, 1400))[0]
            content, tur = formats.edit_tool_result(
                inp["file_path"],
                inp["old_string"],
                inp["new_string"],
                start=r.randint(1, 400),
                original_file=orig,
                order=ORDER,
            )
        elif kind == "write":
            content, tur = formats.write_tool_result(inp["file_path"], inp["content"])
        elif kind == "bash":
            if big:
                out = p.big_logs(max(1000, big // 2 - 2000))
            elif size < 0.185:
                out = p.logs(r, r.randint(48_000, 185_000))
            elif size < 0.235:
                out = p.logs(r, r.randint(5200, 9400))
            else:
                out = p.logs(r, r.randint(40, 1400))
            content, tur = formats.bash_tool_result(out, error=err)
        else:
            hits = [f"src/{r.choice(MODULES)}/{r.choice(WORDS)}.py" for _ in range(r.randint(0, 12))]
            content = f"Found {len(hits)} files\n" + "\n".join(hits)
            tur = formats.grep_tool_result(hits)
        self.put(
            th,
            formats.transcript_tool_result,
            formats.tool_result_block(tid, content, is_error=err),
            result=tur,
            assistant_uuid=tu,
            order=ORDER,
        )
        return content

    def tool_events(self, t: int, th: Thread, kind: str, match, command: str) -> list[str]:
        r = self.r
        bodies: list[str] = []
        if match is None:
            return bodies
        w, trigger, span = match
        if (kind == "edit" and w.id in CHECKS) and r.random() < 0.5:
            self.check(t, th, w, trigger)
            if w.id not in self.shown and not self.long:
                b = self.fire(t, th, w, "check-pull")
                if b:
                    bodies.append(b)
                return bodies
        if self.long:  # the long session keeps its fire turns to one per prompt
            if w.id in CHECKS and kind in ("read", "edit"):
                self.check(t, th, w, trigger)
            return bodies
        if th.agent and not w.scope_sub:
            return bodies
        if trigger.startswith("semantic:"):
            b = self.show_or_hold(t, th, w, trigger, score=r.uniform(0.5, 0.9), surface=command)
        else:
            b = self.show_or_hold(t, th, w, trigger, span=span)
        if b:
            bodies.append(b)
        return bodies

    def check(self, t: int, th: Thread, w: Way, trigger: str) -> None:
        r = self.r
        fc = self.check_fires.get(w.id, 0)
        dist = (
            min(30, self.epoch - self.way_epoch.get(w.id, 0))
            if w.id in self.way_epoch
            else min(30, self.epoch)
        )
        match = r.uniform(1.0, 2.6)
        eff = match * (math.log(dist + 1) + 1) / (fc + 1)
        self.check_fires[w.id] = fc + 1
        self.emit(
            t,
            {
                "ts": ts_s(t),
                "event": "check_fired",
                "check": w.id,
                "domain": w.domain,
                "trigger": trigger,
                "epoch": str(self.epoch),
                "way_epoch": str(self.way_epoch.get(w.id, 0)),
                "distance": str(dist),
                "fire_count": str(fc),
                "match_score": f"{match:.2f}",
                "effective_score": f"{eff:.2f}",
                "anchored": "true" if w.id in self.shown else "false",
                "scope": "subagent" if th.agent else "agent",
                "project": self.project,
                "session": self.sid,
            },
        )

    def agent_step(self, th: Thread, blocks: list[dict]) -> None:
        r = self.r
        tid = f"toolu_01{r.getrandbits(88):022x}"
        m = r.choice(MODULES)
        kind = r.choice(("Explore", "general-purpose", "Plan"))
        desc = f"Find {r.choice(WORDS)} handling in {m}"
        prompt = (
            f"List every place in src/{m} that builds or reads a {r.choice(WORDS)}, and note which ones "
            f"skip the {r.choice(WORDS)} check. Report file:line for each."
        )
        if self.tx:
            blocks.append(
                formats.agent_tool_use_block(
                    tid, description=desc, prompt=prompt, subagent_type=kind, order=ORDER
                )
            )
        tu = self.respond(th, blocks, "tool_use")
        agent = f"a{r.getrandbits(64):016x}"
        sub = Thread(self.envelope(agent), HAIKU, agent, r.randint(7000, 9000))
        self.subs.append((sub, formats.subagent_meta(agent_type=kind, description=desc, tool_use_id=tid)))
        began = self.ms
        self.adv(300, 900)
        hs = self.ms // 1000
        if self.subagents_off:
            self.emit(
                hs,
                {
                    "ts": ts_s(hs),
                    "event": "injection_suppressed",
                    "reason": "subagents_off",
                    "switch": r.choice(("session", "config")),
                    "lane": "subagent_start",
                    "agent": kind,
                    "scope": "subagent",
                    "project": self.project,
                    "session": self.sid,
                },
            )
        else:
            self.fire(hs, sub, WAY["softwaredev/code/navigation"], "task", minimal=True, scope="subagent")
        if self.tx:
            self.put(sub, formats.transcript_user, prompt, parent=None, order=ORDER)
        sub.pending += len(prompt) // 4
        self.work(sub, r.randint(2, 6))
        result = self.p.text(r, r.randint(300, 1500))
        dur = self.ms - began
        self.adv(200, 600)
        usage = formats.usage(4, sub.pending, sub.cached, r.randint(100, 900), breakdown=False)
        if self.tx:
            block, tur = formats.agent_tool_result(
                tid,
                result,
                agent_id=agent,
                total_tokens=sub.cached,
                tool_uses=sub.tool_uses,
                duration_ms=dur,
                usage=usage,
            )
            self.put(th, formats.transcript_tool_result, block, result=tur, assistant_uuid=tu, order=ORDER)
        th.pending += len(result) // 4 + 40

    # session flow -----------------------------------------------------------------------------------
    def session_start(self, hook_name: str) -> None:
        th = self.trunk
        self.adv(200, 900)
        t = self.ms // 1000
        self.emit(t, {"ts": ts_s(t), "event": "session_start", "project": self.project, "session": self.sid})
        self.shown.clear()
        self.ctx_state = 0
        self.epoch = 0
        self.way_epoch.clear()
        self.check_fires.clear()
        bodies = []
        if not self.long:
            self.progress(th, "SessionStart", hook_name, None)
            b = self.fire(t, th, WAY["meta/orientation"], "state")
            bodies.append(b)
            if self.team:
                self.fire(t, th, WAY["collaboration/teams"], "state", minimal=True, scope="teammate")
        self.adv(300, 900)
        self.attach(th, "SessionStart", hook_name, None, bodies, parent=HEAD if th.head else None)

    def compact(self, trigger: str) -> None:
        r, th = self.r, self.trunk
        self.adv(300, 1500)
        pre = th.cached + th.pending
        began = self.ms
        self.adv(20_000, 60_000)
        post = r.randint(9000, 16000)
        self.compaction(
            th,
            trigger,
            pre=pre,
            post=post,
            duration_ms=self.ms - began,
            summary=lambda: self.p.text(r, r.randint(2000, 6000)),
        )
        self.session_start("SessionStart:compact")

    def play(self, turns: int | None, byte_budget: int = 0) -> None:
        c = self.c
        f = None
        if self.tx:
            path = c.home / formats.transcript_path(self.project, self.sid)
            path.parent.mkdir(parents=True, exist_ok=True)
            c.transcript_files.append(path)
            f = open(path, "wb", buffering=1 << 20)  # noqa: SIM115
            self.trunk.lines.append(formats.transcript_permission_mode(self.sid))
        self.session_start("SessionStart:startup")
        n = 0
        while True:
            self.prompt_turn()
            n += 1
            if f is not None:
                self.flush(self.trunk, f)
            if turns is not None and n >= turns:
                break
            if turns is None and n >= 3 and self.bytes >= byte_budget and not self.special:
                break
        if f is not None:
            self.trunk.lines.append(formats.transcript_last_prompt(self.sid, self.last_prompt[:200]))
            self.flush(self.trunk, f)
            f.close()
            # Claude Code last wrote the file at the session's last line: newest-first reading
            # (importer/discovery.newest_first) goes by these mtimes, as on a real machine.
            written = BASE.timestamp() + self.ms / 1000
            os.utime(path, (written, written))
            for sub, meta in self.subs:
                path = c.home / formats.subagent_path(self.project, self.sid, sub.agent)
                path.parent.mkdir(parents=True, exist_ok=True)
                c.transcript_files.append(path)
                with open(path, "wb") as sf:
                    self.flush(sub, sf)
                sidecar = c.home / formats.subagent_path(self.project, self.sid, sub.agent, ".meta.json")
                sidecar.write_bytes(meta.encode())
                os.utime(path, (written, written))


# --------------------------------------------------------------------------------------------------------


def generate(home: Path, tier: str, *, seed: int = 0) -> CorpusInfo:
    """Write the corpus of `tier` into `home` (emptied first if it holds an earlier corpus)."""
    started = time.perf_counter()
    home = Path(home)
    if home.exists() and any(home.iterdir()):
        if not (home / MARKER).exists():
            raise SystemExit(f"refusing to overwrite {home}: not empty and not a bench corpus")
        for child in home.iterdir():
            shutil.rmtree(child) if child.is_dir() and not child.is_symlink() else child.unlink()
    home.mkdir(parents=True, exist_ok=True)
    (home / MARKER).write_text(f"tier={tier} seed={seed}\n")
    c = Corpus(home, TIERS[tier], seed)
    long_sid = c.run()
    missing = [t for t, hits in c.term_hits.items() if not hits]
    assert not missing, f"search terms never used in a prompt: {missing}"
    return c.finish(tier, long_sid, LONG_PROJECT, list(SEARCH_TERMS), started)


def one_session(home: Path, megabytes: int, *, seed: int = 0) -> CorpusInfo:
    """One ordinary session of about `megabytes` MiB of transcript (the line-size mix above, its
    subagents and its agent-ways events), and the way files it fires: a session that ran for weeks,
    with nothing else in the HOME (bench/rss.py --session-mb)."""
    started = time.perf_counter()
    home = Path(home)
    home.mkdir(parents=True, exist_ok=True)
    c = Corpus(home, TIERS["small"], seed)
    s = Session(c, 1, c.projects[0], TRANSCRIPT_SPAN[0] * 1000, transcript=True)
    s.play(None, byte_budget=megabytes << 20)
    return c.finish(f"one session of {megabytes} MiB", s.sid, s.project, [], started)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tier", choices=sorted(TIERS), default="small")
    ap.add_argument(
        "--out", type=Path, required=True, help="the HOME to write (emptied if it holds a corpus)"
    )
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    info = generate(args.out, args.tier, seed=args.seed)
    print(f"tier {info.tier} -> {info.home} in {info.seconds:.1f} s")
    print(
        f"  events:      {len(info.events_files)} files, {info.events_lines:,} lines, "
        f"{info.events_bytes / 2**20:,.1f} MiB uncompressed"
    )
    print(
        f"  transcripts: {len(info.transcript_files)} files, {info.transcript_lines:,} lines, "
        f"{info.transcript_bytes / 2**20:,.1f} MiB"
    )
    print(f"  long session {info.long_session_id} in {info.long_session_project}")
    print(f"  search terms: {', '.join(info.search_terms)}")


if __name__ == "__main__":
    main()
