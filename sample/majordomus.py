"""The majordomus repository api-server (knowledge-and-records.md §3, §7): its ledger.jsonl, three episodes
tied to sample sessions (S03, S07, S11), and the ids of the knowledge records derived in them, which
sample/knowledge.py writes."""

# ruff: noqa: E501  (long literal ledger content)
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime

from sample import formats
from sample.sessions import Session
from sample.state import Home
from sample.timeline import OPUS, T, floor_s, sec

REPO_ROOT = "repos/api-server"
MJ_BY = "majordomus/0.6.0"
MJ_BY_OLD = "majordomus/0.5.2"


@dataclass(frozen=True)
class Episodes:
    """The episode id of each session key, and the ids of the records the deriver wrote in them."""

    by_session: dict[str, str]
    token_families: str  # S03's decision, promoted in S07's episode
    in_memory_buckets: str  # S07's first decision, rejected the next day
    redis_buckets: str  # S07's second decision
    refill_seconds: str  # S07's observation
    audit_blocked: str  # S11's blocked task


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def majordomus_repo(h: Home) -> Episodes:
    """Write the repository's ledger; return its episodes (for the knowledge records and the ADRs)."""
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

    return Episodes(
        by_session={"S03": ep_a, "S07": ep_b, "S11": ep_c},
        token_families=v1,
        in_memory_buckets=rej,
        redis_buckets=k_redis,
        refill_seconds=k_lua,
        audit_blocked=k_blocked,
    )
