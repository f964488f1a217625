"""Session S17: outgoing webhooks. softwaredev/architecture/design fires on the structural questions and
its answers are corrected by the next prompt (a worker process on a one-dyno app, a tolerance in code,
the wrong delivery path); it is a near-miss or judge-blocked on the implementation prompts, one of
which fails its test run. softwaredev/code/testing fires on the test prompts, which pass, and is a
near-miss on two code changes that fail or need a fix. A commit fails the pre-commit hook while the
commits way was shown."""

from __future__ import annotations

from sample.sessions import Session
from sample.specs import JUDGE_CALL, JUDGED, MISS, RD, F
from sample.state import Home
from sample.timeline import T
from sample.tool_output import ok

DESIGN = "softwaredev/architecture/design"
TESTING = "softwaredev/code/testing"
COMMITS = "softwaredev/delivery/commits"
HOOKS = "src/api/webhooks"
PYTEST = "uv run pytest tests/webhooks -q"


def blocked(p_yes: str, cost: str) -> list[dict]:
    """The judge read the design way as irrelevant to the prompt and kept it out."""
    return [
        JUDGED(DESIGN, p_yes, "block", candidates="2"),
        JUDGE_CALL(cost=cost, candidates="2", tokens=(598, 33, 0, 0)),
    ]


