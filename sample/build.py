#!/usr/bin/env python3
"""Build the waysweb sample HOME: agent-ways logs, way files, Claude Code transcripts, ledgers, knowledge, ADRs.

    uv run python sample/build.py [--out DIR]

Deterministic: one ``random.Random(SEED)``, fixed timestamps, gzip members written with mtime 0
and a fixed file name. The default output, ``sample/home``, is wiped and rewritten. What the sample
holds is described in sample/README.md. Every file is serialised by sample/formats.py, the writers
bench/corpus.py shares (formats-agent-ways.md, formats-claude-code.md and knowledge-and-records.md:
ADR-112 session ledger, majordomus knowledge records and ledger.jsonl, ADR formats); this file holds
only the storyline.
"""

# ruff: noqa: E501  (long literal transcript content)
from __future__ import annotations

import argparse
import hashlib
import math
import random
import re
import shutil
import string
import sys
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

# `uv run python sample/build.py` puts sample/ first on sys.path; the writers are imported as a package
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sample import formats

SEED = 20261105
DEFAULT_OUT = Path(__file__).resolve().parent / "home"

STATE = formats.EVENTS_DIR
LEGACY = formats.LEGACY_EVENTS
CORE = formats.CORE_WAYS
USER = formats.USER_WAYS

PROJECTS = {
    "api": "/home/dev/src/api-server",
    "web": "/home/dev/src/web-ui",
    "infra": "/home/dev/src/infra",
    "notes": "/home/dev/notes",
}

OPUS = "claude-opus-4-6"
SONNET = "claude-sonnet-4-6"
HAIKU = "claude-haiku-4-5-20251001"
JUDGE_MODEL = "claude-haiku-4-5"

# Archive routing (formats-agent-ways.md §2-§3): the live log keeps lines from LIVE_FROM on; older
# lines were appended to the archive of the day they were removed. Lines of the newest archive
# from OVERLAP_FROM on are also still in the live file (rotation overlap). judge_call lines are
# never archived (they stay in the live log whatever their age).
ARCHIVES = [
    ("events-2026-11-03.jsonl.gz", 0, datetime(2026, 11, 2, 12, 0, tzinfo=UTC)),
    ("events-2026-11-03.jsonl.gz", 1, datetime(2026, 11, 2, 13, 20, tzinfo=UTC)),
    ("events-2026-11-04.jsonl.gz", 0, datetime(2026, 11, 3, 18, 0, tzinfo=UTC)),
    ("events-2026-11-06.jsonl.gz", 0, datetime(2026, 11, 5, 0, 0, tzinfo=UTC)),
]
LIVE_FROM = ARCHIVES[-1][2]
OVERLAP_FROM = datetime(2026, 11, 4, 17, 25, 30, tzinfo=UTC)

AUTO = "auto"  # matched_span computed from the way's criteria
P, S, A, TP = "$project", "$session", "$agent", "$position"  # placeholders in EV() fields


def T(day: int, h: int, m: int, s: int = 0) -> datetime:
    return datetime(2026, 11, day, h, m, s, tzinfo=UTC)


def sec(dt: datetime) -> str:
    return dt.strftime("%Y-%m-%dT%H:%M:%SZ")


def msec(dt: datetime) -> str:
    return dt.strftime("%Y-%m-%dT%H:%M:%S.") + f"{dt.microsecond // 1000:03d}Z"


def floor_s(dt: datetime) -> datetime:
    return dt.replace(microsecond=0)


def domain(way: str) -> str:
    return way.split("/")[0]


# --------------------------------------------------------------------------------------------
# Way files (formats-agent-ways.md §10)
# --------------------------------------------------------------------------------------------

WAYS: list[tuple[str, str, str]] = []  # (root, relative path, text)


def way(root: str, way_id: str, front: str, body: str) -> None:
    WAYS.append((root, formats.way_path(way_id), formats.way_file(front, body)))


def side(root: str, rel: str, text: str) -> None:
    WAYS.append((root, rel, text if text.endswith("\n") else text + "\n"))


way(
    CORE,
    "softwaredev/delivery",
    r"""
description: shipping work end to end, from a finished change to a merged and released one
vocabulary: ship deliver merge release handoff done version tag
refire: rare
scope: agent
""",
    """
# Delivery Way

Delivery is the path from "works on my machine" to "merged and released".

- Finish the change before packaging it: tests green, no stray debug output.
- One logical change per commit, one pull request per reviewable unit.
- Say what is left undone in the handoff instead of hiding it.
""",
)

way(
    CORE,
    "softwaredev/delivery/commits",
    r"""
description: git commit messages, conventional commits, atomic changes
vocabulary: commit message conventional feat fix refactor scope atomic squash amend
pattern: \bcommit\b
commands: git\ commit
refire: 0.15
scope: agent, subagent
""",
    """
# Git Commits Way

- `feat(scope): …`, `fix(scope): …`, `docs`, `refactor`, `test`, `chore`.
- Keep commits atomic: one logical change per commit.
- Write the message about the why, not the what; the diff shows the what.
- No emoji trailers, no generated co-author lines.
""",
)
side(
    CORE,
    "softwaredev/delivery/commits/commits.golden.jsonl",
    '{"kind":"direct","prompt":"write a commit message for the staged changes"}\n'
    '{"kind":"situational","prompt":"split these unrelated edits into separate tidy history entries"}\n',
)

way(
    USER,
    "softwaredev/delivery/commits",
    r"""
description: my commit conventions, conventional commits with ticket ids, signed commits
vocabulary: commit message conventional ticket signoff sign feat fix chore squash amend
pattern: \b(commit|squash)\b
commands: git\ (commit|rebase\ -i)
refire: 0.2
scope: agent, subagent
""",
    """
# Commits (personal conventions)

Overrides the shipped commits way on this machine.

- Subject `type(scope): summary`, imperative, at most 72 characters.
- Ticket id in the footer: `Refs: API-123`.
- Sign every commit (`git commit -S`); never `--no-verify`.
- Squash fixups before asking for review, not after.
""",
)

way(
    CORE,
    "softwaredev/delivery/pull-requests",
    r"""
description: opening and updating pull requests, PR descriptions, review requests
vocabulary: pull request pr review reviewer description draft approve gh
pattern: \bpull request\b
commands: gh\ pr\ (create|edit|merge)
refire: normal
""",
    """
# Pull Requests Way

- Title says what changes for a user; the body says why and how to test it.
- Link the issue or ADR the change implements.
- Open as draft while CI is red; request review only when it is green.
""",
)

way(
    CORE,
    "softwaredev/code/testing",
    r"""
description: writing and running unit tests, fixtures, golden files, test failures
vocabulary: test tdd unit golden fixture assert pytest vitest coverage flaky mock
pattern: \bunit tests?\b|\bwrite (a|the) tests?\b
files: (^|/)tests?/.*\.(py|tsx?)$
refire: 0.2
scope: agent, subagent
""",
    """
# Testing Way

- Write the failing test first and watch it fail for the right reason.
- One behaviour per test; name the test after the behaviour.
- Prefer real objects and `tmp_path` over mocks; mock only at process boundaries.
- A flaky test is a bug: quarantine it with an issue link, never retry it silently.
""",
)
side(
    CORE,
    formats.way_path("softwaredev/code/testing", check=True),
    formats.way_file(
        r"""
description: verify a new test exercises the behaviour it names before it is written
vocabulary: assert expect mock patch fixture snapshot parametrize
files: (^|/)tests?/.*\.(py|tsx?)$
threshold: 2.0
scope: agent, subagent
""",
        """
## anchor
A test that cannot fail protects nothing.

## check
Before writing this test:
- Does it fail without the change it is meant to cover?
- Does it assert on behaviour, not on a mock's call list?
- Would its name tell a reader what broke when it goes red?
""",
    ),
)

way(
    CORE,
    "softwaredev/code/quality",
    r"""
description: code quality after an edit, lint and type errors, dead code, naming
vocabulary: lint ruff eslint mypy typecheck naming complexity dead unused
files: \.(py|ts|tsx)$
refire: frequent
""",
    """
# Code Quality Way

The post-edit check found something worth a second look.

- Fix lint and type errors in the lines you touched before moving on.
- Delete dead code instead of commenting it out.
- Rename while the meaning is fresh; a wrong name costs every later reader.
""",
)
side(
    CORE,
    "softwaredev/code/quality/postcheck.sh",
    """#!/bin/sh
# Runs after Edit/Write; prints the way id when the edited file has lint findings.
file="$1"
case "$file" in
  *.py) ruff check --quiet "$file" >/dev/null 2>&1 || echo softwaredev/code/quality ;;
  *.ts|*.tsx) npx --no-install eslint --quiet "$file" >/dev/null 2>&1 || echo softwaredev/code/quality ;;
esac
""",
)

way(
    CORE,
    "softwaredev/code/debugging",
    r"""
description: systematic debugging when a fix keeps failing, reproducing, bisecting
vocabulary: debug bisect reproduce stack trace regression failing again root cause
trigger:
  type: attend
  signals: [repeated-failure, frustration]
refire: 0.3
""",
    """
# Debugging Way

The same failure came back. Stop patching and get a reproduction.

1. Reproduce with the smallest command you can; write it down.
2. Read the whole error, including the first frame in your own code.
3. Change one thing at a time; if two attempts fail, bisect instead of guessing.
""",
)

way(
    CORE,
    "softwaredev/code/navigation",
    r"""
description: exploring an unfamiliar codebase, finding where something is defined or used
vocabulary: where defined find usage callers entrypoint module layout explore
scope: subagent
refire: normal
""",
    """
# Navigation Way

- Start from the entry points (`main`, app factory, routes) and follow calls down.
- Report file paths with line numbers so the parent can open them directly.
- Say what you did not look at.
""",
)

way(
    CORE,
    "softwaredev/docs/adr",
    r"""
description: architecture decision records, writing an ADR, superseding a decision
vocabulary: adr decision record context consequences supersede status accepted proposed
pattern: \bADRs?\b|architecture decision
files: docs/adr/.*\.md$
embed_threshold: 0.42
refire: 0.25
""",
    """
# ADR Way

- One decision per record: Context, Decision, Consequences, Status.
- Number records sequentially under `docs/adr/`; never renumber.
- Supersede instead of editing an accepted decision; link both ways.
""",
)

way(
    CORE,
    "softwaredev/docs/readme",
    r"""
description: README files: install steps, usage, badges
vocabulary: readme install usage quickstart badge
pattern: \bREADME\b
refire: [0.3
""",
    """
# README Way

- The first screen answers: what is it, how do I install it, how do I run it.
- Keep commands copy-pasteable and tested.
""",
)

way(
    CORE,
    "softwaredev/architecture/design",
    r"""
description: software design trade-offs, module boundaries, interfaces, coupling
vocabulary: design architecture boundary interface coupling cohesion layer abstraction tradeoff
refire: 0.25
""",
    """
# Design Way

- Name the forces first (load, change rate, team boundaries), then the options.
- Put a boundary where things change for different reasons.
- Write down the option you rejected and why; the next person will propose it again.
""",
)

way(
    CORE,
    "collaboration/teams",
    r"""
description: working as one agent of a team, handoffs, shared task lists
vocabulary: team teammate handoff coordinate lead shared task
trigger: session-start
scope: teammate
refire: once
""",
    """
# Teams Way

You are one member of a team. Claim a task before starting it, post a short handoff when you
stop, and ask the lead before touching another member's files.
""",
)

way(
    CORE,
    "meta/context",
    r"""
trigger: context-threshold
threshold: 75
macro: prepend
refire: once
""",
    """
# Context Way

The context window is three quarters full.

- Summarise decisions so far in a few lines before continuing.
- Prefer targeted reads (line ranges, grep) over whole files.
- Finish the current step before starting anything new.
""",
)
side(
    CORE,
    "meta/context/macro.sh",
    """#!/bin/sh
# Prepends the current context usage to the way body.
printf 'Context in use: %s tokens\\n' "${WAYS_TOKEN_POSITION:-unknown}"
""",
)

way(
    CORE,
    "meta/orientation",
    r"""
trigger: session-start
refire: once
""",
    """
# Orientation

Read the project's CLAUDE.md and the newest ADRs before changing code. Ask when a request is
ambiguous; do not guess at intent.
""",
)

way(
    CORE,
    "security/secrets",
    r"""
description: handling secrets, API keys, tokens and credentials safely
vocabulary: secret token apikey credential password dotenv vault leak rotate
commands: \b(printenv|env)\b|cat\ .*\.env
files: (^|/)\.env(\..*)?$|secrets?\.ya?ml$
refire: 0.1
scope: agent, subagent
""",
    """
# Secrets Way

- Never print a secret into the conversation; print its name and length instead.
- Secrets live in the vault or `.env` (git-ignored), never in code or tests.
- A leaked key is rotated first and investigated second.
""",
)

way(
    CORE,
    "build",
    r"""
description: building the project, build tools, compile errors, packaging
vocabulary: build compile make cargo npm vite bundle package artifact
commands: \b(make|npm\ run\ build|vite\ build|uv\ build|cargo\ build)\b
refire: normal
""",
    """
# Build Way

- Build the way CI builds (`make`, `npm run build`), not with a one-off command.
- Read the first compiler error, not the last.
- Never commit build artifacts.
""",
)

way(
    USER,
    "writing/notes",
    r"""
description: keeping personal notes, weekly reviews, zettel links, Notizen und Wochenrückblick
vocabulary: note notes weekly review zettel link inbox journal notiz wochenrückblick
files: \.md$
when:
  project: /home/dev/notes
refire: normal
""",
    """
# Notes Way

- One idea per note; link notes instead of nesting them.
- Inbox items are processed weekly: file, link or delete.
- Notizen dürfen deutsch oder englisch sein; Dateinamen bleiben ASCII.
""",
)

way(
    USER,
    "infra/terraform",
    r"""
description: terraform plans and applies, state, modules, drift
vocabulary: terraform plan apply state module provider drift tfvars
commands: terraform\ (plan|apply|destroy)
files: \.tf$
when:
  project: /home/dev/src/infra
refire: 0.2
""",
    """
# Terraform Way

- Always `terraform plan -out` and apply that plan file; never apply blind.
- Treat drift as a bug report: find who changed it before overwriting it.
- Modules pin provider versions; the root module pins Terraform itself.
""",
)

side(
    CORE,
    "softwaredev/README.md",
    """# Software development ways

Ways for writing, testing and shipping code. Each way lives in its own directory.
""",
)

UNKNOWN_WAY = "softwaredev/delivery/changelog"  # fired in S04, no way file today (renamed upstream)


def _criteria() -> dict[str, dict[str, str]]:
    """way id -> flat criteria of the winning root (user shadows core), for spans and bodies."""
    out: dict[str, dict[str, str]] = {}
    for root in (USER, CORE):
        for r, rel, text in WAYS:
            if r != root or not rel.endswith(".md") or ".check." in rel or not text.startswith("---\n"):
                continue
            wid = rel.rsplit("/", 1)[0]
            if wid in out:
                continue
            front, _, body = text[4:].partition("\n---\n")
            crit = {"body": body.strip()}
            for line in front.splitlines():
                m = re.match(r"^(pattern|commands|files): (.*)$", line)
                if m:
                    crit[m.group(1)] = m.group(2)
            out[wid] = crit
    return out


CRITERIA = _criteria()
CRITERIA[UNKNOWN_WAY] = {
    "body": "# Changelog Way\n\nAdd an entry under Unreleased for every user-visible change.",
    "pattern": r"\bchangelog\b",
}


# --------------------------------------------------------------------------------------------
# Event specs (formats-agent-ways.md §6)
# --------------------------------------------------------------------------------------------


def F(way_id, trigger, score=None, *, span=AUTO, dt=0, inject=True, **extra):
    return dict(
        ev="way_fired", way=way_id, trigger=trigger, score=score, span=span, dt=dt, inject=inject, **extra
    )


def RD(way_id, trigger, score=None, *, dt=0, **extra):
    return dict(
        ev="way_redisclosed", way=way_id, trigger=trigger, score=score, span=None, dt=dt, inject=True, **extra
    )


def SUP(way_id, trigger, reason, kind="way", dt=0):
    return dict(ev="way_suppressed", way=way_id, trigger=trigger, reason=reason, kind=kind, dt=dt)


def GATED(way_id, *, dt=0, old=None, **probs):
    return dict(ev="way_keyword_gated", way=way_id, dt=dt, old=old, probs=probs)


def NEAR(way_id, *, dt=0, old=None, **probs):
    return dict(ev="way_nearmiss", way=way_id, dt=dt, old=old, probs=probs)


def EV(event, *, dt=0, **fields):
    return dict(ev=event, fields=fields, dt=dt)


def CHECK(check, trigger, epoch, way_epoch, distance, fire_count, match, anchored, dt=0):
    eff = match * (math.log(distance + 1) + 1) / (fire_count + 1)
    return EV(
        "check_fired",
        dt=dt,
        check=check,
        domain=domain(check),
        trigger=trigger,
        epoch=str(epoch),
        way_epoch=str(way_epoch),
        distance=str(distance),
        fire_count=str(fire_count),
        match_score=f"{match:.2f}",
        effective_score=f"{eff:.2f}",
        anchored=anchored,
        scope="agent",
        project=P,
        session=S,
    )


def JUDGED(way_id, p_yes, verdict, *, mode="enforce", judge_ms="412", gate_ms="430", candidates="3", dt=0):
    return EV(
        "way_judged",
        dt=dt,
        way=way_id,
        p_yes=p_yes,
        threshold="0.30",
        verdict=verdict,
        mode=mode,
        engine="anthropic",
        model=JUDGE_MODEL,
        judge_ms=judge_ms,
        gate_ms=gate_ms,
        candidates=candidates,
        hook="UserPromptSubmit",
        scope="agent",
        project=P,
        session=S,
        agent_id=A,
    )


def JUDGE_CALL(
    *,
    cost=None,
    outcome="judged",
    reason=None,
    candidates="3",
    tokens=(612, 38, 0, 0),
    dt=0,
    source=None,
    numeric=False,
):
    f = {"outcome": outcome}
    if reason:
        f["reason"] = reason
    f.update(
        engine="anthropic",
        provider="anthropic",
        model=JUDGE_MODEL,
        candidates=candidates,
        cost_source=source or ("provider" if cost else "unknown"),
    )
    if tokens:
        conv = int if numeric else str
        f.update(
            input_tokens=conv(tokens[0]),
            output_tokens=conv(tokens[1]),
            cache_read_tokens=conv(tokens[2]),
            cache_write_tokens=conv(tokens[3]),
        )
    if cost:
        f["cost_usd"] = cost
    f.update(hook="UserPromptSubmit", scope="agent", project=P, session=S)
    return EV("judge_call", dt=dt, **f)


# --------------------------------------------------------------------------------------------
# Build state
# --------------------------------------------------------------------------------------------

B62 = string.digits + string.ascii_letters


class Home:
    def __init__(self) -> None:
        self.rng = random.Random(SEED)
        self.events: list[dict] = []  # {dt, sort, seq, line, dest, session, d}
        self.files: dict[str, bytes] = {}
        self.sessions: list[Session] = []

    # ids ---------------------------------------------------------------------------------
    def uuid(self) -> str:
        return str(uuid.UUID(int=self.rng.getrandbits(128), version=4))

    def b62(self, n: int) -> str:
        return "".join(self.rng.choice(B62) for _ in range(n))

    def hexs(self, n: int) -> str:
        return "".join(self.rng.choice("0123456789abcdef") for _ in range(n))

    # events ------------------------------------------------------------------------------
    def log(self, dt: datetime, d: dict, *, dest=None, late=0, session=None, raw_ts=None) -> None:
        if raw_ts:
            d["ts"] = raw_ts
        self.events.append(
            dict(
                dt=dt,
                sort=dt + timedelta(seconds=late),
                seq=len(self.events),
                d=d,
                line=formats.events_line(**d),
                dest=dest,
                session=session,
            )
        )

    def put_text(self, rel: str, text: str) -> None:
        assert text.endswith("\n"), rel
        self.files[rel] = text.encode()

    def put_jsonl(self, rel: str, lines: list[str]) -> None:
        self.put_text(rel, formats.jsonl(lines))


