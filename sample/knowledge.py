"""The knowledge of the majordomus repository api-server (knowledge-and-records.md §4-§6): its policy, the
candidates the deriver wrote in the sample's episodes (one rejected), and two curated records. The prose
is under sample/texts/knowledge/."""

# ruff: noqa: E501  (long literal record content)
from __future__ import annotations

from sample import formats, texts
from sample.majordomus import REPO_ROOT, Episodes, sha
from sample.state import Home

CANDIDATES = f"{REPO_ROOT}/.ai/repo/knowledge/candidates"
CURATED = f"{REPO_ROOT}/.ai/repo/knowledge/curated"


def knowledge_records(h: Home, episodes: Episodes) -> None:
    ep_a, ep_b, ep_c = (episodes.by_session[key] for key in ("S03", "S07", "S11"))
    v1, rej = episodes.token_families, episodes.in_memory_buckets
    k_redis, k_lua, k_blocked = episodes.redis_buckets, episodes.refill_seconds, episodes.audit_blocked
    h.put_text(f"{REPO_ROOT}/.ai/repo/policy.yaml", texts.text("knowledge/policy.yaml"))
    h.put_text(f"{CANDIDATES}/README.md", texts.text("knowledge/candidates-README.md"))

    def derived(where: str, kind: str, *, status: str = "candidate", **record) -> tuple[str, dict]:
        """A record the deriver wrote from an episode: tagged `derived` and its kind, provenance `extracted`."""
        return where, dict(record, status=status, tags=["derived", kind], origin="extracted")

    def decision(where: str, task: str, ep: str, *, also: tuple[str, ...] = (), **record) -> tuple[str, dict]:
        """A decision recorded under `task` in episode `ep` (and read again in the episodes `also` names)."""
        return derived(
            where,
            "decision",
            epistemics="decided",
            description=f"Recorded as a decision under task {task} in episode {ep}.",
            derived_from=[f"session:{ep}", f"decision:{task}", *also],
            **record,
        )

    records = [
        decision(
            CANDIDATES,
            "t-ratelimit",
            ep_b,
            id=rej,
            cls="convention",
            status="superseded",
            date="2026-11-05",
            title="Rate-limit buckets are kept in process memory, one per API key",
            sections=texts.sections("knowledge/in-memory-buckets.md"),
        ),
        decision(
            CANDIDATES,
            "t-ratelimit",
            ep_b,
            id=k_redis,
            cls="convention",
            date="2026-11-05",
            title="Rate-limit buckets live in Redis, keyed by API key",
        ),
        derived(
            CANDIDATES,
            "observation",
            id=k_lua,
            cls="lesson",
            epistemics="observed",
            date="2026-11-05",
            title="The Redis refill script must be given seconds, not milliseconds",
            description=f"Observed as friction in episode {ep_b}; applies whenever the Lua script and the Python bucket share refill maths.",
            derived_from=[f"session:{ep_b}"],
            about="src/api/ratelimit.lua",
            route="project",
        ),
        derived(
            CANDIDATES,
            "task",
            id=k_blocked,
            cls="lesson",
            epistemics="inferred",
            date="2026-11-07",
            title="Task t-audit-retention ended blocked: retention period needs a compliance sign-off",
            description=f"Derived from the blocked task t-audit-retention in episode {ep_c}; check for the sign-off before picking the task up again.",
            derived_from=[f"session:{ep_c}", "task:t-audit-retention"],
        ),
        decision(
            CURATED,
            "t-token-rotation",
            ep_a,
            also=(f"session:{ep_b}",),
            id=v1,
            cls="convention",
            status="verified",
            date="2026-11-05",
            title="Refresh tokens rotate within a token family; reusing a rotated token revokes the family",
            sections=texts.sections("knowledge/token-families.md"),
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
