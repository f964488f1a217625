"""Session S07: long session, two auto compactions, subagent with its own transcript."""

# ruff: noqa: E501  (long literal transcript content)
from __future__ import annotations

from sample.sessions import Session
from sample.specs import AUTO, CHECK, EV, NEAR, RD, SUP, F, P, S
from sample.state import Home
from sample.timeline import HAIKU, T
from sample.tool_output import ok

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


def play(h: Home) -> None:
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