def gz_member(name: str, lines: list[str]) -> bytes:
    """An archive member named like the file it was rotated into, minus `.gz`, as GzipFile names it."""
    return formats.gzip_member(formats.jsonl(lines).encode(), name=name.removesuffix(".gz"))


# --------------------------------------------------------------------------------------------
# Sessions
# --------------------------------------------------------------------------------------------

CODE = {
    ".py": [
        "from __future__ import annotations",
        "",
        "import time",
        "from dataclasses import dataclass",
        "",
        "",
        "@dataclass",
        "class Bucket:",
        "    capacity: int",
        "    tokens: float",
        "    updated: float",
        "",
        "    def take(self, now: float) -> bool:",
        "        self.refill(now)",
        "        if self.tokens < 1:",
        "            return False",
        "        self.tokens -= 1",
        "        return True",
    ],
    ".tsx": [
        'import { useState } from "react";',
        'import { useSession } from "../hooks/useSession";',
        "",
        "export function LoginForm() {",
        '  const [email, setEmail] = useState("");',
        "  const { login, error } = useSession();",
        "  return (",
        "    <form onSubmit={() => login(email)}>",
        "      <input value={email} onChange={(e) => setEmail(e.target.value)} />",
        '      {error && <p role="alert">{error}</p>}',
        "    </form>",
        "  );",
        "}",
    ],
    ".ts": [
        "export async function request(path: string, init?: RequestInit) {",
        '  const res = await fetch(`/api${path}`, { credentials: "include", ...init });',
        "  if (res.status === 401) throw new SessionExpired();",
        "  return res.json();",
        "}",
    ],
    ".tf": [
        'module "db" {',
        '  source         = "./modules/db"',
        "  instance_class = var.db_instance_class",
        '  engine_version = "16.4"',
        "  multi_az       = true",
        "}",
    ],
    ".md": [
        "# Woche 45",
        "",
        "## Inbox",
        "- [ ] Umzugskartons bestellen",
        "- [ ] ADR zu Rate Limiting lesen",
        "",
        "## Notizen",
        "- Gespräch mit Jana über das Onboarding",
    ],
    ".yaml": [
        "apiVersion: apps/v1",
        "kind: Deployment",
        "metadata:",
        "  name: api-server",
        "spec:",
        "  replicas: 3",
    ],
    ".env": [
        "# copy to .env and fill in",
        "API_BASE_URL=http://localhost:8000",
        "API_SIGNING_KEY=",
        "REDIS_URL=redis://localhost:6379/0",
    ],
    ".toml": ["[project]", 'name = "api-server"', 'version = "2.4.0"', 'requires-python = ">=3.12"'],
    ".json": [
        "{",
        '  "name": "web-ui",',
        '  "scripts": {',
        '    "build": "vite build",',
        '    "test": "vitest run"',
        "  }",
        "}",
    ],
}


def ext(path: str) -> str:
    if re.search(r"(^|/)\.env", path):
        return ".env"
    m = re.search(r"(\.[a-z]+)$", path)
    return m.group(1) if m and m.group(1) in CODE else ".md"


class Thread:
    """One transcript file: the trunk or a subagent."""

    def __init__(self, sess: Session, model: str, agent: str | None = None) -> None:
        self.s = sess
        self.model = model
        self.agent = agent
        self.lines: list[str] = []
        self.parent: str | None = None
        self.cached = 0
        self.pending = sess.h.rng.randint(14000, 19000) if agent is None else sess.h.rng.randint(7000, 9000)
        self.position = 0
        self.tool_uses = 0
        self.earliest: datetime | None = None  # its first timestamp: when a majordomus episode opened