def play(h: Home) -> None:
    s = Session(
        h,
        "S17",
        "api",
        T(10, 9, 30, 51),
        gen="new",
        version="2.1.192",
        branch="feat/webhooks",
        note="arms: design fired and corrected, a near-miss and judge-blocked on implementation",
    )
    s.start()
    s.prompt(
        "we need outgoing webhooks for order events, how should we structure it?",
        fires=[F(DESIGN, "semantic:embedding:en", 0.6710)],
        think="Outbox table written in the order's transaction, a worker draining it.",
        answer="An outbox table filled in the order transaction and a separate worker process that delivers.",
    )
    s.prompt(
        "no, no separate worker process, we run on a single dyno",
        fires=[F(DESIGN, "semantic:embedding:en", 0.5930)],
        answer="Then an in-process scheduler drains the outbox every few seconds, with a row lock per delivery.",
    )
    s.prompt(
        "retries with exponential backoff, at most 8 attempts",
        fires=[MISS(DESIGN, "0.4620")],
        steps=[
            ("write", f"{HOOKS}/delivery.py", "MAX_ATTEMPTS = 8\n\ndef next_attempt(n: int) -> float:\n", {}),
            ("bash", PYTEST, ok(6), {}),
        ],
        answer="`next_attempt(n)` doubles from 10 s; the eighth failure marks the delivery dead.",
    )
    s.prompt(
        "sign the payloads with HMAC-SHA256",
        fires=blocked("0.1200", "0.00061200"),
        steps=[
            (
                "write",
                f"{HOOKS}/signing.py",
                "def signature(secret: bytes, body: bytes, ts: int) -> str:\n",
                {},
            )
        ],
        answer="`X-Signature: t=<ts>,v1=<hex>` over `ts.body`, as Stripe does.",
    )
    s.prompt(
        "write unit tests for the signature",
        fires=[F(TESTING, "keyword")],
        steps=[
            (
                "write",
                "tests/webhooks/test_signing.py",
                "def test_a_changed_body_breaks_the_signature():\n",
                {},
            ),
            ("bash", PYTEST, ok(11), {}),
        ],
        answer="Five cases; 11 passed in the package.",
    )
    s.prompt(
        "how do receivers check the timestamp? replay attacks worry me",
        fires=[F(DESIGN, "semantic:embedding:en", 0.5702)],
        answer="They reject a timestamp older than five minutes; I hard-coded 300 s in `signing.py`.",
    )
    s.prompt(
        "the tolerance belongs in settings, not in the code",
        fires=[MISS(DESIGN, "0.4520")],
        steps=[
            (
                "edit",
                f"{HOOKS}/signing.py",
                "TOLERANCE = 300",
                "TOLERANCE = settings.WEBHOOK_TOLERANCE_SECONDS",
                {},
            ),
            ("bash", PYTEST, ok(11), {}),
        ],
        answer="`WEBHOOK_TOLERANCE_SECONDS`, default 300.",
    )
    s.prompt(
        "add an admin endpoint to replay a failed delivery",
        fires=blocked("0.1810", "0.00059900"),
        steps=[
            ("edit", "src/api/routes/admin.py", "# webhooks", '@router.post("/webhooks/{id}/replay")', {}),
            (
                "bash!",
                PYTEST,
                "FAILED tests/webhooks/test_admin.py::test_replay_needs_admin - assert 200 == 403\n1 failed, 11 passed",
                {},
            ),
        ],
        answer="Endpoint added; the permission test fails.",
    )
    s.prompt(
        "still failing: the admin check is missing on the route",
        fires=[MISS(TESTING, "0.4240")],
        steps=[
            (
                "edit",
                "src/api/routes/admin.py",
                '@router.post("/webhooks/{id}/replay")',
                '@router.post("/webhooks/{id}/replay", dependencies=[is_admin])',
                {},
            ),
            ("bash", PYTEST, ok(12), {}),
        ],
        answer="`is_admin` on the route; 12 passed.",
    )
    s.prompt(
        "should deliveries go through the outbox or straight to the queue?",
        fires=[F(DESIGN, "semantic:embedding:en", 0.6302)],
        answer="Through the outbox for every delivery: one path, and the order transaction decides.",
    )
    s.prompt(
        "that's not what I asked, I meant for replays only",
        fires=[RD(DESIGN, "semantic:embedding:en", 0.5811)],
        answer="Replays skip the outbox: the admin endpoint enqueues the stored delivery directly.",
    )
    s.prompt(
        "add the migration for the webhook tables",
        fires=[MISS(DESIGN, "0.4130")],
        steps=[
            (
                "bash",
                "alembic revision --autogenerate -m 'webhook outbox and deliveries'",
                "Generating migrations/versions/a41f_webhook_outbox_and_deliveries.py ...  done",
                {},
            )
        ],
        answer="Migration generated: `webhook_outbox`, `webhook_deliveries`.",
    )
    s.prompt(
        "write the tests for the retry schedule",
        fires=[F(TESTING, "keyword")],
        steps=[
            ("write", "tests/webhooks/test_delivery.py", "def test_the_eighth_failure_is_dead():\n", {}),
            ("bash", PYTEST, ok(15), {}),
        ],
        answer="Four cases, the eighth failure marks the delivery dead; 15 passed.",
    )
    s.prompt(
        "cap the backoff at one hour",
        fires=[MISS(TESTING, "0.4330")],
        steps=[
            ("edit", f"{HOOKS}/delivery.py", "return 10 * 2**n", "return min(10 * 2**n, 3600)", {}),
            (
                "bash!",
                PYTEST,
                "FAILED tests/webhooks/test_delivery.py::test_the_schedule_doubles - assert 3600 == 1280"
                "\n1 failed, 14 passed",
                {},
            ),
        ],
        answer="Capped; the schedule test still expects the uncapped values.",
    )
    s.prompt(
        "commit",
        fires=[F(COMMITS, "keyword")],
        steps=[
            (
                "bash!",
                "git commit -S -am 'feat(webhooks): signed order webhooks through an outbox'",
                "ruff....................................................................Failed\n"
                "- hook id: ruff\nsrc/api/webhooks/delivery.py:1:1: I001 Import block is un-sorted",
                {},
            )
        ],
        answer="The pre-commit hook failed: ruff's import order.",
    )
    s.prompt(
        "fix the import order and commit again",
        fires=[F(COMMITS, "keyword")],
        steps=[
            ("bash", "uv run ruff check --fix src/api/webhooks", "Found 1 error (1 fixed, 0 remaining).", {}),
            (
                "bash",
                "git commit -S -am 'feat(webhooks): signed order webhooks through an outbox'",
                "[feat/webhooks 2e6b8d1] feat(webhooks): signed order webhooks through an outbox",
                {},
            ),
        ],
        answer="Committed.",
    )
    s.prompt(
        "document the webhook design as an ADR",
        fires=[F("softwaredev/docs/adr", "keyword"), F(DESIGN, "semantic:embedding:en", 0.5540, dt=1)],
        steps=[
            (
                "write",
                "docs/adr/0015-outgoing-webhooks-through-an-outbox.md",
                "# 15. Outgoing webhooks through an outbox\n\nStatus: proposed\n",
                {},
            )
        ],
        answer="ADR-0015 drafted: outbox, in-process scheduler, HMAC signatures, replays outside the outbox.",
    )
    s.finish()
