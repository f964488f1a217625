"""The majordomus repository api-server (knowledge-and-records.md §3-§8): its ledger.jsonl, three episodes
tied to sample sessions, and the knowledge candidates and curated records derived from them. The prose
is under sample/texts/knowledge/."""

# ruff: noqa: E501  (long literal transcript content)
from __future__ import annotations

import hashlib
from datetime import datetime

from sample import formats, texts
from sample.sessions import Session
from sample.state import Home
from sample.timeline import OPUS, T, floor_s, sec

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
        return floor_s(s.opened)

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

    h.put_text(f"{REPO_ROOT}/.ai/repo/policy.yaml", texts.text("knowledge/policy.yaml"))
    h.put_text(f"{CANDIDATES}/README.md", texts.text("knowledge/candidates-README.md"))

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
                sections=texts.sections("knowledge/in-memory-buckets.md"),
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
                sections=texts.sections("knowledge/token-families.md"),
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
                    (heading, text.replace("$episode", ep_b))
                    for heading, text in texts.sections("knowledge/exempt-routes.md")
                ],
            ),
        )
    )
    for where, rec in records:
        h.put_text(f"{where}/{rec['id']}.md", formats.knowledge_record(**rec))
    return {"S03": ep_a, "S07": ep_b, "S11": ep_c}