class Session:
    def __init__(
        self,
        h: Home,
        key: str,
        project: str,
        start: datetime,
        *,
        gen: str | None,
        model=OPUS,
        version="2.1.180",
        branch="main",
        transcript=True,
        heavy=1.0,
        base=None,
        note="",
    ) -> None:
        self.h = h
        self.rng = h.rng
        self.key = key
        self.sid = h.uuid()
        self.project = PROJECTS[project]
        self.cwd = self.project
        self.clock = start.replace(microsecond=h.rng.randint(0, 999) * 1000)
        self.gen = gen  # "pre1" | "old" | "new" | None (no agent-ways events)
        self.version = version
        self.branch = branch
        self.write_transcript = transcript
        self.heavy = heavy
        self.note = note
        self.trunk = Thread(self, model)
        if base:
            self.trunk.pending = base
        self.subs: list[tuple[Thread, dict]] = []
        self.prompts = 0
        self.compactions = 0
        self.ctx_state = 0
        self.prompt_id = None
        self.human_slug = "-".join(
            h.rng.choice(w)
            for w in (
                ["quiet", "lexical", "amber", "brisk", "silver", "hidden", "patient", "velvet"],
                ["painting", "harbor", "lantern", "meadow", "circuit", "orchard", "compass", "ember"],
                ["whisper", "falcon", "river", "summit", "thistle", "beacon", "willow", "pebble"],
            )
        )
        self.dest = None  # default event destination override ("legacy")
        self.turn_start = None
        self.title_done = False
        self.turn_ends: dict[
            int, tuple[datetime, int]
        ] = {}  # prompt index -> (end of its turn, trunk position)
        self.compaction_starts: list[tuple[datetime, int]] = []  # (PreCompact time, preTokens)
        h.sessions.append(self)

    # clock -------------------------------------------------------------------------------
    def adv(self, lo: int, hi: int) -> None:
        self.clock += timedelta(milliseconds=self.rng.randint(lo, hi))

    # transcript lines --------------------------------------------------------------------
    def env(self, th: Thread) -> dict:
        return formats.envelope(
            cwd=self.cwd,
            session_id=self.sid,
            version=self.version,
            git_branch=self.branch,
            slug=self.human_slug,
            agent_id=th.agent,
        )

    def put(self, th: Thread, write, *args, parent="chain", **fields) -> str:
        """Append the line `write` makes for `th` now; it becomes the head of the chain. The writer's first
        argument is the chain head (a compact_boundary's logical parent), unless `parent` says otherwise."""
        u = self.h.uuid()
        head = th.parent if parent == "chain" else parent
        th.lines.append(write(head, self.env(th), *args, uuid=u, timestamp=msec(self.clock), **fields))
        th.parent = u
        th.earliest = self.clock if th.earliest is None else min(th.earliest, self.clock)
        return u

    def user(self, th: Thread, content, **extra) -> str:
        return self.put(th, formats.transcript_user, content, extra=extra or None)

    def attach(
        self, th: Thread, hook_event: str, hook_name: str, tool_use_id: str, bodies: list[str], parent="chain"
    ) -> str:
        return self.put(
            th,
            formats.transcript_attachment,
            parent=parent,
            hook_event=hook_event,
            hook_name=hook_name,
            tool_use_id=tool_use_id,
            content=bodies,
        )

    def respond(self, th: Thread, blocks: list[dict], stop: str) -> str:
        self.adv(1500, 6500)
        inp = self.rng.randint(1, 9)
        cr, cc = th.cached, th.pending
        text = sum(
            len(b.get("text", "") or b.get("thinking", "") or formats.dumps(b.get("input", "")))
            for b in blocks
        )
        out = max(12, text // 4 + self.rng.randint(8, 90))
        usage = formats.usage(inp, cc, cr, out)
        mid, rid = "msg_01" + self.h.b62(22), "req_011C" + self.h.b62(20)
        last = ""
        for i, b in enumerate(blocks):
            if i:
                self.adv(40, 900)
            last = self.put(
                th,
                formats.transcript_assistant,
                b,
                model=th.model,
                message_id=mid,
                request_id=rid,
                stop_reason=stop if i == len(blocks) - 1 else None,
                usage=usage,
            )
        th.position = inp + cr + cc
        th.cached, th.pending = cr + cc + inp + out, 0
        return last

    # events ------------------------------------------------------------------------------
    def span(self, sp: dict, ctx: dict) -> str | None:
        if sp.get("span") is None or self.gen == "pre1":
            return None
        if sp["span"] != AUTO:
            return sp["span"]
        key = {"keyword": ("pattern", "prompt"), "bash": ("commands", "cmd"), "file": ("files", "path")}.get(
            sp["trigger"]
        )
        if not key:
            return None
        rx, field = CRITERIA[sp["way"]][key[0]], ctx.get(key[1], "")
        m = re.search(rx, field, re.I)
        assert m and m.group(0), (self.key, sp["way"], rx, field)
        return m.group(0)

    @staticmethod
    def surface(ctx: dict) -> str:
        text = " ".join((ctx.get("cmd") or ctx.get("prompt") or "").split())
        return text if len(text) <= 200 else text[:200] + "…"

    def render(self, sp: dict, dt: datetime, th: Thread, ctx: dict) -> dict:
        ev = sp["ev"]
        d: dict = {"ts": sec(dt), "event": ev}
        agent_id = th.agent or "main"
        scope = sp.get("scope") or ("subagent" if th.agent else "agent")
        if ev in ("way_fired", "way_redisclosed"):
            w, trig = sp["way"], sp["trigger"]
            d.update(
                way=w, domain=domain(w), trigger=trig, scope=scope, project=self.project, session=self.sid
            )
            if sp.get("minimal"):  # state repeats, subagent dispatch, teammate rows
                for k in ("agent_id", "team"):
                    if sp.get(k):
                        d[k] = agent_id if sp[k] is True else sp[k]
                return d
            if self.gen != "pre1":
                d["token_position"] = str(th.position)
            if self.gen == "new":
                d["model"] = th.model
                d["agent_id"] = agent_id
            if trig.startswith("semantic:"):
                sc = sp["score"]
                d["fire_score"] = sc if isinstance(sc, str) else f"{sc:.4f}"
                d["surface"] = self.surface(ctx)
            if ev == "way_fired":
                span = self.span(sp, ctx)
                if span:
                    d["matched_span"] = span
            for k in ("parent", "tree_depth", "epoch_distance", "team"):
                if k in sp:
                    d[k] = sp[k]
            if sp.get("numeric"):  # a writer that emitted JSON numbers
                d["token_position"] = int(d["token_position"])
                if "fire_score" in d:
                    d["fire_score"] = float(d["fire_score"])
            return d
        if ev == "way_suppressed":
            w = sp["way"]
            d.update(
                kind=sp["kind"],
                way=w,
                domain=domain(w),
                trigger=sp["trigger"],
                reason=sp["reason"],
                scope=scope,
                project=self.project,
                session=self.sid,
                agent_id=agent_id,
            )
            return d
        if ev in ("way_nearmiss", "way_keyword_gated"):
            w, pr = sp["way"], sp["probs"]
            d.update(way=w, corpus_id=w, domain=domain(w))
            if ev == "way_keyword_gated":
                d["matched_span"] = self.span(dict(way=w, trigger="keyword", span=AUTO), ctx)
            d.update(pr)
            if ev == "way_nearmiss":
                if "tau_s" in pr:
                    best = max(float(v) for k, v in pr.items() if k.startswith("prob_") and v)
                    d["margin"] = f"{float(pr['tau_s']) - best:.4f}"
                else:
                    d["margin"] = f"{float(pr['thr_en']) - float(pr['score_en']):.4f}"
            d.update(trigger="prompt", scope="agent", project=self.project, session=self.sid)
            if ev == "way_nearmiss":
                d["query_tokens"] = str(round(len(ctx.get("prompt", "").split()) * 1.3))
            elif not sp["old"]:
                d["token_position"] = str(th.position)
            return d
        subst = {P: self.project, S: self.sid, A: agent_id, TP: str(th.position)}
        for k, v in sp["fields"].items():
            d[k] = subst.get(v, v) if isinstance(v, str) else v
        return d

    def hook(self, specs, th: Thread, ctx: dict) -> list[str]:
        base = floor_s(self.clock)
        bodies, extra = [], 0
        for sp in specs:
            dt = base + timedelta(seconds=sp.get("dt", 0))
            extra = max(extra, sp.get("dt", 0))
            d = self.render(sp, dt, th, ctx)
            self.h.log(
                dt,
                d,
                dest=sp.get("dest", self.dest),
                late=sp.get("late", 0),
                session=self.sid,
                raw_ts=sp.get("raw_ts"),
            )
            if sp.get("dup_legacy"):
                self.h.log(dt, d, dest="legacy", session=self.sid)
            if sp["ev"] in ("way_fired", "way_redisclosed") and sp.get("inject"):
                body = CRITERIA[sp["way"]]["body"]
                if sp["way"] == "meta/context":
                    bodies.insert(0, f"Context in use: {th.position} tokens\n\n{body}")
                else:
                    bodies.append(body)
        self.clock += timedelta(seconds=extra)
        return bodies

    # session flow ------------------------------------------------------------------------
    def start(self, fires=None, *, start_dest=None, dup_legacy=False) -> None:
        """SessionStart: clear-markers.sh logs session_start; session-start ways fire (state)."""
        th = self.trunk
        th.lines.append(formats.transcript_permission_mode(self.sid))
        if not self.gen:
            return
        first = EV("session_start", project=P, session=S)
        if start_dest:
            first["dest"] = start_dest
        first["dup_legacy"] = dup_legacy
        if fires is None:
            fires = [] if self.gen == "pre1" else [F("meta/orientation", "state")]
        bodies = self.hook([first, *fires], th, {})
        self.adv(300, 900)
        if bodies:
            self.attach(th, "SessionStart", "SessionStart:startup", self.h.uuid(), bodies, parent=None)

    def prompt(
        self, text: str, fires=(), steps=(), *, gap=None, think=None, answer=None, interrupt=False, at=None
    ) -> None:
        th = self.trunk
        if at is not None:
            self.clock = at
        else:
            if gap is None:
                gap = self.rng.randint(25, 200)
            self.clock += timedelta(seconds=gap, milliseconds=self.rng.randint(0, 999))
        self.prompts += 1
        self.prompt_id = self.h.uuid()
        self.turn_start = self.clock
        u = self.put(th, formats.transcript_prompt, text, prompt_id=self.prompt_id)
        th.pending += len(text) // 4 + 4
        self.adv(300, 800)
        fires = self.state_fires(th) + list(fires)
        hook_at = self.clock
        bodies = self.hook(fires, th, {"prompt": text})
        self.hook_time = hook_at
        if bodies:
            self.adv(400, 1200)
            self.attach(th, "UserPromptSubmit", "UserPromptSubmit", self.h.uuid(), bodies, parent=u)
            th.pending += sum(len(b) for b in bodies) // 4
        if not self.title_done:
            th.lines.append(formats.transcript_ai_title(self.sid, text.split(",")[0][:60].rstrip(" .")))
            self.title_done = True
        if interrupt:  # the user pressed Esc before any answer arrived
            self.adv(300, 700)
            self.user(th, [formats.text_block(formats.INTERRUPTED)])
            return
        self.run(th, list(steps), think=think, answer=answer)
        if tuple(map(int, self.version.split("."))) >= (2, 1, 150):
            self.adv(20, 120)
            self.put(
                th,
                formats.transcript_turn_duration,
                duration_ms=int((self.clock - self.turn_start).total_seconds() * 1000),
            )
        self.turn_ends[self.prompts - 1] = (floor_s(self.clock), th.position)

    def state_fires(self, th: Thread) -> list[dict]:
        """meta/context (context-threshold 75 %): first fire, then one bare repeat row (scan/state.rs)."""
        if self.gen not in ("old", "new") or th.agent or th.position < 150_000 or self.ctx_state >= 2:
            return []
        self.ctx_state += 1
        return [F("meta/context", "state", minimal=self.ctx_state == 2, inject=self.ctx_state == 1)]

    def run(self, th: Thread, steps: list, *, think=None, answer=None) -> None:
        first = True
        for st in steps:
            kind = st[0]
            opts = st[-1] if isinstance(st[-1], dict) else {}
            blocks = []
            if first and think:
                blocks.append(formats.thinking_block(think, "Eu8C" + self.h.b62(60)))
            if opts.get("say"):
                blocks.append(formats.text_block(opts["say"]))
            first = False
            if kind == "agent":
                self.agent_step(th, blocks, st[1])
                continue
            self.tool_step(th, blocks, st, opts)
        final = answer or "Done."
        blocks = []
        if first and think:
            blocks.append(formats.thinking_block(think, "Eu8C" + self.h.b62(60)))
        blocks.append(formats.text_block(final))
        self.respond(th, blocks, "end_turn")

    def at(self, path: str) -> str:
        """A step's file: relative to the working directory, or absolute (Claude Code's memory files)."""
        return path if path.startswith("/") else f"{self.cwd}/{path}"

    def tool_step(self, th: Thread, blocks: list, st: tuple, opts: dict) -> None:
        kind, rng = st[0], self.rng
        tid = "toolu_01" + self.h.b62(22)
        err = False
        ctx: dict = {}
        if kind == "read":
            path = st[1]
            lines = CODE[ext(path)]
            name, inp = "Read", {"file_path": f"{self.cwd}/{path}"}
            content = "\n".join(formats.numbered_line(i + 1, t) for i, t in enumerate(lines))
            tur = formats.read_tool_result(
                f"{self.cwd}/{path}",
                "\n".join(lines),
                start_line=1,
                num_lines=len(lines),
                total_lines=len(lines) + rng.randint(20, 300),
            )
            weight, ctx = rng.randint(1500, 6000), {"path": path}
        elif kind == "grep":
            pattern, hits = st[1], st[2]
            name, inp = "Grep", {"pattern": pattern, "path": self.cwd, "output_mode": "files_with_matches"}
            content = f"Found {len(hits)} file{'s' if len(hits) != 1 else ''}\n" + "\n".join(hits)
            tur = formats.grep_tool_result(hits)
            weight = rng.randint(150, 600)
        elif kind == "write":
            path, text = st[1], st[2]
            name, inp = "Write", {"file_path": self.at(path), "content": text}
            content, tur = formats.write_tool_result(self.at(path), text)
            weight, ctx = rng.randint(150, 600), {"path": path}
        elif kind == "edit":
            path, old, new = st[1], st[2], st[3]
            name = "Edit"
            inp = {
                "file_path": self.at(path),
                "old_string": old,
                "new_string": new,
                "replace_all": False,
            }
            content, tur = formats.edit_tool_result(self.at(path), old, new, start=rng.randint(5, 120))
            weight, ctx = rng.randint(150, 600), {"path": path}
        elif kind in ("bash", "bash!"):
            cmd, out = st[1], st[2]
            err = kind == "bash!"
            name, inp = "Bash", {"command": cmd, "description": opts.get("desc", cmd.split()[0])}
            content, tur = formats.bash_tool_result(out, error=err)
            weight, ctx = rng.randint(300, 2500), {"cmd": cmd}
        else:
            raise ValueError(kind)
        blocks.append(formats.tool_use_block(tid, name, inp))
        tu = self.respond(th, blocks, "tool_use")
        th.tool_uses += 1
        self.adv(80, 400)
        bodies = self.hook(self.state_fires(th) + list(opts.get("pre", ())), th, ctx)
        if bodies:
            self.adv(100, 400)
            self.attach(th, "PreToolUse", f"PreToolUse:{name}", tid, bodies)
            th.pending += sum(len(b) for b in bodies) // 4
        self.adv(*opts.get("dur", (200, 3500)))
        block = formats.tool_result_block(tid, content, is_error=err)
        self.put(th, formats.transcript_tool_result, block, result=tur, assistant_uuid=tu)
        th.pending += int((weight + len(content) // 4) * self.heavy)
        if opts.get("cd"):
            self.cwd = opts["cd"]
        if opts.get("post"):
            self.adv(100, 500)
            bodies = self.hook(opts["post"], th, ctx)
            if bodies:
                self.adv(50, 300)
                self.attach(th, "PostToolUse", f"PostToolUse:{name}", tid, bodies)
                th.pending += sum(len(b) for b in bodies) // 4

    def agent_step(self, th: Thread, blocks: list, spec: dict) -> None:
        tid = "toolu_01" + self.h.b62(22)
        blocks.append(
            formats.agent_tool_use_block(
                tid, description=spec["description"], prompt=spec["prompt"], subagent_type=spec["type"]
            )
        )
        tu = self.respond(th, blocks, "tool_use")
        agent_id = "a" + self.h.hexs(16)
        sub = Thread(self, spec["model"], agent_id)
        self.subs.append(
            (
                sub,
                formats.subagent_meta(
                    agent_type=spec["type"], description=spec["description"], tool_use_id=tid
                ),
            )
        )
        began = self.clock
        self.adv(300, 900)
        u = self.user(sub, spec["prompt"])
        sub.pending += len(spec["prompt"]) // 4
        bodies = self.hook(spec.get("dispatch", ()), sub, {"prompt": spec["prompt"]})
        if bodies:
            self.adv(100, 400)
            self.attach(sub, "SubagentStart", "SubagentStart", self.h.uuid(), bodies, parent=u)
        self.run(sub, spec["steps"], answer=spec["result"])
        total = sub.cached
        usage = formats.usage(4, sub.pending, total, 380, breakdown=False)
        self.adv(200, 600)
        block, tur = formats.agent_tool_result(
            tid,
            spec["result"],
            agent_id=agent_id,
            total_tokens=total,
            tool_uses=sub.tool_uses,
            usage=usage,
            duration_ms=int((self.clock - began).total_seconds() * 1000),
        )
        self.put(th, formats.transcript_tool_result, block, result=tur, assistant_uuid=tu)
        th.pending += len(spec["result"]) // 4 + 40

    def compact(self, trigger: str, summary: str | None = None) -> None:
        th = self.trunk
        self.adv(2000, 9000) if trigger == "manual" else self.adv(300, 1500)
        pre = th.cached + th.pending
        began = self.clock
        self.compaction_starts.append((floor_s(began), pre))
        self.adv(20_000, 60_000)
        post = self.rng.randint(9000, 16000)
        # the chain head goes in as the boundary's logicalParentUuid; its parentUuid is null
        self.put(
            th,
            formats.transcript_compact_boundary,
            trigger=trigger,
            pre_tokens=pre,
            post_tokens=post,
            duration_ms=int((self.clock - began).total_seconds() * 1000),
        )
        self.adv(2, 30)
        self.put(
            th,
            formats.transcript_compact_summary,
            summary
            or "1. Primary request: continue the work described above.\n"
            "2. Files touched so far are listed in the conversation.\n3. Pending: finish the open step.",
        )
        th.cached, th.pending, th.position = 0, post, post
        self.compactions += 1
        self.ctx_state = 0
        if self.gen:
            self.adv(400, 1500)
            bodies = self.hook(
                [EV("session_start", project=P, session=S), F("meta/orientation", "state")], th, {}
            )
            self.adv(300, 900)
            if bodies:
                self.attach(th, "SessionStart", "SessionStart:compact", self.h.uuid(), bodies)

    def finish(self, last_prompt: str | None = None) -> None:
        if last_prompt:
            self.trunk.lines.append(formats.transcript_last_prompt(self.sid, last_prompt))
        if not self.write_transcript:
            return
        self.h.put_jsonl(formats.transcript_path(self.project, self.sid), self.trunk.lines)
        for sub, meta in self.subs:
            self.h.put_jsonl(formats.subagent_path(self.project, self.sid, sub.agent), sub.lines)
            self.h.put_text(formats.subagent_path(self.project, self.sid, sub.agent, ".meta.json"), meta)


# --------------------------------------------------------------------------------------------
# The sessions
# --------------------------------------------------------------------------------------------


def ok(n: int) -> str:
    return f"{'.' * min(n, 60)}\n{n} passed in {1 + n % 3}.{n % 10}{(n * 7) % 10}s"


def s01_pre1(h: Home) -> None:
    s = Session(
        h,
        "S01",
        "api",
        T(1, 9, 12, 5),
        gen="pre1",
        transcript=False,
        note="pre-1.0 shell hooks, legacy file only",
    )
    s.dest = "legacy"
    s.start(fires=[])
    s.prompt(
        "the /users endpoint returns 500 when the email has a plus sign in it",
        fires=[F("softwaredev/code/debugging", "prompt")],
        steps=[
            ("read", "src/api/routes/users.py", {}),
            ("bash", "pytest -q tests/test_users.py", ok(14), {}),
        ],
        answer="The route decodes the query string twice, so `+` becomes a space before validation.",
    )
    s.prompt(
        "write a test for it first, then fix it",
        fires=[F("softwaredev/code/testing", "prompt")],
        steps=[
            ("edit", "tests/test_users.py", "def test_lookup():", "def test_lookup_keeps_plus_sign():", {}),
            ("bash!", "pytest -q tests/test_users.py", "F.............\n1 failed, 13 passed in 1.12s", {}),
            ("edit", "src/api/routes/users.py", "email = unquote_plus(raw)", "email = raw", {}),
            ("bash", "pytest -q tests/test_users.py", ok(15), {}),
        ],
        answer="Test added and passing; the double decode is gone.",
    )
    s.prompt(
        "run the full suite",
        steps=[("bash", "make test", ok(212), {"pre": [F("build", "bash")]})],
        answer="All 212 tests pass.",
    )
    s.prompt(
        "commit it",
        steps=[
            (
                "bash",
                "git commit -am 'fix(users): keep plus signs in email lookups'",
                "[main 4c1d2e9] fix(users): keep plus signs in email lookups\n 2 files changed, 14 insertions(+), 2 deletions(-)",
                {"pre": [F("softwaredev/delivery/commits", "bash")]},
            )
        ],
        answer="Committed as 4c1d2e9.",
    )
    s.prompt("thanks", answer="You're welcome.")
    s.finish()


def s02_split(h: Home) -> None:
    s = Session(
        h,
        "S02",
        "infra",
        T(2, 8, 40, 11),
        gen="old",
        transcript=False,
        version="2.1.101",
        note="split-brain: session_start and subagent dispatch only in the legacy file",
    )
    s.start(start_dest="legacy")
    s.prompt(
        "terraform plan is showing drift on the db module, can you look",
        fires=[F("infra/terraform", "semantic:embedding:en", "0.7114")],
        steps=[
            (
                "bash",
                "terraform plan -no-color",
                '  ~ module.db.aws_db_instance.main\n      ~ instance_class = "db.t3.medium" -> "db.t3.large"\nPlan: 0 to add, 1 to change, 0 to destroy.',
                {},
            )
        ],
        answer="Someone resized the instance in the console; the code still says t3.medium.",
    )
    s.prompt(
        "what does modules/db/main.tf set for the class",
        steps=[("read", "terraform/modules/db/main.tf", {})],
        answer="It takes `var.db_instance_class`; the default is `db.t3.medium`.",
    )
    s.prompt(
        "change the default to large so the plan is clean, then re-run the plan via make",
        steps=[
            ("edit", "terraform/variables.tf", 'default = "db.t3.medium"', 'default = "db.t3.large"', {}),
            (
                "bash",
                "make plan",
                "terraform plan -out=tfplan\nNo changes. Your infrastructure matches the configuration.",
                {"pre": [F("build", "bash")]},
            ),
        ],
        answer="The plan is clean now.",
    )
    s.prompt(
        "have an agent double check the k8s manifests still point at the right db host",
        fires=[
            F(
                "softwaredev/code/navigation",
                "prompt",
                minimal=True,
                scope="subagent",
                dest="legacy",
                inject=False,
                dt=4,
            )
        ],
        answer="The agent found `DB_HOST` set from the module output in all three manifests.",
    )
    s.prompt(
        "looks good, commit it",
        steps=[
            (
                "bash",
                "git commit -am 'infra(db): match instance class to production'",
                "[main 91ab7c0] infra(db): match instance class to production\n 1 file changed, 1 insertion(+), 1 deletion(-)",
                {"pre": [F("softwaredev/delivery/commits", "bash")]},
            )
        ],
        answer="Committed.",
    )
    s.prompt("that's all for now", answer="Bye.")
    s.finish()


def s03_old_compacted(h: Home) -> None:
    s = Session(
        h,
        "S03",
        "api",
        T(2, 13, 5, 30),
        gen="old",
        version="2.1.104",
        branch="feat/token-rotation",
        note="old generation (raw scores), one manual compaction",
    )
    s.start()
    s.prompt(
        "we need refresh-token rotation: every refresh should issue a new refresh token and revoke the old one. How should we structure it?",
        fires=[F("softwaredev/architecture/design", "semantic:embedding:en", "0.612")],
        steps=[
            ("read", "src/api/auth/tokens.py", {}),
            ("grep", "def refresh", ["src/api/auth/tokens.py", "src/api/routes/auth.py"], {}),
        ],
        think="Rotation touches storage, the refresh route and the revocation list.",
        answer="Two options: a token family table with a `replaced_by` column, or a revocation list keyed by jti. The family table makes reuse detection possible.",
    )
    s.prompt(
        "go with the family table. should this be an ADR?",
        fires=[F("softwaredev/docs/adr", "keyword")],
        answer="Yes: it changes the storage schema and the security model. I suggest ADR-0008.",
    )
    s.prompt(
        "draft it in docs/adr/0008-refresh-token-rotation.md",
        steps=[
            (
                "edit",
                "docs/adr/0008-refresh-token-rotation.md",
                "",
                "# 8. Refresh token rotation\n\nStatus: proposed",
                {},
            )
        ],
        answer="Drafted with Context, Decision and Consequences.",
    )
    s.prompt(
        "I can't commit to a migration date yet, leave the rollout section open",
        fires=[
            GATED(
                "softwaredev/delivery/commits",
                old=True,
                score_en="0.082",
                score_multi="0.104",
                floor_en="0.150",
                floor_multi="0.150",
            )
        ],
        steps=[
            (
                "edit",
                "docs/adr/0008-refresh-token-rotation.md",
                "## Rollout\n\nTBD in sprint 46",
                "## Rollout\n\nOpen: date not fixed.",
                {},
            )
        ],
        answer="Rollout left open.",
    )
    s.prompt(
        "now the model: add TokenFamily with id, user_id, created_at, revoked_at",
        fires=[
            NEAR(
                "softwaredev/architecture/design",
                old=True,
                score_en="0.4410",
                score_multi="",
                thr_en="0.4600",
                thr_multi="",
            )
        ],
        steps=[
            ("read", "src/api/models.py", {}),
            (
                "edit",
                "src/api/models.py",
                "class RefreshToken(Base):",
                'class TokenFamily(Base):\n    __tablename__ = "token_families"\n\n\nclass RefreshToken(Base):',
                {},
            ),
        ],
        answer="Added `TokenFamily` and a `family_id` foreign key on `RefreshToken`.",
    )
    s.prompt(
        "write the alembic migration",
        steps=[
            (
                "bash",
                "alembic revision --autogenerate -m 'token families'",
                "Generating migrations/versions/3f2a_token_families.py ...  done",
                {},
            )
        ],
        answer="Migration generated; it creates `token_families` and adds the column.",
    )
    s.prompt(
        "add unit tests for rotation and reuse detection",
        fires=[F("softwaredev/code/testing", "keyword")],
        steps=[
            (
                "edit",
                "tests/test_tokens.py",
                "def test_refresh_returns_new_access_token():",
                "def test_refresh_rotates_refresh_token():",
                {},
            ),
            ("bash", "pytest -q tests/test_tokens.py", ok(9), {}),
        ],
        answer="Two tests added: rotation issues a new token; reusing an old one revokes the family.",
    )
    s.clock += timedelta(seconds=95)
    s.compact(
        "manual",
        "1. Rotation design agreed: token family table (ADR-0008, proposed).\n2. Model and migration done; tests for rotation and reuse pass.\n3. Next: wire rotation into POST /auth/refresh.",
    )
    s.prompt(
        "wire rotation into POST /auth/refresh",
        steps=[
            ("read", "src/api/routes/auth.py", {}),
            (
                "edit",
                "src/api/routes/auth.py",
                "token = issue_refresh(user)",
                "token = rotate_refresh(old_token)",
                {},
            ),
        ],
        answer="The route now calls `rotate_refresh` and returns the new pair.",
    )
    s.prompt(
        "run everything",
        steps=[("bash", "make test", ok(231), {"pre": [F("build", "bash")]})],
        answer="231 passed.",
    )
    s.prompt(
        "commit with a good message",
        fires=[F("softwaredev/delivery/commits", "keyword")],
        steps=[
            (
                "bash",
                "git commit -S -am 'feat(auth): rotate refresh tokens per family'",
                "[feat/token-rotation 0d4e8a1] feat(auth): rotate refresh tokens per family\n 6 files changed, 188 insertions(+), 12 deletions(-)",
                {},
            )
        ],
        answer="Committed and signed.",
    )
    s.prompt(
        "open a pull request for it",
        fires=[F("softwaredev/delivery/pull-requests", "keyword")],
        steps=[
            ("bash", "gh pr create --fill --draft", "https://git.example.com/dev/api-server/pull/412", {})
        ],
        answer="Draft PR #412 opened.",
    )
    s.prompt(
        "ok, mark the ADR accepted",
        steps=[
            ("edit", "docs/adr/0008-refresh-token-rotation.md", "Status: proposed", "Status: accepted", {})
        ],
        answer="ADR-0008 accepted.",
    )
    s.prompt("done for today", answer="Summary: rotation implemented, ADR accepted, PR #412 in draft.")
    s.finish("done for today")


def s04_old_web(h: Home) -> None:
    s = Session(
        h,
        "S04",
        "web",
        T(3, 10, 20),
        gen="old",
        model=SONNET,
        version="2.1.110",
        branch="fix/session-banner",
        note="unknown way id fired; judge_call kept in the live log",
    )
    s.start()
    s.prompt(
        "the session-expired banner flashes on every page load, even when logged in",
        fires=[F("softwaredev/architecture/design", "semantic:embedding:en", "0.5310")],
        steps=[("read", "src/components/SessionBanner.tsx", {}), ("read", "src/hooks/useSession.ts", {})],
        answer="`useSession` starts with `expired = true` until the first fetch resolves.",
    )
    s.prompt(
        "fix it by starting in an unknown state",
        steps=[("edit", "src/hooks/useSession.ts", "useState(true)", "useState<boolean | null>(null)", {})],
        answer="Banner only renders when `expired === true`.",
    )
    s.prompt(
        "write the test for the banner",
        fires=[F("softwaredev/code/testing", "keyword"), JUDGE_CALL(cost="0.00061200", dt=0)],
        steps=[
            (
                "edit",
                "tests/SessionBanner.test.tsx",
                'it.todo("banner")',
                'it("hides the banner while the session loads", () => {})',
                {},
            ),
            (
                "bash",
                "npx vitest run tests/SessionBanner.test.tsx",
                "✓ tests/SessionBanner.test.tsx (3 tests) 41ms\nTest Files  1 passed (1)",
                {},
            ),
        ],
        answer="Test added and green.",
    )
    s.prompt(
        "add a changelog entry for the fix",
        fires=[F(UNKNOWN_WAY, "keyword")],
        steps=[
            (
                "edit",
                "CHANGELOG.md",
                "## Unreleased",
                "## Unreleased\n\n- Fix: session banner no longer flashes on load.",
                {},
            )
        ],
        answer="Added under Unreleased.",
    )
    s.prompt(
        "build it",
        steps=[
            (
                "bash",
                "npm run build",
                "vite v6.2.1 building for production...\n✓ 412 modules transformed.\ndist/index.html  0.46 kB",
                {"pre": [F("build", "bash")]},
            )
        ],
        answer="Build is clean.",
    )
    s.prompt(
        "does the README still describe the old banner behaviour?",
        fires=[F("softwaredev/docs/readme", "keyword")],
        steps=[("grep", "banner", ["README.md"], {})],
        answer="It mentions the banner once, correctly.",
    )
    s.prompt(
        "commit",
        fires=[F("softwaredev/delivery/commits", "keyword")],
        steps=[
            (
                "bash",
                "git commit -S -am 'fix(session): do not flash the expired banner on load'",
                "[fix/session-banner 77aa0b3] fix(session): do not flash the expired banner on load",
                {},
            )
        ],
        answer="Committed.",
    )
    s.prompt("thanks", answer="Anytime.")
    s.finish()


def s05_notes_overlap(h: Home) -> None:
    s = Session(
        h,
        "S05",
        "notes",
        T(4, 17, 25),
        gen="old",
        model=SONNET,
        version="2.1.112",
        branch="",
        note="notes in German; its later lines sit in both the newest archive and the live log",
    )
    s.start()
    s.prompt(
        "Kannst du meine Notizen der Woche 45 zu einem Wochenrückblick zusammenfassen?",
        fires=[F("writing/notes", "semantic:embedding:multi", "0.6842")],
        steps=[("read", "2026/11/week-45.md", {})],
        gap=40,
        answer="Drei Themen: Umzug, Onboarding mit Jana, ADR zu Rate Limiting.",
    )
    s.prompt(
        "Schreib den Rückblick in 2026/11/review-45.md",
        steps=[("edit", "2026/11/review-45.md", "", "# Rückblick Woche 45\n\n- Umzug: Kartons bestellt", {})],
        gap=600,
        answer="Geschrieben.",
    )
    s.prompt(
        "move the open inbox items to next week",
        steps=[("read", "inbox.md", {}), ("edit", "inbox.md", "- [ ] Umzugskartons bestellen", "", {})],
        gap=700,
        answer="Moved two items to week 46.",
    )
    s.prompt(
        "verlinke die Notiz zum Onboarding mit Janas Profil",
        fires=[RD("writing/notes", "semantic:embedding:multi", "0.5521")],
        steps=[("edit", "people/jana.md", "## Notizen", "## Notizen\n- [[2026/11/week-45#Onboarding]]", {})],
        gap=800,
        answer="Verlinkt.",
    )
    s.prompt(
        "list the books I marked as unread",
        steps=[("grep", "\\[ \\]", ["reading/list.md"], {})],
        gap=900,
        answer="Four unread books.",
    )
    s.prompt(
        "add 'Thinking in Systems' to the list",
        steps=[("edit", "reading/list.md", "## Unread", "## Unread\n- [ ] Thinking in Systems", {})],
        gap=700,
        answer="Added.",
    )
    s.prompt("danke, das war's", gap=300, answer="Gern!")
    s.finish()


def s06_no_transcript(h: Home) -> None:
    s = Session(
        h,
        "S06",
        "infra",
        T(5, 9, 0, 3),
        gen="new",
        transcript=False,
        version="2.1.176",
        note="transcript deleted upstream; subagent dispatch with prompt channel; subagents switched off",
    )
    s.start()
    s.prompt(
        "plan the staging cluster upgrade to 1.31",
        fires=[
            F("infra/terraform", "semantic:embedding:en", 0.6403),
            EV(
                "gate_fallback",
                reason="config: judge disabled",
                hook="UserPromptSubmit",
                scope="agent",
                project=P,
                session=S,
            ),
        ],
        steps=[
            (
                "bash",
                "terraform plan -no-color -target=module.staging",
                "Plan: 0 to add, 2 to change, 0 to destroy.",
                {},
            )
        ],
        answer="Two node groups change; no replacement.",
    )
    s.prompt(
        "have an explorer check which helm charts pin the old api versions",
        steps=[("bash", "helm list -A", "NAME  NAMESPACE  REVISION\ningress  kube-system  14", {})],
        fires=[
            F(
                "softwaredev/code/navigation",
                "prompt",
                minimal=True,
                scope="subagent",
                agent_id="a" + h.hexs(16),
                inject=False,
                dt=3,
            )
        ],
        answer="The explorer found two charts using `policy/v1beta1`.",
    )
    s.prompt(
        "turn off way injection for subagents in this session, they're noisy",
        answer="Done: `ways subagents off --session`.",
    )
    s.prompt(
        "send another explorer to list the CRDs we own",
        fires=[
            EV(
                "injection_suppressed",
                dt=3,
                reason="subagents_off",
                switch="session",
                lane="subagent_start",
                agent="Explore",
                scope="subagent",
                project=P,
                session=S,
            )
        ],
        answer="Seven CRDs, all under `platform.dev`.",
    )
    for i, (q, a) in enumerate(
        [
            (
                "bump the chart versions for ingress and cert-manager",
                "Bumped both in `helm/values-staging.yaml`.",
            ),
            (
                "what does the upgrade runbook say about draining?",
                "Drain one node group at a time with a 10 minute PDB wait.",
            ),
            ("apply the terraform plan for staging", "Applied: 2 changed."),
            ("check the nodes are all Ready", "All 9 nodes Ready on v1.31.2."),
            ("write a short note for the team channel", "Drafted the note."),
            ("done", "Upgrade complete."),
        ]
    ):
        steps = []
        if i == 2:
            steps = [
                (
                    "bash",
                    "terraform apply tfplan",
                    "Apply complete! Resources: 0 added, 2 changed, 0 destroyed.",
                    {"pre": [RD("infra/terraform", "bash")]},
                )
            ]
        if i == 3:
            steps = [("bash", "kubectl get nodes", "NAME  STATUS  VERSION\nstaging-a-1  Ready  v1.31.2", {})]
        s.prompt(q, steps=steps, answer=a)
    s.finish()


S07_PROMPTS = [
    "we're getting hammered by one client on /search. add per-client rate limiting to the api",
    "what's the current middleware stack?",
    "let's do a token bucket per API key, in memory first. write unit tests for the bucket first",
    "implement Bucket.take and refill",
    "run the bucket tests",
    "still failing, same assertion",
    "ok green. now the middleware that uses it",
    "return 429 with a Retry-After header",
    "how do other services here configure limits, env or settings file?",
    "use settings, RATE_LIMIT_PER_MINUTE default 600",
    "is there a secret in the settings module I should know about?",
    "run the whole suite",
    "send an agent to find every route that should be exempt (health, metrics)",
    "exempt those routes",
    "commit this as a first step",
    "now redis-backed buckets so it works across pods",
    "what's the cleanest interface so the in-memory and redis stores are swappable?",
    "do that: a BucketStore protocol with two implementations",
    "write the redis store",
    "write unit tests for the redis store with fakeredis",
    "run them",
    "fix the lua script, the refill uses the wrong time unit",
    "run them again",
    "make the store configurable",
    "benchmark the middleware overhead",
    "that's fine. update the docs",
    "should we record this decision somewhere?",
    "write the ADR",
    "run lint and types",
    "commit",
    "add metrics: count of limited requests per client",
    "expose them on /metrics",
    "write a test for the metrics",
    "run the suite once more",
    "check nothing logs the API key in clear",
    "good. squash the fixups",
    "push and open the pull request",
    "reply to the review comment about burst size",
    "make burst configurable too",
    "final run and we're done",
]


def s07_long(h: Home) -> None:
    s = Session(
        h,
        "S07",
        "api",
        T(5, 13, 0, 41),
        gen="new",
        version="2.1.176",
        branch="feat/rate-limit",
        heavy=4.5,
        base=36_500,
        note="long session, two auto compactions, subagent with its own transcript",
    )
    s.start()
    py = "src/api/ratelimit.py"
    test = "tests/test_ratelimit.py"
    turns: dict[int, dict] = {
        0: dict(
            fires=[F("softwaredev/architecture/design", "semantic:embedding:en", 0.6220)],
            steps=[
                ("read", "src/api/app.py", {}),
                ("grep", "middleware", ["src/api/app.py", "src/api/auth/middleware.py"], {}),
            ],
            think="Per-client limits: key by API key, fall back to IP. Middleware position matters: after auth.",
        ),
        1: dict(steps=[("read", "src/api/auth/middleware.py", {})]),
        2: dict(
            fires=[F("softwaredev/code/testing", "keyword")],
            steps=[
                (
                    "edit",
                    test,
                    "",
                    "def test_bucket_allows_capacity_then_blocks():\n    b = Bucket(capacity=2, tokens=2, updated=0)",
                    {"pre": [CHECK("softwaredev/code/testing", "file", 4, 4, 0, 0, 2.10, "true")]},
                )
            ],
        ),
        3: dict(
            steps=[
                (
                    "edit",
                    py,
                    "    def take(self, now: float) -> bool:\n        raise NotImplementedError",
                    "    def take(self, now: float) -> bool:\n        self.refill(now)",
                    {"post": [F("softwaredev/code/quality", "postcheck")]},
                )
            ]
        ),
        4: dict(
            steps=[
                (
                    "bash!",
                    f"pytest -q {test}",
                    "F.\n>       assert b.take(now=1.0)\nE       assert False\n1 failed, 1 passed in 0.31s",
                    {},
                )
            ]
        ),
        5: dict(
            fires=[F("softwaredev/code/debugging", "attend:repeated-failure")],
            steps=[
                ("read", py, {}),
                ("edit", py, "elapsed = now - self.updated", "elapsed = max(0.0, now - self.updated)", {}),
                ("bash", f"pytest -q {test}", ok(2), {}),
            ],
        ),
        6: dict(
            steps=[
                (
                    "edit",
                    "src/api/app.py",
                    "app.add_middleware(AuthMiddleware)",
                    "app.add_middleware(RateLimitMiddleware)\napp.add_middleware(AuthMiddleware)",
                    {},
                )
            ]
        ),
        7: dict(
            steps=[
                (
                    "edit",
                    py,
                    "return await call_next(request)",
                    'if not bucket.take(now):\n    return JSONResponse({"error": "rate_limited"}, 429, headers={"Retry-After": str(wait)})\nreturn await call_next(request)',
                    {},
                )
            ]
        ),
        8: dict(
            fires=[NEAR("softwaredev/architecture/design", prob_en="0.4791", prob_multi="", tau_s="0.5000")],
            steps=[("grep", "BaseSettings", ["src/api/settings.py"], {})],
        ),
        9: dict(
            steps=[
                (
                    "edit",
                    "src/api/settings.py",
                    "class Settings(BaseSettings):",
                    "class Settings(BaseSettings):\n    rate_limit_per_minute: int = 600",
                    {},
                )
            ]
        ),
        10: dict(
            steps=[
                (
                    "bash",
                    "printenv | grep -i api_",
                    "API_BASE_URL=http://localhost:8000",
                    {"pre": [F("security/secrets", "bash", inject=True)]},
                ),
                ("read", ".env.example", {"pre": [SUP("security/secrets", "file", "refire")]}),
            ]
        ),
        11: dict(steps=[("bash", "make test", ok(248), {"pre": [F("build", "bash")]})]),
        12: dict(
            steps=[
                (
                    "agent",
                    dict(
                        description="Find rate-limit exempt routes",
                        type="Explore",
                        model=HAIKU,
                        prompt="List every route in src/api that must not be rate limited (health checks, metrics, auth callbacks). Report file:line.",
                        dispatch=[
                            F(
                                "softwaredev/code/navigation",
                                "task",
                                minimal=True,
                                agent_id=True,
                                dup_legacy=True,
                            )
                        ],
                        steps=[
                            (
                                "grep",
                                '@router.get\\("/(health|metrics)',
                                ["src/api/routes/health.py", "src/api/routes/metrics.py"],
                                {},
                            ),
                            (
                                "read",
                                "tests/test_health.py",
                                {
                                    "pre": [
                                        F("softwaredev/code/testing", "file", span=AUTO, inject=True, late=2)
                                    ]
                                },
                            ),
                        ],
                        result="Exempt: GET /healthz (src/api/routes/health.py:12), GET /readyz (health.py:19), GET /metrics (src/api/routes/metrics.py:8).",
                    ),
                )
            ]
        ),
        13: dict(
            steps=[
                ("edit", py, "EXEMPT: set[str] = set()", 'EXEMPT = {"/healthz", "/readyz", "/metrics"}', {})
            ]
        ),
        14: dict(
            fires=[F("softwaredev/delivery/commits", "keyword")],
            steps=[
                (
                    "bash",
                    "git commit -S -am 'feat(ratelimit): in-memory token bucket per api key'",
                    "[feat/rate-limit 1a2b3c4] feat(ratelimit): in-memory token bucket per api key",
                    {},
                )
            ],
        ),
        16: dict(fires=[F("softwaredev/architecture/design", "semantic:embedding:en", 0.7012)]),
        17: dict(
            fires=[SUP("softwaredev/architecture/design", "semantic:embedding:en", "refire")],
            steps=[
                (
                    "edit",
                    "src/api/ratelimit_store.py",
                    "",
                    "class BucketStore(Protocol):\n    def take(self, key: str, now: float) -> bool: ...",
                    {},
                )
            ],
        ),
        18: dict(
            steps=[
                (
                    "edit",
                    "src/api/ratelimit_store.py",
                    "class RedisStore:",
                    "class RedisStore:\n    script = TAKE_LUA",
                    {},
                )
            ]
        ),
        19: dict(
            fires=[
                F("softwaredev/code/testing", "keyword"),
                F("softwaredev/docs/adr", "semantic:embedding:en", 0.5120),
                F("build", "semantic:embedding:en", 0.5391),
                F("security/secrets", "semantic:embedding:en", 0.5210),
                SUP("softwaredev/code/quality", "semantic:embedding:en", "context_cap"),
            ],
            steps=[
                ("edit", "tests/test_ratelimit_store.py", "", "def test_redis_store_refills(fake_redis):", {})
            ],
        ),
        20: dict(
            steps=[
                (
                    "bash!",
                    "pytest -q tests/test_ratelimit_store.py",
                    "FF\nE   assert 0 == 1\n2 failed in 0.44s",
                    {},
                )
            ]
        ),
        21: dict(
            steps=[
                (
                    "edit",
                    "src/api/ratelimit.lua",
                    "local elapsed = now - updated",
                    "local elapsed = (now - updated) / 1000",
                    {},
                )
            ]
        ),
        22: dict(steps=[("bash", "pytest -q tests/test_ratelimit_store.py", ok(4), {})]),
        # the last turns before each compaction cross 75 % of the window: meta/context (state) fires
        15: dict(
            steps=[
                ("read", "src/api/routes/search.py", {}),
                ("read", "src/api/ratelimit.py", {}),
                ("grep", "redis", ["pyproject.toml", "src/api/settings.py"], {}),
            ]
        ),
        31: dict(
            steps=[
                ("read", "src/api/routes/metrics.py", {}),
                (
                    "edit",
                    "src/api/routes/metrics.py",
                    "REGISTRY = CollectorRegistry()",
                    'REGISTRY = CollectorRegistry()\nLIMITED = Counter("ratelimit_limited_total", "limited requests", ["client"], registry=REGISTRY)',
                    {},
                ),
                (
                    "bash",
                    "curl -s localhost:8000/metrics | grep ratelimit",
                    'ratelimit_limited_total{client="k_7f3a"} 12.0',
                    {},
                ),
            ]
        ),
        24: dict(
            fires=[
                EV(
                    "way_capped",
                    way="softwaredev/code/quality",
                    domain="softwaredev",
                    chars="4180",
                    budget="10000",
                    scope="agent",
                    project=P,
                    session=S,
                )
            ],
            steps=[
                (
                    "bash",
                    "python -m bench.middleware --requests 20000",
                    "p50 0.041 ms  p99 0.190 ms  overhead 1.8%",
                    {},
                )
            ],
        ),
        26: dict(fires=[SUP("softwaredev/docs/adr", "semantic:embedding:en", "refire")]),
        27: dict(
            fires=[RD("softwaredev/docs/adr", "semantic:embedding:en", 0.6001)],
            steps=[
                (
                    "edit",
                    "docs/adr/0009-rate-limiting.md",
                    "",
                    "# 9. Per-client rate limiting\n\nStatus: accepted",
                    {},
                )
            ],
        ),
        28: dict(
            steps=[
                (
                    "bash",
                    "ruff check src && mypy src",
                    "All checks passed!\nSuccess: no issues found in 41 source files",
                    {},
                )
            ]
        ),
        29: dict(
            fires=[F("softwaredev/delivery/commits", "keyword")],
            steps=[
                (
                    "bash",
                    "git commit -S -am 'feat(ratelimit): redis store and ADR-0009'",
                    "[feat/rate-limit 5d6e7f8] feat(ratelimit): redis store and ADR-0009",
                    {},
                )
            ],
        ),
        32: dict(
            fires=[F("softwaredev/code/testing", "keyword")],
            steps=[
                (
                    "edit",
                    "tests/test_metrics.py",
                    "",
                    "def test_limited_requests_are_counted(client):",
                    {"pre": [CHECK("softwaredev/code/testing", "file", 61, 31, 30, 1, 1.60, "true")]},
                )
            ],
        ),
        34: dict(
            fires=[F("security/secrets", "semantic:embedding:en", 0.5904)],
            steps=[("grep", "api_key", ["src/api/auth/middleware.py", py], {})],
        ),
        35: dict(
            fires=[F("softwaredev/delivery/commits", "keyword")],
            steps=[
                (
                    "bash",
                    "git rebase -i --autosquash main",
                    "Successfully rebased and updated refs/heads/feat/rate-limit.",
                    {},
                )
            ],
        ),
        36: dict(
            fires=[F("softwaredev/delivery/pull-requests", "keyword")],
            steps=[("bash", "gh pr create --fill", "https://git.example.com/dev/api-server/pull/431", {})],
        ),
        39: dict(steps=[("bash", "make test", ok(266), {})]),
    }
    answers = {
        4: "One failure: `take` does not refill before checking.",
        5: "Clock skew gave a negative elapsed time; clamped it.",
        12: "Three routes must be exempt.",
        39: "266 passed. Rate limiting is done: in-memory and redis stores, metrics, ADR-0009, PR #431.",
    }
    for i, p in enumerate(S07_PROMPTS):
        t = turns.get(i, {})
        steps = t.get("steps")
        if steps is None:
            steps = [
                (
                    "read",
                    h.rng.choice([py, "src/api/app.py", "src/api/settings.py", "src/api/ratelimit_store.py"]),
                    {},
                )
            ]
        s.prompt(
            p,
            fires=t.get("fires", ()),
            steps=steps,
            think=t.get("think"),
            answer=answers.get(i, "Done."),
            gap=h.rng.randint(30, 240),
        )
        if i in (15, 31):
            s.compact("auto")
    s.finish(S07_PROMPTS[-1])


def s08_web(h: Home) -> None:
    s = Session(
        h,
        "S08",
        "web",
        T(6, 10, 0, 12),
        gen="new",
        model=SONNET,
        version="2.1.180",
        branch="feat/login-form",
        note="ambiguous join, +00:00 row, shadow judge, gate fallback, manual compaction",
    )
    s.start()
    s.prompt(
        "the login form should show server validation errors inline",
        fires=[F("softwaredev/architecture/design", "semantic:embedding:en", 0.5802)],
        steps=[("read", "src/components/LoginForm.tsx", {}), ("read", "src/api/client.ts", {})],
        answer="The client throws away the 422 body; I'll surface `errors[]` to the form.",
    )
    s.prompt(
        "do it",
        fires=[
            JUDGED("softwaredev/code/quality", "0.210", "would_block", mode="shadow", candidates="2"),
            F("softwaredev/code/quality", "semantic:embedding:en", 0.5230, dt=1),
            JUDGE_CALL(cost="0.00042800", candidates="2", tokens=(401, 22, 0, 0), dt=1),
        ],
        steps=[
            (
                "edit",
                "src/api/client.ts",
                "return res.json();",
                "if (res.status === 422) throw new ValidationError(await res.json());\n  return res.json();",
                {},
            )
        ],
        answer="Client raises `ValidationError`; the form renders each field error.",
    )
    # Two prompts three seconds apart (the user interrupted and re-submitted): one 3 s cluster of fires,
    # two UserPromptSubmit injections within 8 s -> the join must stay heuristic (ambiguous).
    s.prompt(
        "write unit tests for the login form",
        fires=[F("softwaredev/code/testing", "keyword")],
        interrupt=True,
    )
    s.prompt(
        "write unit tests for the login form, vitest not jest, and mock the api client",
        fires=[
            SUP("softwaredev/code/testing", "keyword", "refire"),
            F("build", "semantic:late-interaction:en", 0.5412),
        ],
        steps=[
            (
                "edit",
                "tests/LoginForm.test.tsx",
                "",
                'it("shows the server error next to the field", async () => {',
                {},
            )
        ],
        at=floor_s(s.hook_time) + timedelta(milliseconds=3000 + h.rng.randint(0, 150)),
        answer="Vitest tests added; the api client is mocked at the module boundary.",
    )
    # fix_plus00() rewrites the middle fire of this turn (+1 s) to a +00:00 timestamp.
    s.prompt(
        "run them",
        fires=[
            RD("softwaredev/code/testing", "semantic:embedding:en", 0.6044),
            RD("softwaredev/architecture/design", "semantic:embedding:en", 0.5075, dt=1),
            SUP("build", "semantic:embedding:en", "refire", dt=2),
        ],
        steps=[
            (
                "bash",
                "npx vitest run",
                "✓ tests/LoginForm.test.tsx (4 tests) 58ms\nTest Files  1 passed (1)",
                {},
            )
        ],
        answer="4 passed.",
    )
    s.prompt(
        "the error text overlaps the input on mobile, let's squash that quickly",
        fires=[GATED("softwaredev/delivery/commits", prob_en="0.0759", floor="0.1500")],
        steps=[("grep", "field-error", ["src/components/LoginForm.module.css"], {})],
        answer="The error uses absolute positioning; switching to normal flow.",
    )
    s.prompt(
        "fix the css",
        fires=[
            EV(
                "gate_fallback",
                reason="deadline",
                gate_ms="1500",
                candidates="4",
                hook="UserPromptSubmit",
                scope="agent",
                project=P,
                session=S,
            ),
            JUDGE_CALL(outcome="fallback", reason="deadline", candidates="4", tokens=None),
            RD("softwaredev/code/quality", "semantic:embedding:en", 0.5188, dt=1),
        ],
        steps=[
            (
                "edit",
                "src/components/LoginForm.module.css",
                ".field-error { position: absolute; }",
                ".field-error { margin-top: 4px; }",
                {},
            )
        ],
        answer="Fixed.",
    )
    s.prompt(
        "build to make sure",
        steps=[
            ("bash", "npm run build", "✓ 415 modules transformed.\ndist/assets/index-4f2a.js  212.44 kB", {})
        ],
        answer="Build OK.",
    )
    s.clock += timedelta(seconds=70)
    s.compact(
        "manual",
        "1. Login form shows 422 field errors inline (client + form).\n"
        "2. Vitest tests pass; mobile CSS fixed.\n3. Next: accessibility pass.",
    )
    for q, a in [
        (
            "check the form with a screen reader in mind: labels, aria-live",
            "Added `aria-live=polite` and label ids.",
        ),
        (
            "keyboard focus should go to the first invalid field",
            "Focus now moves to the first invalid field.",
        ),
        ("add a test for the focus behaviour", "Test added."),
        ("run all tests", "All 58 pass."),
        ("commit", "Committed."),
        ("open the pull request", "PR #88 opened."),
        ("thanks", "You're welcome."),
    ]:
        fires, steps = [], []
        if q.startswith("add a test"):
            fires = [F("softwaredev/code/testing", "semantic:embedding:en", 0.6671)]
            steps = [
                (
                    "edit",
                    "tests/LoginForm.test.tsx",
                    "});\n",
                    '});\n\nit("focuses the first invalid field", async () => {',
                    {"post": [F("softwaredev/code/quality", "postcheck")]},
                )
            ]
        if q == "commit":
            fires = [F("softwaredev/delivery/commits", "keyword")]
            steps = [
                (
                    "bash",
                    "git commit -S -am 'feat(login): inline server validation errors'",
                    "[feat/login-form 3c9d1e2] feat(login): inline server validation errors",
                    {},
                )
            ]
        if q.startswith("open"):
            fires = [F("softwaredev/delivery/pull-requests", "semantic:embedding:en", 0.7420)]
            steps = [("bash", "gh pr create --fill", "https://git.example.com/dev/web-ui/pull/88", {})]
        if q == "run all tests":
            steps = [("bash", "npx vitest run", "Test Files  9 passed (9)\n     Tests  58 passed (58)", {})]
        s.prompt(q, fires=fires, steps=steps, answer=a)
    s.finish()


def s09_infra(h: Home) -> None:
    s = Session(
        h,
        "S09",
        "infra",
        T(6, 15, 30, 2),
        gen="new",
        version="2.1.180",
        branch="main",
        note="session_start also in the legacy file; cwd changes after cd",
    )
    s.start(dup_legacy=True)
    s.prompt(
        "the api pods can't reach the new db, check the security group in terraform",
        fires=[NEAR("infra/terraform", prob_en="0.4712", prob_multi="0.4388", tau_s="0.5000")],
        steps=[
            (
                "bash",
                "cd terraform && terraform state list | grep security_group",
                "module.db.aws_security_group.db\nmodule.eks.aws_security_group.node",
                {"cd": "/home/dev/src/infra/terraform"},
            ),
            ("read", "modules/db/main.tf", {"pre": [F("infra/terraform", "file", span=AUTO, inject=False)]}),
        ],
        answer="The db group allows the old node CIDR only.",
    )
    s.prompt(
        "fetch the db password from vault so I can test a connection",
        steps=[
            (
                "bash",
                "vault kv get -field=username secret/api/staging/db",
                "api_app",
                {"pre": [F("security/secrets", "semantic:bash:en", 0.6588)]},
            )
        ],
        answer="I fetched the username only; run the password fetch yourself so it stays out of this transcript.",
    )
    s.prompt(
        "allow the node security group instead of the CIDR",
        steps=[
            (
                "edit",
                "modules/db/main.tf",
                "cidr_blocks = [var.node_cidr]",
                "security_groups = [var.node_sg_id]",
                {},
            ),
            ("bash", "terraform plan -no-color", "Plan: 1 to add, 0 to change, 1 to destroy.", {}),
        ],
        answer="Plan replaces one rule.",
    )
    s.prompt(
        "apply it",
        steps=[
            (
                "bash",
                "terraform apply -auto-approve tfplan",
                "Apply complete! Resources: 1 added, 0 changed, 1 destroyed.",
                {},
            )
        ],
        answer="Applied; pods connect now.",
    )
    s.prompt("thanks", answer="Done.")
    s.finish()


def s10_notes(h: Home) -> None:
    s = Session(
        h,
        "S10",
        "notes",
        T(7, 9, 10, 44),
        gen="new",
        model=SONNET,
        version="2.1.184",
        branch="",
        note="scan_candidates and way_pulled (native JSON types), multilingual fires",
    )
    s.start()
    cands = [
        {"way": "writing/notes", "cosine": 0.6123, "share": 0.4411, "margin": 0.0932},
        {"way": "softwaredev/docs/adr", "cosine": 0.5191, "share": 0.2102, "margin": 0.0412},
        {"way": "collaboration/teams", "cosine": 0.4779, "share": 0.1260, "margin": 0.0305},
        {"way": "softwaredev/architecture/design", "cosine": 0.4474, "share": 0.0921, "margin": 0.0218},
        {"way": "meta/context", "cosine": 0.4256, "share": 0.0764, "margin": None},
    ]
    s.prompt(
        "Leg eine neue Notiz zum Thema Zettelkasten-Verlinkung an und verknüpfe sie mit dem Wochenrückblick",
        fires=[
            EV(
                "scan_candidates",
                lane="multi",
                basis="single",
                session=S,
                project=P,
                sidecar=False,
                candidates=cands,
            ),
            EV(
                "scan_candidates",
                lane="en",
                basis="single",
                session=S,
                project=P,
                sidecar=True,
                candidates=[dict(c, cosine=round(c["cosine"] - 0.05, 4)) for c in cands[:2]],
            ),
            F("writing/notes", "semantic:embedding:multi", 0.7215),
            NEAR("softwaredev/docs/adr", prob_en="", prob_multi="0.4630", tau_s="0.5000"),
        ],
        steps=[
            (
                "edit",
                "zettel/verlinkung.md",
                "",
                "# Zettelkasten-Verlinkung\n\nSiehe [[2026/11/review-45]].",
                {},
            )
        ],
        answer="Notiz angelegt und verlinkt.",
    )
    s.prompt(
        "show me the notes way again",
        fires=[
            EV(
                "way_pulled",
                dt=1,
                way="writing/notes",
                domain="writing",
                window="refire",
                scope="agent",
                project=P,
                session=S,
                agent_id=A,
                token_position=TP,
                out_of_band=False,
                stamped=True,
            )
        ],
        answer="Here it is: one idea per note, link instead of nesting, weekly inbox processing.",
    )
    s.prompt(
        "and the ADR way, just to read it",
        fires=[
            EV(
                "way_pulled",
                dt=1,
                way="softwaredev/docs/adr",
                domain="softwaredev",
                window="first_fire",
                scope="agent",
                project=P,
                session=S,
                agent_id=A,
                out_of_band=True,
                stamped=True,
                epoch_distance=2,
            )
        ],
        answer="Shown.",
    )
    s.prompt("Danke!", answer="Gern.")
    s.finish()


def s11_judge(h: Home) -> None:
    s = Session(
        h,
        "S11",
        "api",
        T(7, 11, 0, 9),
        gen="new",
        version="2.1.184",
        branch="feat/audit-log",
        note="judge gate: pass, block, ancestor block, capped; check pull; teammate fire",
    )
    s.start(
        fires=[
            F("meta/orientation", "state"),
            F(
                "collaboration/teams",
                "state",
                minimal=True,
                scope="teammate",
                team="api-refactor-team",
                inject=True,
                dt=1,
            ),
        ]
    )
    s.prompt(
        "add an audit log for admin actions: who, what, when, before/after",
        fires=[
            JUDGED("softwaredev/architecture/design", "0.812", "pass"),
            JUDGED("softwaredev/delivery", "0.050", "block", candidates="3"),
            EV(
                "way_judged",
                way="softwaredev/delivery/commits",
                p_yes="0.050",
                threshold="0.30",
                verdict="block",
                reason="ancestor",
                ancestor="softwaredev/delivery",
                hook="UserPromptSubmit",
                scope="agent",
                project=P,
                session=S,
                agent_id=A,
            ),
            JUDGE_CALL(cost="0.00071400", tokens=(688, 41, 0, 0)),
            F("softwaredev/architecture/design", "semantic:embedding:en", 0.6650, dt=1),
        ],
        steps=[("grep", "is_admin", ["src/api/routes/admin.py", "src/api/auth/middleware.py"], {})],
        think="An append-only table plus a decorator on admin routes.",
        answer="Plan: `audit_events` table, an `@audited` decorator, JSON diff of before/after.",
    )
    s.prompt(
        "write the tests for the decorator first",
        steps=[
            (
                "edit",
                "tests/test_audit.py",
                "",
                "def test_audited_records_actor_and_diff(admin_client):",
                {
                    "pre": [
                        CHECK("softwaredev/code/testing", "file", 3, 0, 3, 0, 1.40, "false"),
                        F("softwaredev/code/testing", "check-pull", inject=True),
                    ]
                },
            )
        ],
        answer="Tests written; they fail as expected.",
    )
    s.prompt(
        "implement it",
        steps=[
            ("edit", "src/api/audit.py", "", "def audited(action: str):", {}),
            (
                "edit",
                "tests/test_audit.py",
                "assert events == []",
                'assert [e.action for e in events] == ["user.disable"]',
                {"pre": [SUP("softwaredev/code/testing", "file", "refire", kind="check")]},
            ),
        ],
        answer="Decorator and model done.",
    )
    s.prompt(
        "which of these ways would even apply here? run the gate over all of them",
        fires=[
            EV(
                "gate_capped",
                judged="8",
                unjudged="2",
                ways="softwaredev/docs/readme,collaboration/teams",
                hook="UserPromptSubmit",
                scope="agent",
                project=P,
                session=S,
            ),
            JUDGED("softwaredev/docs/adr", "0.640", "pass", candidates="10", judge_ms="655", gate_ms="702"),
            JUDGE_CALL(cost="0.00148300", candidates="8", tokens=(1490, 96, 512, 0)),
            F("softwaredev/docs/adr", "semantic:embedding:en", 0.5533, dt=1),
        ],
        answer="Eight were judged; the ADR way passed.",
    )
    s.prompt(
        "record the audit log decision as an ADR",
        steps=[
            ("edit", "docs/adr/0010-audit-log.md", "", "# 10. Append-only audit log\n\nStatus: proposed", {})
        ],
        answer="ADR-0010 drafted.",
    )
    s.prompt(
        "commit the delivery part now",
        fires=[
            JUDGED("softwaredev/delivery", "0.730", "pass"),
            JUDGED("softwaredev/delivery/commits", "0.910", "pass"),
            JUDGE_CALL(cost="0.00069800", tokens=(702, 40, 0, 0)),
            F("softwaredev/delivery", "semantic:embedding:en", 0.5870, dt=1),
            F(
                "softwaredev/delivery/commits",
                "keyword",
                dt=1,
                parent="softwaredev/delivery",
                tree_depth="1",
                epoch_distance="0",
            ),
        ],
        steps=[
            (
                "bash",
                "git commit -S -am 'feat(audit): append-only audit log for admin actions'",
                "[feat/audit-log 8e1f2a3] feat(audit): append-only audit log for admin actions",
                {},
            )
        ],
        answer="Committed.",
    )
    for q in ["add the migration", "run the suite", "show the diff stat", "push", "anything left?", "bye"]:
        steps = []
        if q == "run the suite":
            steps = [("bash", "make test", ok(281), {"pre": [F("build", "bash")]})]
        if q == "show the diff stat":
            steps = [
                ("bash", "git diff --stat main", " 7 files changed, 244 insertions(+), 3 deletions(-)", {})
            ]
        if q == "add the migration":
            steps = [
                (
                    "bash",
                    "alembic revision --autogenerate -m 'audit events'",
                    "Generating migrations/versions/9c1e_audit_events.py ...  done",
                    {},
                )
            ]
        s.prompt(q, steps=steps, answer="Done.")
    s.finish()


def s12_numbers(h: Home) -> None:
    s = Session(
        h,
        "S12",
        "web",
        T(8, 14, 0, 27),
        gen="new",
        model=SONNET,
        version="2.1.190",
        branch="chore/bundle",
        note="rows with JSON numbers; semantic bash multilingual; postcheck",
    )
    s.start()
    s.prompt(
        "the bundle grew 40 kB last week, find out why",
        fires=[F("softwaredev/architecture/design", "semantic:embedding:en", 0.6120, numeric=True)],
        steps=[
            (
                "bash",
                "npx vite-bundle-visualizer --json | head -20",
                "date-fns 41.2 kB (new)\nreact-dom 130.1 kB",
                {},
            )
        ],
        answer="`date-fns` came in with the new date picker, fully imported.",
    )
    s.prompt(
        "switch to per-function imports",
        steps=[
            (
                "edit",
                "src/components/DatePicker.tsx",
                'import * as dfns from "date-fns";',
                'import { format, parseISO } from "date-fns";',
                {"post": [F("softwaredev/code/quality", "postcheck")]},
            )
        ],
        answer="Switched.",
    )
    s.prompt(
        "rebuild and compare",
        steps=[
            (
                "bash",
                "pnpm turbo run bundle --filter web-ui",
                "web-ui:bundle: dist/assets/index.js 173.9 kB",
                {"pre": [F("build", "semantic:bash:multi", 0.5820)]},
            )
        ],
        answer="Down 38.6 kB.",
    )
    s.prompt(
        "what did the judge cost us this week?",
        fires=[JUDGE_CALL(cost="0.00052100", tokens=(455, 31, 0, 0), numeric=True)],
        answer="Judge calls are in the agent-ways log; about $0.05 this week.",
    )
    s.prompt(
        "commit",
        fires=[F("softwaredev/delivery/commits", "keyword")],
        steps=[
            (
                "bash",
                "git commit -S -am 'perf(bundle): import date-fns per function'",
                "[chore/bundle 2b7c9d0] perf(bundle): import date-fns per function",
                {},
            )
        ],
        answer="Committed.",
    )
    s.prompt("thanks", answer="Welcome.")
    s.finish()


def s13_unknown_channel(h: Home) -> None:
    s = Session(
        h,
        "S13",
        "infra",
        T(8, 20, 15, 33),
        gen="new",
        version="2.1.190",
        branch="main",
        note="a way shown by hand (trigger unknown); secrets bash fire; suppressed pull",
    )
    s.start()
    s.prompt(
        "print the env vars the deploy script needs",
        steps=[
            (
                "bash",
                "printenv | grep -E '^(AWS_REGION|CLUSTER)='",
                "AWS_REGION=eu-central-1\nCLUSTER=staging",
                {"pre": [F("security/secrets", "bash")]},
            )
        ],
        answer="Only AWS_REGION and CLUSTER are read; credentials come from the instance role.",
    )
    s.prompt(
        "show me the commits way, I want to read it",
        steps=[
            (
                "bash",
                "ways show way softwaredev/delivery/commits",
                "# Commits (personal conventions)\n...",
                {"pre": [F("softwaredev/delivery/commits", "unknown", inject=False)]},
            )
        ],
        answer="That's the user version; it shadows the shipped one.",
    )
    s.prompt(
        "and the secrets way",
        fires=[
            EV(
                "way_pulled",
                dt=1,
                way="security/secrets",
                domain="security",
                window="suppressed",
                scope="agent",
                project=P,
                session=S,
                agent_id=A,
                reason="refire window open",
                out_of_band=False,
                stamped=False,
                epoch_distance=1,
            )
        ],
        answer="Not re-shown: it fired a moment ago.",
    )
    s.finish()


def s14_transcript_only(h: Home) -> None:
    s = Session(
        h,
        "S14",
        "notes",
        T(9, 10, 0, 6),
        gen=None,
        model=SONNET,
        version="2.1.190",
        branch="",
        note="transcript only: agent-ways hooks were not active",
    )
    s.start()
    s.prompt(
        "what's on my reading list?",
        steps=[("read", "reading/list.md", {})],
        answer="Five books, four unread.",
    )
    s.prompt(
        "mark 'Thinking in Systems' as started",
        steps=[("edit", "reading/list.md", "- [ ] Thinking in Systems", "- [~] Thinking in Systems", {})],
        answer="Marked.",
    )
    memory_prompts(h, s)
    s.prompt("thanks", answer="Enjoy the book.")
    s.finish()


# Claude Code's auto-memory: projects/<slug>/memory/, written by the session's own Write and Edit calls.
MEMORY_DIR = "/home/dev/.claude/projects/-home-dev-notes/memory"
MEMORY_READING = """---
name: reading list markers
description: how the reading list marks a book's progress
metadata:
  type: user
---
The reading list (reading/list.md) marks progress in the checkbox: `[ ]` unread, `[~]` started, `[x]` finished.
"""
MEMORY_INDEX = "- [reading list markers](reading.md) — `[ ]` unread, `[~]` started, `[x]` finished\n"
MEMORY_STYLE = """---
name: answer style
description: keep answers about the notes short
metadata:
  type: feedback
---
Answer questions about the notes in one or two sentences.
"""


def memory_prompts(h: Home, s: Session) -> None:
    """S14 saves a memory (Write topic + index) and corrects it a turn later (Edit). Drawn from a
    random stream of their own, so every other file of the sample stays byte for byte as it was."""
    main = h.rng
    h.rng = s.rng = random.Random(SEED + 14)
    s.prompt(
        "remember how I mark progress on the reading list",
        steps=[
            ("write", f"{MEMORY_DIR}/reading.md", MEMORY_READING.replace("`[x]` finished", "`[x]` done"), {}),
            ("write", f"{MEMORY_DIR}/MEMORY.md", MEMORY_INDEX, {}),
        ],
        answer="Saved to memory: `[ ]` unread, `[~]` started, `[x]` done.",
    )
    s.prompt(
        "I say finished, not done",
        steps=[("edit", f"{MEMORY_DIR}/reading.md", "`[x]` done", "`[x]` finished", {})],
        answer="Updated the memory.",
    )
    h.rng = s.rng = main
    home_memory = ".claude/projects/-home-dev-notes/memory"
    h.put_text(f"{home_memory}/reading.md", MEMORY_READING)
    h.put_text(f"{home_memory}/MEMORY.md", MEMORY_INDEX)
    h.put_text(f"{home_memory}/style.md", MEMORY_STYLE)  # written before any recorded session


# --------------------------------------------------------------------------------------------
# ADR-112 session ledger (knowledge-and-records.md §2)
# --------------------------------------------------------------------------------------------

CONTEXT_WINDOW = 200_000
# S11 is a teammate of "api-refactor-team"; its team lead ran in a second terminal on the same
# project. That session is not in the sample (no transcript, no events): only its ledger entry is.
LEAD_SID = str(
    uuid.UUID(bytes=hashlib.sha256(b"waysweb-sample:api-refactor-team-lead").digest()[:16], version=4)
)

# (session key, phase, when, body). when: prompt index (entry written by the Stop hook at the end
# of that turn), ("compact", n) (handoff at the n-th PreCompact), or an explicit datetime.
# Entries of the short sessions were nudged by meta/attend/reflection-overdue, below the nominal
# 30/50/70 % thresholds; S07 crosses them for real.
LEDGER_ENTRIES: list[tuple] = [
    (
        "S03",
        "orientation",
        2,
        """
Task: refresh-token rotation for POST /auth/refresh; every refresh issues a new refresh token and
revokes the old one.
Compared a token family table with a jti revocation list; only the family table lets us detect reuse.
Decision: store refresh tokens in families; reusing a rotated token revokes the whole family.
Decision: record it as ADR-0008 (proposed) before touching the schema.
Open threads: rollout date for the migration; whether access tokens need a shorter TTL.
""",
    ),
    (
        "S03",
        "handoff",
        ("compact", 0),
        """
Handoff before compaction.

ADR-0008 is drafted at docs/adr/0008-refresh-token-rotation.md, status proposed, with the rollout
section left open on purpose. TokenFamily is in src/api/models.py with a family_id foreign key on
RefreshToken; migration 3f2a_token_families is generated. tests/test_tokens.py covers rotation and
reuse detection, 9 passed. Next: wire rotate_refresh into POST /auth/refresh in
src/api/routes/auth.py, run make test, commit signed, open a draft PR.

Decision: reuse detection revokes the family, not only the presented token.
Open threads: migration date not fixed; ADR-0008 still proposed.
""",
    ),
    (
        "S07",
        "orientation",
        1,
        """
Task: per-client rate limiting; one client is hammering /search.
The middleware stack in src/api/app.py is CORS, then auth, then the routes; the limiter has to run
after auth so the API key is known.
Decision: key the limiter by API key and fall back to the client IP for anonymous calls.
Decision: a token bucket, not a fixed window; batch clients burst legitimately.
Open threads: where limits are configured; which routes must be exempt.
""",
    ),
    (
        "S07",
        "progress",
        8,
        """
Bucket.take and refill work. The first failure was clock skew giving a negative elapsed time; it
is clamped to zero now.
RateLimitMiddleware is registered so that it runs after AuthMiddleware and answers 429 with a
Retry-After header.
Other services read their limits from Settings, not from raw environment variables.
Decision: in-memory buckets for the first step, one per API key per process.
Open threads: exempt routes; in-memory buckets will not hold across three replicas.
""",
    ),
    (
        "S07",
        "consolidation",
        15,
        """
First step committed as 1a2b3c4: bucket, middleware, Settings.rate_limit_per_minute = 600,
exempt routes /healthz, /readyz and /metrics (found by the explorer subagent).
Surprise: with in-memory buckets the effective limit is the replica count times 600.
Pattern worth keeping: the limiter reads only the hashed key id, never the raw API key.
Decision: keep the token bucket in Redis, keyed by API key.
Open threads: a store interface so both stores are swappable; an atomic take in Lua.
""",
    ),
    (
        "S07",
        "handoff",
        ("compact", 0),
        """
Handoff before compaction.

Branch feat/rate-limit at 1a2b3c4, make test green (248 passed). Done: Bucket in
src/api/ratelimit.py with the clock-skew clamp; RateLimitMiddleware returning 429 + Retry-After;
RATE_LIMIT_PER_MINUTE in Settings (default 600); EXEMPT = {/healthz, /readyz, /metrics}. The user
just asked for Redis-backed buckets so the limit works across pods; nothing of that is written
yet. Next: a BucketStore protocol with MemoryStore and RedisStore in src/api/ratelimit_store.py,
then fakeredis tests.

Decision: keep the token bucket in Redis, keyed by API key; MemoryStore stays for tests.
Open threads: a Lua script for an atomic take; which setting selects the store.
""",
    ),
    (
        "S07",
        "progress",
        26,
        """
BucketStore protocol with MemoryStore and RedisStore is in src/api/ratelimit_store.py; RedisStore
takes and refills in one Lua script.
The fakeredis tests failed twice: the script refilled with milliseconds against a per-second rate;
it divides by 1000 now.
The store is chosen in Settings; middleware overhead is p99 0.19 ms (1.8 %).
Decision: Redis is the store in every deployed environment, MemoryStore only in tests and local dev.
Decision: record per-client limiting as ADR-0009.
Open threads: metrics for limited requests; burst size.
""",
    ),
    (
        "S07",
        "consolidation",
        31,
        """
ADR-0009 is accepted and committed with the Redis store as 5d6e7f8; ruff and mypy are clean.
ratelimit_limited_total{client} is exposed on /metrics.
Lesson: a time unit that crosses the Lua/Python boundary needs one owner; the Python side now
passes seconds and the script never guesses.
Decision: label the counter with the hashed client id, never the raw API key.
Open threads: a test for the metrics; a check that nothing logs the key in clear; the pull request.
""",
    ),
    (
        "S07",
        "handoff",
        ("compact", 1),
        """
Handoff before compaction.

Branch feat/rate-limit at 5d6e7f8 plus uncommitted metrics work: the LIMITED counter in
src/api/routes/metrics.py, incremented by the middleware on every 429. curl on /metrics shows
ratelimit_limited_total for client k_7f3a. Still to do, in order: a test in tests/test_metrics.py,
the full suite, grep for API keys in log calls, squash the fixups, push, open the PR.

Decision: the counter's label is the hashed client id.
Open threads: burst size is not configurable yet; expect a review comment about it.
""",
    ),
    (
        "S07",
        "progress",
        38,
        """
Metrics test added and the suite is green; no log call prints the API key, only the hashed id.
Fixups squashed onto main and PR #431 opened.
The review asked about burst size: it is its own setting now, RATE_LIMIT_BURST.
Decision: burst defaults to the per-minute limit, so existing clients see no change.
Open threads: final test run; merge after the second review.
""",
    ),
    (
        "LEAD",
        "orientation",
        T(7, 11, 5, 59),
        """
Lead of api-refactor-team: one teammate on feat/audit-log, one on the permissions refactor.
Decision: the audit log lands first; the permissions refactor rebases on top of it.
Decision: teammates ask before touching src/api/auth/.
Open threads: who reviews the audit migration; whether audit_events needs partitioning.
""",
    ),
    (
        "S11",
        "orientation",
        2,
        """
Task: an audit log for admin actions: who, what, when, before and after.
Tests for the @audited decorator came first and failed as expected; decorator and model are in.
Decision: an append-only audit_events table; a correction is a new event, never an update.
Decision: store before/after as a JSON diff, not as full snapshots.
Open threads: migration, ADR, retention period.
""",
    ),
    (
        "S11",
        "progress",
        10,
        """
ADR-0010 is drafted (proposed). The feature is committed as 8e1f2a3 and pushed; migration
9c1e_audit_events is generated; make test is green (281 passed).
Retention is blocked: compliance has to sign off on how long audit events are kept.
Decision: no TTL and no deletion job until that sign-off arrives.
Open threads: retention sign-off; ADR-0010 still proposed.
""",
    ),
    (
        "S04",
        "orientation",
        2,
        """
Task: the session-expired banner flashed on every page load, even when logged in.
Cause: useSession started with expired = true until the first fetch resolved.
Decision: start the session state as unknown (null); render the banner only when expired === true.
A test in tests/SessionBanner.test.tsx covers the loading state and passes.
Open threads: changelog entry, build, the README mention of the banner.
""",
    ),
    (
        "S08",
        "orientation",
        4,
        """
Task: show server validation errors inline in the login form.
The API client threw the 422 body away; it now raises ValidationError carrying errors[].
Decision: map errors to fields in the form, not in the client.
Decision: vitest, with the api client mocked at the module boundary; no jest.
Open threads: error text on mobile; an accessibility pass.
""",
    ),
    (
        "S08",
        "handoff",
        ("compact", 0),
        """
Handoff before compaction.

Branch feat/login-form, nothing committed yet. Done: ValidationError in src/api/client.ts;
LoginForm renders one error per field; four vitest tests in tests/LoginForm.test.tsx pass;
.field-error uses normal flow instead of absolute positioning, which fixed the overlap on mobile;
npm run build is clean. Next: labels and aria-live, focus on the first invalid field, a test for
the focus, then commit and open the PR.

Decision: errors are announced with aria-live=polite, not as alerts.
Open threads: the accessibility pass has not started.
""",
    ),
    (
        "S12",
        "progress",
        2,
        """
date-fns came in whole with the new date picker (41.2 kB).
Switched src/components/DatePicker.tsx to per-function imports; the bundle is 38.6 kB smaller.
Decision: import date-fns per function, never as a namespace.
Open threads: commit; a lint rule against namespace imports of date-fns.
""",
    ),
    (
        "S06",
        "orientation",
        6,
        """
Task: upgrade the staging cluster to 1.31. The plan changes two node groups and replaces nothing.
The explorer found two helm charts still on policy/v1beta1; subagent way injection is off for this
session.
Decision: drain one node group at a time with the runbook's 10 minute PDB wait.
Decision: bump ingress and cert-manager before applying the plan.
Open threads: node readiness; a note for the team channel.
""",
    ),
    (
        "S09",
        "progress",
        3,
        """
The api pods could not reach the new db: its security group allowed only the old node CIDR.
Fetched the vault username only; the password stays out of this conversation.
Decision: allow the node security group instead of a CIDR, so a node replacement cannot break it again.
Applied (1 added, 1 destroyed); the pods connect.
Open threads: the same CIDR rule probably exists in prod.
""",
    ),
]
MALFORMED_ENTRY = "S12"  # its front matter has an unterminated quote (a hook bug), on purpose
CONCURRENT_ENTRY = ("S11", 2)  # written while the lead's entry was being written: same epoch


def ledger_entries(h: Home) -> None:
    by_key = {s.key: s for s in h.sessions}
    rows = []
    for key, phase, when, body in LEDGER_ENTRIES:
        if key == "LEAD":
            project, sid, ts, pct = PROJECTS["api"], LEAD_SID, when, 41
        else:
            s = by_key[key]
            project, sid = s.project, s.sid
            if isinstance(when, tuple):
                ts, tokens = s.compaction_starts[when[1]]
            else:
                ts, tokens = s.turn_ends[when]
            pct = round(100 * tokens / CONTEXT_WINDOW)
            if key == "S07" and phase != "handoff":  # the long session crosses the real thresholds
                assert pct >= 30, (key, phase, when, pct)
        rows.append(
            dict(key=key, when=when, project=project, sid=sid, ts=ts, pct=pct, phase=phase, body=body.strip())
        )
    for project in sorted({r["project"] for r in rows}):
        stream = sorted((r for r in rows if r["project"] == project), key=lambda r: r["ts"])
        for n, r in enumerate(stream):
            # epoch = entries already in the directory; the concurrent writer counted before the lead's file landed
            epoch = n - 1 if (r["key"], r["when"]) == CONCURRENT_ENTRY else n
            transcript = "~/" + formats.transcript_path(project, r["sid"])
            if r["key"] == MALFORMED_ENTRY:
                transcript = '"' + transcript
            entry = formats.ledger_entry(
                session=r["sid"],
                transcript=transcript,
                epoch=epoch,
                context_pct=r["pct"],
                timestamp=sec(r["ts"]),
                phase=r["phase"],
                body=r["body"],
            )
            name = formats.ledger_entry_name(r["ts"], epoch)
            h.put_text(f"{formats.LEDGER_DIR}/{formats.project_slug(project)}/{name}", entry)


# --------------------------------------------------------------------------------------------
# majordomus repository (knowledge-and-records.md §3-§8)
# --------------------------------------------------------------------------------------------

REPO_ROOT = "repos/api-server"
MJ_BY = "majordomus/0.6.0"
MJ_BY_OLD = "majordomus/0.5.2"
CANDIDATES = f"{REPO_ROOT}/.ai/repo/knowledge/candidates"
CURATED = f"{REPO_ROOT}/.ai/repo/knowledge/curated"


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def majordomus_repo(h: Home) -> dict[str, str]:
    """Write the majordomus repository; return the episode id of each session key (for the ADRs)."""
    by_key = {s.key: s for s in h.sessions}
    s03, s07, s11 = by_key["S03"], by_key["S07"], by_key["S11"]

    def started(s: Session) -> datetime:  # the SessionStart hook opens the episode
        return floor_s(s.trunk.earliest)

    start_a, start_b, start_c = started(s03), started(s07), started(s11)
    ep_a, ep_b, ep_c = (
        f"s-{t:%Y%m%d%H%M%S}-{sha(s.sid)[:4]}" for t, s in ((start_a, s03), (start_b, s07), (start_c, s11))
    )

    def env(ts: datetime, event: str, head: str, branch: str, session: str | None = None, by: str = MJ_BY):
        return formats.mj_envelope(sec(ts), event, head=head, branch=branch, by=by, session=session)

    def received(ts, head, branch, session, hook, provider_session, by=MJ_BY):
        return formats.mj_line(
            *env(ts, "provider.event.received", head, branch, session, by),
            ("provider", "claude"),
            ("event", hook),
            ("provider_session", provider_session),
        )

    def session_path(ts: datetime, ep: str, branch: str, head: str) -> str:
        return f".ai/repo/sessions/{ts:%Y%m%dT%H%M%S}Z--{ep}--{branch.replace('/', '-')}--{head}--{sha(ep)[:16]}.md"

    def cand_path(rid: str, where: str = "candidates") -> str:
        return f".ai/repo/knowledge/{where}/{rid}.md"

    # ---- episode A: S03, refresh-token rotation (rotated into the archive) -------------------------
    br_a = "feat/token-rotation"
    dec_a = formats.mj_line(
        *env(T(2, 13, 9, 59), "decision.recorded", "4c1d2e9", br_a, ep_a, MJ_BY_OLD),
        ("task_id", "t-token-rotation"),
        (
            "decision",
            "Rotate refresh tokens within a token family; reusing a rotated token revokes the whole family.",
        ),
    )
    v1 = f"{ep_a}-{sha(dec_a)[:12]}"
    closed_a = T(2, 13, 35, 23)
    archived = [
        received(start_a, "4c1d2e9", br_a, None, "SessionStart", s03.sid, MJ_BY_OLD),
        formats.mj_line(
            *env(start_a, "session.started", "4c1d2e9", br_a, ep_a, MJ_BY_OLD),
            ("owner", "dev"),
            ("worker", f"claude-code/{OPUS}"),
        ),
        formats.mj_line(
            *env(T(2, 13, 6, 55), "task.started", "4c1d2e9", br_a, ep_a, MJ_BY_OLD),
            ("task_id", "t-token-rotation"),
            ("profile", "feature"),
            ("owner", "dev"),
            ("scope", "src/api/auth"),
        ),
        dec_a,
        received(T(2, 13, 22, 10), "4c1d2e9", br_a, ep_a, "PreCompact", s03.sid, MJ_BY_OLD),
        formats.mj_line(
            *env(T(2, 13, 22, 11), "knowledge.derived", "4c1d2e9", br_a, ep_a, MJ_BY_OLD),
            ("episode", ep_a),
            ("written", 1),
            ("unchanged", 0),
            ("skipped", 0),
            ("paths", cand_path(v1)),
        ),
        formats.mj_line(
            *env(T(2, 13, 35, 20), "task.finished", "0d4e8a1", br_a, ep_a, MJ_BY_OLD),
            ("task_id", "t-token-rotation"),
            ("outcome", "completed"),
            ("contract", {"majordomus.scope-integrity": "pass"}),
        ),
        received(T(2, 13, 35, 22), "0d4e8a1", br_a, ep_a, "SessionEnd", s03.sid, MJ_BY_OLD),
        formats.mj_line(
            *env(T(2, 13, 35, 22), "knowledge.derived", "0d4e8a1", br_a, ep_a, MJ_BY_OLD),
            ("episode", ep_a),
            ("written", 0),
            ("unchanged", 1),
            ("skipped", 0),
            ("paths", ""),
        ),
        formats.mj_line(
            *env(closed_a, "session.closed", "0d4e8a1", br_a, by=MJ_BY_OLD),
            ("outcome", "completed"),
            ("session_path", session_path(closed_a, ep_a, br_a, "0d4e8a1")),
        ),
    ]

    # ---- episode B: S07, rate limiting (two compactions) ------------------------------------------
    br_b = "feat/rate-limit"
    dec_b1 = formats.mj_line(
        *env(T(5, 13, 7, 58), "decision.recorded", "7c3e9a0", br_b, ep_b),
        ("task_id", "t-ratelimit"),
        (
            "decision",
            "Token bucket per API key, kept in process memory; fall back to the client IP when a request has no key.",
        ),
    )
    dec_b2 = formats.mj_line(
        *env(T(5, 13, 41, 37), "decision.recorded", "1a2b3c4", br_b, ep_b),
        ("task_id", "t-ratelimit"),
        (
            "decision",
            "Keep the token bucket in Redis, keyed by API key; the in-memory store stays for tests only.",
        ),
    )
    obs_b = formats.mj_line(
        *env(T(5, 13, 50, 21), "observation.recorded", "1a2b3c4", br_b, ep_b),
        ("kind", "friction"),
        ("subject", "src/api/ratelimit.lua"),
        (
            "statement",
            "The refill script received milliseconds while the Python bucket counts seconds; two test runs failed before the script divided by 1000.",
        ),
        ("evidence", ["test:tests/test_ratelimit_store.py", "file:src/api/ratelimit.lua"]),
    )
    rej = f"{ep_b}-{sha(dec_b1)[:12]}"
    k_redis = f"{ep_b}-{sha(dec_b2)[:12]}"
    k_lua = f"{ep_b}-{sha(obs_b)[:12]}"
    closed_b = T(5, 14, 29, 33)
    live = [
        received(start_b, "7c3e9a0", br_b, None, "SessionStart", s07.sid),
        formats.mj_line(
            *env(start_b, "session.started", "7c3e9a0", br_b, ep_b),
            ("owner", "dev"),
            ("worker", f"claude-code/{OPUS}"),
        ),
        # not registered in share/events.yaml (a newer majordomus build): store and show generically
        formats.mj_line(
            *env(T(5, 13, 0, 44), "briefing.rendered", "7c3e9a0", br_b, ep_b),
            ("lines", 38),
            ("budget", 60),
            ("candidates", 1),
        ),
        formats.mj_line(
            *env(T(5, 13, 2, 10), "knowledge.promoted", "7c3e9a0", br_b, ep_b),
            ("id", v1),
            ("path", cand_path(v1, "curated")),
        ),
        formats.mj_line(
            *env(T(5, 13, 4, 34), "task.started", "7c3e9a0", br_b, ep_b),
            ("task_id", "t-ratelimit"),
            ("profile", "feature"),
            ("owner", "dev"),
            ("scope", "src/api"),
        ),
        dec_b1,
        received(T(5, 13, 38, 29), "1a2b3c4", br_b, ep_b, "PreCompact", s07.sid),
        formats.mj_line(
            *env(T(5, 13, 38, 30), "knowledge.derived", "1a2b3c4", br_b, ep_b),
            ("episode", ep_b),
            ("written", 1),
            ("unchanged", 0),
            ("skipped", 0),
            ("paths", cand_path(rej)),
        ),
        dec_b2,
        obs_b,
        received(T(5, 14, 11, 29), "5d6e7f8", br_b, ep_b, "PreCompact", s07.sid),
        formats.mj_line(
            *env(T(5, 14, 11, 30), "knowledge.derived", "5d6e7f8", br_b, ep_b),
            ("episode", ep_b),
            ("written", 2),
            ("unchanged", 1),
            ("skipped", 0),
            ("paths", f"{cand_path(k_redis)} {cand_path(k_lua)}"),
        ),
        formats.mj_line(
            *env(T(5, 14, 29, 30), "task.finished", "e4b1c7d", br_b, ep_b),
            ("task_id", "t-ratelimit"),
            ("outcome", "completed"),
            ("contract", {"majordomus.scope-integrity": "pass"}),
        ),
        received(T(5, 14, 29, 32), "e4b1c7d", br_b, ep_b, "SessionEnd", s07.sid),
        formats.mj_line(
            *env(T(5, 14, 29, 32), "knowledge.derived", "e4b1c7d", br_b, ep_b),
            ("episode", ep_b),
            ("written", 0),
            ("unchanged", 3),
            ("skipped", 0),
            ("paths", ""),
        ),
        formats.mj_line(
            *env(closed_b, "session.closed", "e4b1c7d", br_b),
            ("outcome", "completed"),
            ("session_path", session_path(closed_b, ep_b, br_b, "e4b1c7d")),
        ),
        formats.mj_line(
            *env(T(6, 9, 12, 4), "knowledge.rejected", "e4b1c7d", br_b),
            ("id", rej),
            (
                "reason",
                "Superseded by the Redis store decided later in the same episode; per-process buckets multiply the limit by the replica count.",
            ),
        ),
    ]

    # ---- episode C: S11, audit log; the end hook cannot write candidates -------------------------
    br_c = "feat/audit-log"
    fin_c = formats.mj_line(
        *env(T(7, 11, 26, 52), "task.finished", "8e1f2a3", br_c, ep_c),
        ("task_id", "t-audit-retention"),
        ("outcome", "blocked"),
        ("contract", {"majordomus.scope-integrity": "pass"}),
    )
    k_blocked = f"{ep_c}-{sha(fin_c)[:12]}"
    closed_c = T(7, 11, 30, 16)
    live += [
        received(start_c, "b2d4f60", br_c, None, "SessionStart", s11.sid),
        formats.mj_line(
            *env(start_c, "session.started", "b2d4f60", br_c, ep_c),
            ("owner", "dev"),
            ("worker", f"claude-code/{OPUS}"),
        ),
        formats.mj_line(
            *env(T(7, 11, 1, 46), "task.started", "b2d4f60", br_c, ep_c),
            ("task_id", "t-audit-log"),
            ("profile", "feature"),
            ("owner", "dev"),
            ("scope", "src/api"),
        ),
        formats.mj_line(
            *env(T(7, 11, 23, 40), "task.finished", "8e1f2a3", br_c, ep_c),
            ("task_id", "t-audit-log"),
            ("outcome", "completed"),
            ("contract", {"majordomus.scope-integrity": "pass"}),
        ),
        formats.mj_line(
            *env(T(7, 11, 24, 2), "task.started", "8e1f2a3", br_c, ep_c),
            ("task_id", "t-audit-retention"),
            ("profile", "feature"),
            ("owner", "dev"),
            ("scope", "src/api/audit.py"),
        ),
        fin_c,
        received(T(7, 11, 30, 15), "8e1f2a3", br_c, ep_c, "SessionEnd", s11.sid),
        formats.mj_line(
            *env(closed_c, "session.closed", "8e1f2a3", br_c),
            ("outcome", "completed"),
            ("session_path", session_path(closed_c, ep_c, br_c, "8e1f2a3")),
        ),
        formats.mj_line(
            *env(T(7, 11, 30, 17), "provider.event.failed", "8e1f2a3", br_c),
            ("provider", "claude"),
            ("event", "end"),
            ("reason", "knowledge: candidates dir not writable"),
        ),
        # the person fixed the directory mode and ran `majordomus knowledge derive --episode` by hand
        formats.mj_line(
            *env(T(7, 11, 42, 8), "knowledge.derived", "8e1f2a3", br_c),
            ("episode", ep_c),
            ("written", 1),
            ("unchanged", 0),
            ("skipped", 0),
            ("paths", cand_path(k_blocked)),
        ),
    ]

    state = f"{REPO_ROOT}/.ai/local/state"
    h.put_text(f"{state}/ledger.20261105T000000Z.jsonl.archived", "".join(line + "\n" for line in archived))
    h.put_text(f"{state}/ledger.jsonl", "".join(line + "\n" for line in live))

    h.put_text(
        f"{REPO_ROOT}/.ai/repo/policy.yaml",
        """\
# majordomus policy for api-server (tracked). Absent session switches mean "on".
session:
  knowledge_on_end: true
  knowledge_on_compact: true
knowledge:
  candidates_max_files: 40
""",
    )
    h.put_text(
        f"{CANDIDATES}/README.md",
        """\
---
schema: context/v1
id: ai.repo.knowledge.candidates
kind: context
title: Knowledge candidates
description: Records the deriver proposed from this repository's ledger, awaiting a person's review.
status: active
scope: subtree
providers: ["*"]
audience: [human, agent]
composition: extend
order: 110
---

# Knowledge candidates

Each file here was written by `majordomus knowledge derive` at an episode boundary (close or
compaction) from ledger evidence: a recorded decision, a finished task, an observation. Nothing
here is verified. Treat a candidate as a claim to check, not as a rule to follow.

A person promotes a candidate (`knowledge promote <id>`, with evidence on stdin) into
`../curated/`, or rejects it (`knowledge reject <id> --reason …`); a rejected candidate stays here
with `status: superseded`. The file name is the record's identity. The queue is measured against
`knowledge.candidates_max_files` in `../../policy.yaml` and is never emptied by a machine.
""",
    )

    def derived_desc(what: str, task: str, ep: str) -> str:
        return f"Recorded as {what} under task {task} in episode {ep}."

    records = [
        (
            CANDIDATES,
            dict(
                id=rej,
                cls="convention",
                status="superseded",
                epistemics="decided",
                date="2026-11-05",
                title="Rate-limit buckets are kept in process memory, one per API key",
                description=derived_desc("a decision", "t-ratelimit", ep_b),
                tags=["derived", "decision"],
                origin="extracted",
                derived_from=[f"session:{ep_b}", "decision:t-ratelimit"],
                sections=[
                    (
                        "Rejected",
                        "Superseded by the Redis store decided later in the same episode; per-process "
                        "buckets multiply the limit by the replica count.",
                    )
                ],
            ),
        ),
        (
            CANDIDATES,
            dict(
                id=k_redis,
                cls="convention",
                status="candidate",
                epistemics="decided",
                date="2026-11-05",
                title="Rate-limit buckets live in Redis, keyed by API key",
                description=derived_desc("a decision", "t-ratelimit", ep_b),
                tags=["derived", "decision"],
                origin="extracted",
                derived_from=[f"session:{ep_b}", "decision:t-ratelimit"],
            ),
        ),
        (
            CANDIDATES,
            dict(
                id=k_lua,
                cls="lesson",
                status="candidate",
                epistemics="observed",
                date="2026-11-05",
                title="The Redis refill script must be given seconds, not milliseconds",
                description=f"Observed as friction in episode {ep_b}; applies whenever the Lua script and the Python bucket share refill maths.",
                tags=["derived", "observation"],
                origin="extracted",
                derived_from=[f"session:{ep_b}"],
                about="src/api/ratelimit.lua",
                route="project",
            ),
        ),
        (
            CANDIDATES,
            dict(
                id=k_blocked,
                cls="lesson",
                status="candidate",
                epistemics="inferred",
                date="2026-11-07",
                title="Task t-audit-retention ended blocked: retention period needs a compliance sign-off",
                description=f"Derived from the blocked task t-audit-retention in episode {ep_c}; check for the sign-off before picking the task up again.",
                tags=["derived", "task"],
                origin="extracted",
                derived_from=[f"session:{ep_c}", "task:t-audit-retention"],
            ),
        ),
        (
            CURATED,
            dict(
                id=v1,
                cls="convention",
                status="verified",
                epistemics="decided",
                date="2026-11-05",
                title="Refresh tokens rotate within a token family; reusing a rotated token revokes the family",
                description=derived_desc("a decision", "t-token-rotation", ep_a),
                tags=["derived", "decision"],
                origin="extracted",
                derived_from=[f"session:{ep_a}", "decision:t-token-rotation", f"session:{ep_b}"],
                sections=[
                    (
                        "Evidence",
                        "ADR-0008 (docs/adr/0008-refresh-token-rotation.md) was accepted on 2026-11-02 "
                        "and PR #412 merged the token family table. tests/test_tokens.py covers rotation "
                        "and reuse detection.",
                    )
                ],
            ),
        ),
    ]
    fact_title = "Health, readiness and metrics routes are exempt from rate limiting"
    records.append(
        (
            CURATED,
            dict(
                id=f"{ep_b}-{sha(fact_title)[:12]}",
                cls="fact",
                status="verified",
                epistemics="observed",
                date="2026-11-06",
                title=fact_title,
                description="GET /healthz, /readyz and /metrics bypass the limiter; extend the list when adding an operational route.",
                origin="authored",
                derived_from=[f"session:{ep_b}", "commit:1a2b3c4", "file:src/api/ratelimit.py"],
                relations=[("relates_to", "file:docs/adr/0009-rate-limiting.md")],
                sections=[
                    (
                        "Evidence",
                        "EXEMPT in src/api/ratelimit.py lists exactly these three paths (commit 1a2b3c4). "
                        "The explorer subagent of episode " + ep_b + " found no other operational routes, "
                        "and tests/test_health.py still passes with the limiter on.",
                    )
                ],
            ),
        )
    )
    for where, rec in records:
        h.put_text(f"{where}/{rec['id']}.md", formats.knowledge_record(**rec))
    return {"S03": ep_a, "S07": ep_b, "S11": ep_c}


# --------------------------------------------------------------------------------------------
# ADR collections (knowledge-and-records.md §10-§13)
# --------------------------------------------------------------------------------------------

WEB_ROOT = "repos/web-ui"
ADR_TOOLS_DIR = (
    "docs/adr"  # named by api-server's .adr-dir; the sessions and knowledge records cite docs/adr/…
)
NYGARD_LINK = "http://thinkrelentlessly.com/2011/11/15/documenting-architecture-decisions.html"

# adr-tools (Nygard) records of api-server: (file name, text). Two files claim number 5: two branches
# ran `adr new` from the same main (a deliberate duplicate id). 3 is superseded by 7 in adr-tools'
# own spelling. 8, 9 and 10 are the records the sample sessions wrote (S03, S07, S11).
ADR_TOOLS: list[tuple[str, str]] = [
    (
        "0001-record-architecture-decisions.md",
        formats.adr_nygard(
            1,
            "Record architecture decisions",
            date="2026-01-12",
            status="Accepted",
            sections=[
                (
                    "Context",
                    """
We need to record the architectural decisions made on this project.
The service is young, and storage, authentication and API versioning are about to be decided in
quick succession.
""",
                ),
                (
                    "Decision",
                    f"""
We will use Architecture Decision Records, as [described by Michael Nygard]({NYGARD_LINK}).
""",
                ),
                (
                    "Consequences",
                    """
See Michael Nygard's article, linked above. For a lightweight ADR toolset, see Nat Pryce's [adr-tools](https://github.com/npryce/adr-tools).
""",
                ),
            ],
        ),
    ),
    (
        "0002-use-postgresql-with-alembic-migrations.md",
        formats.adr_nygard(
            2,
            "Use PostgreSQL with Alembic migrations",
            date="2026-01-14",
            status="Accepted",
            sections=[
                (
                    "Context",
                    """
api-server stores users, API keys and, soon, refresh tokens. The data is relational and small
(tens of thousands of rows), and the infra repository already runs a managed PostgreSQL 16
instance for the billing service.
""",
                ),
                (
                    "Decision",
                    """
We will keep all service data in PostgreSQL 16, accessed through SQLAlchemy 2.0. Schema changes
are Alembic migrations, one per pull request, generated and then edited by hand.
""",
                ),
                (
                    "Consequences",
                    """
Local development needs a database; `make dev` starts one with docker compose. Migrations are
reviewed like code, and a migration that rewrites a large table needs a rollout note in its pull
request.
""",
                ),
            ],
        ),
    ),
    (
        "0003-authenticate-api-clients-with-server-side-session-cookies.md",
        formats.adr_nygard(
            3,
            "Authenticate API clients with server-side session cookies",
            date="2026-01-20",
            status="""
Superceded by [7. Use short-lived JWT access tokens with refresh tokens](0007-use-short-lived-jwt-access-tokens-with-refresh-tokens.md)
""",
            sections=[
                (
                    "Context",
                    """
The first clients are the web-ui single-page app and a handful of internal scripts. We need
authentication before the first endpoint that returns user data goes live.
""",
                ),
                (
                    "Decision",
                    """
Clients log in with POST /auth/login and receive a session cookie (HttpOnly, Secure,
SameSite=Lax). Sessions live in a `sessions` table and expire after 12 hours of inactivity.
Scripts use the same cookie jar.
""",
                ),
                (
                    "Consequences",
                    """
Every request costs one session lookup. Cross-origin clients need CORS with credentials, and
scripts outside a browser handle cookies awkwardly.
""",
                ),
            ],
        ),
    ),
    (
        "0004-version-the-public-api-in-the-url-path.md",
        formats.adr_nygard(
            4,
            "Version the public API in the URL path",
            date="2026-02-09",
            status="Accepted",
            sections=[
                (
                    "Context",
                    """
Partners integrate against the API on their own release cycles, and we will break the response
shape at least once this year (pagination). A version in a header is invisible in access logs and
easy to forget in curl examples.
""",
                ),
                (
                    "Decision",
                    """
All public routes live under `/v1/`. A breaking change gets a new prefix, and the previous one is
served for six months after the announcement. Operational routes (`/healthz`, `/readyz`,
`/metrics`) are not versioned.
""",
                ),
                (
                    "Consequences",
                    """
Routers are mounted per version in src/api/app.py. Docs and SDK examples name the version
explicitly; two versions in parallel mean two sets of contract tests.
""",
                ),
            ],
        ),
    ),
    (
        "0005-store-api-keys-as-sha-256-hashes.md",
        formats.adr_nygard(
            5,
            "Store API keys as SHA-256 hashes",
            date="2026-03-04",
            status="Accepted",
            sections=[
                (
                    "Context",
                    """
API keys are stored in clear in `api_keys.key`; a database dump would hand every partner's
credentials to whoever reads it. Keys are random 32-byte tokens, so a slow password hash buys
nothing over a plain digest.
""",
                ),
                (
                    "Decision",
                    """
We store the SHA-256 digest of each key and an 8-character prefix for display, and show the full
key once, at creation. Whatever needs a stable per-client id (logs, metrics, limits) uses the key
id, the first 4 bytes of the digest (`k_7f3a`), never the key.
""",
                ),
                (
                    "Consequences",
                    """
A lost key cannot be recovered, only rotated. Lookups go through an index on the digest; migration
1b7c_hash_api_keys hashes the existing keys in place.
""",
                ),
            ],
        ),
    ),
    (
        "0005-log-structured-json-to-stdout.md",
        formats.adr_nygard(
            5,
            "Log structured JSON to stdout",
            date="2026-03-05",
            status="Accepted",
            sections=[
                (
                    "Context",
                    """
Logs go to stdout and Fluent Bit ships them to Loki. Plain-text lines built with f-strings cannot
be queried by field, and multi-line tracebacks arrive split across entries.
""",
                ),
                (
                    "Decision",
                    """
We log with structlog's JSON renderer. Every line carries `ts`, `level`, `event`, `request_id`
and, once authenticated, `key_id`; a traceback is one field. No credentials, tokens or raw API
keys go into any field.
""",
                ),
                (
                    "Consequences",
                    """
Local development switches to the console renderer with LOG_FORMAT=console. Alerts query fields
instead of regular expressions, and a test fails when a log call receives an Authorization header.
""",
                ),
            ],
        ),
    ),
    (
        "0006-run-one-uvicorn-worker-per-container.md",
        formats.adr_nygard(
            6,
            "Run one Uvicorn worker per container",
            date="2026-04-15",
            status="Accepted",
            sections=[
                (
                    "Context",
                    """
Gunicorn with four Uvicorn workers per pod hid memory growth in a single worker, and per-process
state (caches, counters) behaved differently in development and in staging.
""",
                ),
                (
                    "Decision",
                    """
One Uvicorn process per container, no Gunicorn. We scale by replicas: three in staging and
production, with a CPU-based autoscaler up to eight. Process-local state is a cache, never a
source of truth.
""",
                ),
                (
                    "Consequences",
                    """
More and smaller pods (250m CPU, 256Mi memory). Anything that must hold across requests served by
different pods (sessions, rate limits, locks) needs a shared store.
""",
                ),
            ],
        ),
    ),
    (
        "0007-use-short-lived-jwt-access-tokens-with-refresh-tokens.md",
        formats.adr_nygard(
            7,
            "Use short-lived JWT access tokens with refresh tokens",
            date="2026-06-22",
            status="""
Accepted

Supercedes [3. Authenticate API clients with server-side session cookies](0003-authenticate-api-clients-with-server-side-session-cookies.md)
""",
            sections=[
                (
                    "Context",
                    """
Session lookups are 18 % of all database queries at peak, partner scripts struggle with cookies,
and a mobile client is planned for the autumn.
""",
                ),
                (
                    "Decision",
                    """
POST /auth/login returns a 15-minute access token (JWT, EdDSA, `kid` header) and an opaque refresh
token stored in `refresh_tokens`. Access tokens are verified without a database call; POST
/auth/refresh exchanges a refresh token for a new access token. web-ui keeps the refresh token in
an HttpOnly cookie scoped to /auth.
""",
                ),
                (
                    "Consequences",
                    """
Revoking access takes up to 15 minutes. Signing keys rotate through /.well-known/jwks.json. A
stolen refresh token cannot be detected yet; that needs its own decision.
""",
                ),
            ],
        ),
    ),
    (
        "0008-refresh-token-rotation.md",
        formats.adr_nygard(
            8,
            "Refresh token rotation with reuse detection",
            date="2026-11-02",
            status="Accepted",
            sections=[
                (
                    "Context",
                    """
Under ADR 7 a refresh token stays valid for 30 days, and anyone who copies it can replay it. We
need to notice a stolen refresh token and cut it off.
""",
                ),
                (
                    "Decision",
                    """
Every refresh issues a new refresh token and revokes the presented one. Tokens belong to a family
(`token_families`, with `family_id` on `refresh_tokens`); presenting a token that was already
rotated revokes the whole family and forces a new login. A jti revocation list was considered and
rejected: it cannot tell reuse from ordinary expiry.
""",
                ),
                (
                    "Consequences",
                    """
One extra write per refresh. A client that retries a refresh after a network error logs its user
out, so the web-ui client serialises refreshes. tests/test_tokens.py covers rotation and reuse.
""",
                ),
                ("Rollout", "Open: date not fixed."),
            ],
        ),
    ),
    (
        "0009-rate-limiting.md",
        formats.adr_nygard(
            9,
            "Rate-limit per API key with a Redis token bucket",
            date="2026-11-05",
            status="Accepted",
            sections=[
                (
                    "Context",
                    """
One partner's client sends bursts of 3,000 requests a minute to /search and slows it down for
everyone; there is no limit at all. Under ADR 6 we run three replicas, so an in-process limit is
multiplied by the replica count.
""",
                ),
                (
                    "Decision",
                    """
A token bucket per API key, keyed by the key id of ADR 5; anonymous requests are keyed by client
IP. RateLimitMiddleware runs after AuthMiddleware and answers 429 with Retry-After. Buckets live in
Redis, and take and refill are one Lua script, so concurrent pods cannot overdraw a bucket. The
default is RATE_LIMIT_PER_MINUTE=600; /healthz, /readyz and /metrics are exempt. MemoryStore
remains for tests and local development only.
""",
                ),
                (
                    "Consequences",
                    """
Redis is on the path of every request; when it is unreachable the limiter fails open and logs a
warning. Measured overhead is 0.19 ms at p99. `ratelimit_limited_total{client}` counts 429s by
hashed key id. Burst size is left to a later decision.
""",
                ),
            ],
        ),
    ),
    (
        "0010-audit-log.md",
        formats.adr_nygard(
            10,
            "Append-only audit log",
            date="2026-11-07",
            status="Proposed",
            sections=[
                (
                    "Context",
                    """
Admin actions (key revocation, role and plan changes) leave no trace beyond application logs,
which are kept for 14 days. Support and compliance need who did what and when, with the values
before and after.
""",
                ),
                (
                    "Decision",
                    """
An append-only `audit_events` table, written by the `@audited` decorator in the same transaction
as the change. A correction is a new event, never an UPDATE; the application role has no UPDATE
or DELETE grant on the table. Before and after are stored as a JSON diff, not as full snapshots.
""",
                ),
                (
                    "Consequences",
                    """
The table grows without bound until a retention period is set. Compliance has to sign off on that
period, so there is no TTL and no deletion job yet. Reading an object's history means replaying
its diffs.
""",
                ),
            ],
        ),
    ),
]

# Records that put questions to a person (knowledge-and-records.md §10.7): rulings R<n> and forks F<n>,
# some ruled, some open; the decision backlog lists the open ones.
ADR_TOOLS_WITH_RULINGS: list[tuple[str, str]] = [
    (
        "0014-audit-retention-and-redaction.md",
        formats.adr_nygard(
            14,
            "Keep audit events for a fixed period and redact secrets before writing",
            date="2026-11-20",
            status="Proposed",
            sections=[
                (
                    "Context",
                    "ADR-0010 left the audit table without a retention period, and diffs may carry secrets.",
                ),
                (
                    "Decision",
                    "Audit events are kept for the period R1 rules on; secrets are redacted before the write.",
                ),
                ("Consequences", "A deletion job runs nightly once R1 is ruled. Specs cited: SPEC-106."),
                (
                    "Rulings",
                    """
Two points need a ruling (rulings cited: RUL-035):

- **R1** How long are audit events kept?
  - A) 13 months, one year plus a month of slack
  - B) 7 years, as for invoices
  - C) forever, with cold storage after a year
  Recommendation: A, unless compliance names a law that needs B.
- **R2** Are secrets redacted before the write or masked on read?
  - A) redacted before the write
  - B) masked on read
  RULED 2026-11-21 — option A (maria: "a secret that was never written cannot leak")
""",
                ),
                (
                    "Forks found while amending ADR-0010",
                    """
- F1 Whether support staff may read redacted diffs at all.
- F2 Whether masking needs a key per tenant. Resolved by R2.
""",
                ),
            ],
        ),
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
                body="""
# 11. Rate-limit burst defaults to the per-minute limit

## Context

The review of PR #431 asked whether the burst size can be configured. ADR 9 sized every bucket at
RATE_LIMIT_PER_MINUTE tokens, so burst and rate were one number.

## Decision

Burst is its own setting, RATE_LIMIT_BURST, and defaults to RATE_LIMIT_PER_MINUTE, so existing
clients see no change.

## Consequences

A partner who needs larger bursts gets them only through the deployment-wide setting, which
raises them for every client at once.

## Alternatives rejected

- A fixed burst of 100: batch clients that burst legitimately would have been cut off on deploy.
""",
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
                body="""
# 12. Burst size and rate are set per API key tier, not per deployment

## Context

Two partners asked for bursts of 2,000 requests. Raising RATE_LIMIT_BURST for the deployment
(adr-0011) would raise it for the client whose traffic started ADR 9 as well.

## Decision

Every API key has a tier, `standard` or `batch`. The tier table in Settings gives rate and burst:
standard 600/min with a burst of 600, batch 600/min with a burst of 3,000. RATE_LIMIT_BURST is
removed, and the Lua script receives the burst as an argument on every call.

## Consequences

Moving a client to another tier is a database update and writes an audit event (ADR 10). The
tier is cached with the key lookup, so a change takes effect within 60 seconds.
""",
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
                body="""
# Context

ADR 10 makes audit_events append-only and leaves retention open. Task t-audit-retention ended
blocked: compliance has not signed off on a period, and production adds about 40,000 rows a day.

# Decision

Keep audit events in PostgreSQL for 13 months. A monthly job exports older events as Parquet to the
compliance bucket and deletes them, under a role that only the export job holds.

# Consequences

The application role still has no DELETE grant; only the export job does. Nothing is deleted
before compliance accepts this record, and a person, not the deriver, moves it to accepted.
""",
            ),
        ),
    ]
    return [(name, formats.adr_majordomus(**adr)) for name, adr in adrs]


# web-ui: MADR (docs/decisions, one MADR 2.x record with the bullet header) and agent-ways v0
# (docs/architecture/<area>/ADR-NNN-…, archive under docs/architecture/archive/<area>/). The two
# numberings do not overlap (0000-0004 vs 101-103), so the ids stay unique within the repository.
MADR: list[tuple[str, str]] = [
    (
        "0000-use-markdown-architectural-decision-records.md",
        formats.adr_madr(
            "Use Markdown Architectural Decision Records",
            header=(("Status", "accepted"), ("Deciders", "dev, Jana Weber"), ("Date", "2026-02-16")),
            sections=[
                (
                    "Context and Problem Statement",
                    """
We want to record architectural decisions made in this project.
Which format and structure should these records follow?
""",
                ),
                (
                    "Considered Options",
                    f"""
* [MADR](https://adr.github.io/madr/) 2.1.2 – The Markdown Architectural Decision Records
* [Michael Nygard's template]({NYGARD_LINK}) – The first incarnation of the term "ADR"
* Formless – No conventions for file format and structure
""",
                ),
                (
                    "Decision Outcome",
                    """
Chosen option: "MADR 2.1.2", because

* Implicit assumptions should be made explicit, so that people understand the decisions later on.
* web-ui decisions usually weigh several libraries, and MADR lists the options and their pros and cons.
* The MADR structure is comprehensible and facilitates usage & maintenance.
""",
                ),
            ],
        ),
    ),
    (
        "0001-use-jest-with-react-testing-library.md",
        formats.adr_madr(
            "Use Jest with React Testing Library for component tests",
            front={
                "status": formats.yaml_quoted("superseded by ADR-0002"),
                "date": "2026-11-06",
                "decision-makers": "dev",
            },
            sections=[
                (
                    "Context and Problem Statement",
                    """
web-ui needs component tests before the login and session work starts. The app is built with Vite.
Which test runner do we use?
""",
                ),
                (
                    "Considered Options",
                    """
* Jest with ts-jest and React Testing Library
* Vitest with React Testing Library
""",
                ),
                (
                    "Decision Outcome",
                    """
Chosen option: "Jest with ts-jest and React Testing Library", because the team knows it and the
Create React App projects we migrate from already carry a Jest configuration.

### Consequences

* Good, because existing tests and mocks carry over unchanged.
* Bad, because Jest transforms TypeScript and modules on its own, separately from Vite.
""",
                ),
            ],
        ),
    ),
    (
        "0002-use-vitest-and-mock-the-api-client.md",
        formats.adr_madr(
            "Use Vitest and mock the API client at the module boundary",
            front={
                "status": "accepted",
                "date": "2026-11-06",
                "decision-makers": ["dev"],
                "consulted": ["Jana Weber"],
            },
            sections=[
                (
                    "Context and Problem Statement",
                    """
The login form tests need a mocked API client. Under Jest (ADR-0001) aliases and
`import.meta.env` resolved differently from the Vite build, and two tests passed while the build
failed. How do we test components against the API client?
""",
                ),
                (
                    "Decision Drivers",
                    """
* One module resolution for the build and the tests
* Mocks that keep the real client's types
""",
                ),
                (
                    "Considered Options",
                    """
* Keep Jest and copy Vite's aliases into moduleNameMapper
* Vitest, mocking src/api/client.ts with vi.mock
* Mock Service Worker at the network layer
""",
                ),
                (
                    "Decision Outcome",
                    """
Chosen option: "Vitest, mocking src/api/client.ts with vi.mock", because it reuses vite.config.ts
and keeps component tests free of fetch details.

### Consequences

* Good, because tests and build resolve modules the same way.
* Bad, because module mocks skip request serialisation; the client keeps its own tests.

### Confirmation

CI runs `npm test` (vitest run) and `npm run build`; jest is gone from package.json.
""",
                ),
                ("More Information", "Supersedes ADR-0001."),
            ],
        ),
    ),
    (
        "0003-map-server-validation-errors-in-the-form.md",
        formats.adr_madr(
            "Map server validation errors to fields in the form, not in the API client",
            front={
                "status": "accepted",
                "date": "2026-11-06",
                "decision-makers": "dev",
            },
            sections=[
                (
                    "Context and Problem Statement",
                    """
POST /auth/login answers 422 with `errors[]` (field, code, message), but src/api/client.ts threw
the body away and the login form showed "Something went wrong". Where do server errors become
field errors?
""",
                ),
                (
                    "Considered Options",
                    """
* In the API client, returning a map from field to message
* In the form, from a ValidationError that carries errors[] as sent
""",
                ),
                (
                    "Decision Outcome",
                    """
Chosen option: "In the form, from a ValidationError that carries errors[] as sent", because only
the form knows its field names, and the admin pages map the same errors differently.

### Consequences

* Good, because the client stays a thin transport and keeps the server's error codes.
* Bad, because every form needs a mapping; a shared helper covers the common case.
* Neutral, because errors are announced with aria-live="polite" and focus moves to the first invalid field.
""",
                ),
            ],
        ),
    ),
    (
        "0004-import-date-fns-per-function.md",
        formats.adr_madr(
            "Import date-fns per function, enforced by a lint rule",
            front={
                "status": "proposed",
                "date": "2026-11-08",
                "decision-makers": "dev",
                "informed": "web team",
            },
            sections=[
                (
                    "Context and Problem Statement",
                    """
The new date picker pulled in all of date-fns (41.2 kB) through `import * as dateFns from
"date-fns"`. How do we keep the whole library from coming back into the bundle?
""",
                ),
                (
                    "Considered Options",
                    """
* Per-function imports, enforced by a lint rule
* Per-function imports, checked in review
* Replace date-fns with Intl.DateTimeFormat
""",
                ),
                (
                    "Decision Outcome",
                    """
Chosen option: "Per-function imports, enforced by a lint rule", because review has missed it once
already. Switching src/components/DatePicker.tsx saved 38.6 kB. The rule (no-restricted-imports
for namespace imports of date-fns) is not written yet, so this record stays proposed.
""",
                ),
            ],
        ),
    ),
]

AGENT_WAYS_ADRS: list[tuple[str, str]] = [
    (
        "archive/frontend/ADR-101-keep-the-session-in-localstorage.md",
        formats.adr_agent_ways(
            101,
            "Keep the session in localStorage so that a reload stays logged in",
            front={
                "status": "Superseded",
                "date": "2026-03-10",
                "deciders": ["dev", "claude"],
                "related": ["ADR-102"],
                "superseded_by": "[ADR-103]",
            },
            banner="Archived 2026-11-03: superseded by ADR-103.",
            sections=[
                (
                    "Context",
                    """
After a reload the app forgot the user and showed the login form until the session endpoint
answered; on slow connections that took two seconds.
""",
                ),
                (
                    "Decision",
                    """
Store the session (user id, expiry, display name) in localStorage, read it synchronously on start
and refresh it from GET /auth/session in the background.
""",
                ),
                (
                    "Consequences",
                    """
### Positive
- No login flash on reload.

### Negative
- The stored expiry goes stale: an expired session looks valid until the background call returns.
- Whatever a script can read is exposed to XSS.

### Neutral
- Tokens never go into localStorage; the refresh token stays in its HttpOnly cookie.

## Alternatives Considered
- **Cookie only, spinner until /auth/session answers** — Rejected because of the two-second blank screen.
""",
                ),
            ],
        ),
    ),
    (
        "frontend/ADR-102-poll-the-session-endpoint-every-60-seconds.md",
        formats.adr_agent_ways(
            102,
            "Poll the session endpoint every 60 seconds to detect expiry",
            front={
                "status": "Superseded",
                "date": "2026-04-21",
                "deciders": ["dev", "claude"],
                "related": ["ADR-101"],
            },
            sections=[
                (
                    "Context",
                    """
With the session in localStorage (ADR-101) the app learned that a session had expired only when a
request failed with 401, often halfway through a form.
""",
                ),
                (
                    "Decision",
                    """
useSession polls GET /auth/session every 60 seconds and sets `expired` when it answers 401;
SessionBanner renders while `expired` is true.
""",
                ),
                (
                    "Consequences",
                    """
### Positive
- Users see the banner before they lose form input.

### Negative
- One request per minute for every open tab.

### Neutral
- `expired` starts as true until the first poll resolves (the cause of the banner flash later).

## Alternatives Considered
- **Decode the expiry on the client** — Rejected because the refresh token is HttpOnly and the access token's expiry says nothing about the session.
""",
                ),
            ],
        ),
    ),
    (
        "frontend/ADR-103-session-state-lives-in-memory-and-starts-unknown.md",
        formats.adr_agent_ways(
            103,
            "Session state lives in memory and starts unknown until GET /auth/session answers",
            front={
                "status": "Accepted",
                "date": "2026-11-03",
                "deciders": ["dev", "claude"],
                "related": ["ADR-102", "ADR-104"],
                "supersedes": "[ADR-101]",
            },
            sections=[
                (
                    "Context",
                    """
The banner flash and the stale expiry in localStorage (ADR-101) have one cause: the app decides
about the session before the server has answered.
""",
                ),
                (
                    "Decision",
                    """
useSession holds `{ user, expired }` in memory only and starts at `null` (unknown); nothing is
written to localStorage. SessionBanner renders only when `expired === true`, and routes that need
a user render a skeleton while the state is unknown. When to refresh the access token is left to
ADR-104.
""",
                ),
                (
                    "Consequences",
                    """
### Positive
- No flash of the banner or of the login form; tests/SessionBanner.test.tsx covers the loading state.

### Negative
- A skeleton for up to one round trip on every full page load.

### Neutral
- Polling stays as ADR-102 describes it; only its initial state changes.

## Alternatives Considered
- **Keep localStorage and validate on read** — Rejected because a stored expiry can be trusted only after the server confirms it.
- **Render the session into index.html on the server** — Rejected because web-ui is served from a CDN as static files.
""",
                ),
            ],
        ),
    ),
]


AGENT_WAYS_WITH_RULINGS: list[tuple[str, str]] = [
    (
        "frontend/ADR-105-forms-keep-their-input-across-a-session-expiry.md",
        formats.adr_agent_ways(
            105,
            "Forms keep their input across a session expiry",
            front={
                "status": "Proposed",
                "date": "2026-11-12",
                "deciders": ["dev", "claude"],
                "related": ["ADR-103"],
            },
            sections=[
                (
                    "Context",
                    "When the session expires mid-form (ADR-103), the login redirect drops what was typed.",
                ),
                (
                    "Decision",
                    "Form drafts are kept in memory across the re-login; nothing is written to storage.",
                ),
                (
                    "Rulings",
                    """
### R1 Where does a draft live during the re-login?

A. in memory, in the form's own state
B. in sessionStorage

RULED 2026-11-13 — option A (dev: "ADR-103 keeps session data out of storage")

### R2 What happens to a draft after a failed re-login?

Recommendation: discard it after the third failed attempt.
""",
                ),
                ("Forks", "- F1 Whether file inputs are kept (browsers refuse to restore them)."),
            ],
        ),
    ),
]


def adr_collections(h: Home, episodes: dict[str, str]) -> None:
    """Four ADR formats in two repositories, with the deliberate faults listed in sample/README.md."""
    h.put_text(f"{REPO_ROOT}/.adr-dir", ADR_TOOLS_DIR + "\n")
    for name, text in ADR_TOOLS + ADR_TOOLS_WITH_RULINGS:
        h.put_text(f"{REPO_ROOT}/{ADR_TOOLS_DIR}/{name}", text)
    for name, text in majordomus_adrs(episodes):
        h.put_text(f"{REPO_ROOT}/.ai/repo/adrs/{name}", text)
    for name, text in MADR:
        h.put_text(f"{WEB_ROOT}/docs/decisions/{name}", text)
    for rel, text in AGENT_WAYS_ADRS + AGENT_WAYS_WITH_RULINGS:
        h.put_text(f"{WEB_ROOT}/docs/architecture/{rel}", text)


# --------------------------------------------------------------------------------------------
# Assembly
# --------------------------------------------------------------------------------------------


def extra_events(h: Home) -> None:
    h.log(
        T(5, 6, 0, 0),
        {
            "ts": sec(T(5, 6, 0, 0)),
            "event": "event_log_dropped",
            "bytes": 41943040,
            "reason": "archive failed",
        },
    )


def fix_plus00(h: Home) -> None:
    """Rewrite one S08 row (between two rows two seconds apart) with a +00:00 timestamp."""
    s08 = next(s for s in h.sessions if s.key == "S08")
    rows = [
        e
        for e in h.events
        if e["session"] == s08.sid
        and e["d"]["event"] == "way_redisclosed"
        and e["d"]["way"] == "softwaredev/architecture/design"
    ]
    e = rows[0]  # the row at +1 s in the "run them" turn, between fires at +0 s and +2 s
    e["d"]["ts"] = e["dt"].strftime("%Y-%m-%dT%H:%M:%S+00:00")
    e["line"] = formats.events_line(**e["d"])


def route(h: Home) -> dict[str, list]:
    out: dict[str, list] = {"live": [], "legacy": []}
    members: dict[tuple[str, int], list] = {}
    for e in sorted(h.events, key=lambda e: (e["sort"], e["seq"])):
        dest, dt = e["dest"], e["dt"]
        if dest == "legacy":
            out["legacy"].append(e["line"])
            continue
        if dt >= LIVE_FROM or e["d"]["event"] == "judge_call":
            out["live"].append(e["line"])
            continue
        for name, member, upto in ARCHIVES:
            if dt < upto:
                members.setdefault((name, member), []).append(e["line"])
                break
        if dt >= OVERLAP_FROM:
            out["live"].append(e["line"])
    out["archives"] = members
    return out


def build(out: Path) -> Home:
    h = Home()
    for fn in (
        s01_pre1,
        s02_split,
        s03_old_compacted,
        s04_old_web,
        s05_notes_overlap,
        s06_no_transcript,
        s07_long,
        s08_web,
        s09_infra,
        s10_notes,
        s11_judge,
        s12_numbers,
        s13_unknown_channel,
        s14_transcript_only,
    ):
        fn(h)
    extra_events(h)
    fix_plus00(h)
    ledger_entries(h)
    episodes = majordomus_repo(h)
    adr_collections(h, episodes)
    routed = route(h)
    # live log: order of writing; overlap lines and kept judge_call lines come first after rotation
    h.put_text(f"{STATE}/events.jsonl", "".join(line + "\n" for line in routed["live"]))
    h.put_text(LEGACY, "".join(line + "\n" for line in routed["legacy"]))
    archives: dict[str, bytes] = {}
    for (name, _member), lines in sorted(routed["archives"].items()):
        archives[name] = archives.get(name, b"") + gz_member(name, lines)
    for name, data in archives.items():
        h.files[f"{STATE}/{name}"] = data
    preserved = [
        formats.events_line(
            "2025-12-31T16:02:11Z",
            "session_start",
            project="/home/dev/src/api-server",
            session="0c6f1f7e-5d1b-4c33-9f0a-preserved0001",
        ),
        formats.events_line(
            "2025-12-31T16:03:40Z",
            "way_fired",
            way="softwaredev/delivery/commits",
            domain="softwaredev",
            trigger="bash",
            scope="agent",
            project="/home/dev/src/api-server",
            session="0c6f1f7e-5d1b-4c33-9f0a-preserved0001",
        ),
    ]
    preserved_name = "events-preserved-2026-01-01.jsonl.gz"
    h.files[f"{STATE}/{preserved_name}"] = gz_member(preserved_name, preserved)
    for root, rel, text in WAYS:
        h.put_text(f"{root}/{rel}", text)

    out = Path(out)
    if out.exists():
        extra = sorted(
            p.name for p in out.iterdir() if p.name not in (".claude", ".local", ".config", "repos")
        )
        if extra:
            sys.exit(f"refusing to wipe {out}: it holds {extra[:3]} (not a sample home)")
        shutil.rmtree(out)
    for rel in sorted(h.files):
        path = out / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(h.files[rel])
    return h


def turns_of(h: Home, sid: str) -> int:
    rows = []
    for e in h.events:
        d = e["d"]
        if d.get("session") != sid or not str(d.get("ts", "")).endswith("Z"):
            continue
        if d["event"] in ("way_fired", "way_redisclosed", "way_keyword_gated", "way_suppressed") or (
            d["event"] == "way_judged" and d.get("verdict") == "block"
        ):
            rows.append(e["dt"])
    rows.sort()
    n, last = 0, None
    for dt in rows:
        if last is None or (dt - last).total_seconds() > 3:
            n += 1
        last = dt
    return n


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args(argv)
    h = build(args.out)
    if args.quiet:
        return
    total = sum(len(b) for b in h.files.values())
    print(f"wrote {len(h.files)} files, {total} bytes, to {args.out}")
    print(
        "key  session                               project                    prompts event-turns compactions transcript"
    )
    for s in h.sessions:
        print(
            f"{s.key}  {s.sid}  {s.project:<26} {s.prompts:>7} {turns_of(h, s.sid) if s.gen else '-':>11} "
            f"{s.compactions:>11} {'yes' if s.write_transcript else 'no':>10}  {s.note}"
        )


if __name__ == "__main__":
    main()
