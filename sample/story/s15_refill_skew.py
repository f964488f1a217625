"""Session S15: the rate limiter's refill under a clock jump. softwaredev/code/testing is a near-miss on
the prompts that change code without naming tests (turns 1-4, 8-9, 11-12): those turns fail a test run
and the next prompt corrects them; where it fires (turns 5, 6, 10) the tests are written first and pass."""

from __future__ import annotations

from sample.sessions import Session
from sample.specs import MISS, F
from sample.state import Home
from sample.timeline import T
from sample.tool_output import ok

TESTING = "softwaredev/code/testing"
BUCKET = "src/api/ratelimit/bucket.py"
LUA = "src/api/ratelimit/refill.lua"


def play(h: Home) -> None:
    s = Session(
        h,
        "S15",
        "api",
        T(9, 13, 10, 4),
        gen="new",
        version="2.1.192",
        branch="fix/refill-clock",
        note="arms: testing a near-miss on code changes (errors, corrections), fired on test prompts (clean)",
    )
    s.start()
    s.prompt(
        "the rate limiter lets bursts through after a deploy, find out why",
        fires=[MISS(TESTING, "0.4107")],
        steps=[("grep", "def refill", [BUCKET], {}), ("read", BUCKET, {})],
        answer="`refill()` reads `time.time()`: when NTP steps the wall clock back, the bucket refills twice.",
    )
    s.prompt(
        "make the refill use a monotonic clock",
        fires=[MISS(TESTING, "0.4412")],
        steps=[
            ("edit", BUCKET, "now = time.time()", "now = time.monotonic()", {}),
            (
                "bash!",
                "uv run pytest tests/test_bucket.py -q",
                "FAILED tests/test_bucket.py::test_refill_after_idle - assert 1 == 5\n1 failed, 11 passed in 0.41s",
                {},
            ),
        ],
        answer="Switched to `time.monotonic()`; `test_refill_after_idle` fails, it freezes `time.time`.",
    )
    s.prompt(
        "still failing, test_refill_after_idle is red",
        fires=[MISS(TESTING, "0.4583")],
        steps=[
            ("edit", "tests/test_bucket.py", "freeze_time(", "patch('time.monotonic', ", {}),
            (
                "bash!",
                "uv run pytest tests/test_bucket.py -q",
                "FAILED tests/test_bucket.py::test_refill_after_idle - TypeError: 'float' object is not callable"
                "\n1 failed, 11 passed in 0.39s",
                {},
            ),
        ],
        answer="Patching `time.monotonic` collides with the module's import; still red.",
    )
    s.prompt(
        "no, don't patch time.monotonic in the test, inject the clock",
        fires=[MISS(TESTING, "0.4690")],
        steps=[
            (
                "edit",
                BUCKET,
                "    def take(self, now: float) -> bool:",
                "    clock: Callable[[], float] = time.monotonic\n\n    def take(self) -> bool:",
                {},
            ),
            ("bash", "uv run pytest tests/test_bucket.py -q", ok(12), {}),
        ],
        answer="`Bucket` takes a `clock`; the tests pass a fake one. 12 passed.",
    )
    s.prompt(
        "write a test for the backwards clock jump",
        fires=[F(TESTING, "keyword")],
        steps=[
            (
                "write",
                "tests/test_bucket_clock.py",
                "def test_a_clock_jumping_back_refills_nothing(fake_clock):\n"
                "    bucket = Bucket(capacity=5, clock=fake_clock)\n",
                {},
            ),
            ("bash", "uv run pytest tests/test_bucket_clock.py -q", ok(1), {}),
        ],
        answer="A clock stepping back 30 s leaves the bucket as it was. Passes.",
    )
    s.prompt(
        "and a unit test for the refill cap at capacity",
        fires=[F(TESTING, "keyword")],
        steps=[
            (
                "edit",
                "tests/test_bucket_clock.py",
                "",
                "def test_refill_never_exceeds_capacity(fake_clock):",
                {},
            ),
            ("bash", "uv run pytest tests/test_bucket_clock.py -q", ok(2), {}),
        ],
        answer="Added; an hour idle still leaves exactly `capacity` tokens.",
    )
    s.prompt("run the whole suite", steps=[("bash", "uv run pytest -q", ok(296), {})], answer="All green.")
    s.prompt(
        "the redis script has the same bug, fix it there too",
        fires=[MISS(TESTING, "0.4302")],
        steps=[
            ("read", LUA, {}),
            ("edit", LUA, "local now = tonumber(ARGV[2])", "local now = redis.call('TIME')[1]", {}),
            (
                "bash!",
                "uv run pytest tests/integration -q",
                "FAILED tests/integration/test_limits.py::test_burst - assert 0 == 10\n1 failed, 8 passed in 2.31s",
                {},
            ),
        ],
        answer="The script now reads Redis's own clock; the burst test fails.",
    )
    s.prompt(
        "that broke the integration tests, the lua script uses the wrong time unit",
        fires=[MISS(TESTING, "0.4475")],
        steps=[
            (
                "edit",
                LUA,
                "local now = redis.call('TIME')[1]",
                "local t = redis.call('TIME')\nlocal now = t[1] * 1000 + math.floor(t[2] / 1000)",
                {},
            ),
            ("bash", "uv run pytest tests/integration -q", ok(9), {}),
        ],
        answer="Milliseconds, as the Python side uses; 9 passed.",
    )
    s.prompt(
        "write the tests for the lua refill against a real redis",
        fires=[F(TESTING, "keyword")],
        steps=[
            (
                "write",
                "tests/integration/test_refill_lua.py",
                "def test_the_script_refills_by_redis_time(redis_server):\n",
                {},
            ),
            ("bash", "uv run pytest tests/integration/test_refill_lua.py -q", ok(3), {}),
        ],
        answer="Three tests against a throwaway Redis; they pass.",
    )
    s.prompt(
        "add a metric for rejected requests",
        fires=[MISS(TESTING, "0.4218")],
        steps=[
            (
                "edit",
                "src/api/ratelimit/middleware.py",
                "return too_many(request)",
                "REJECTED.labels(route=request.route).inc()\n    return too_many(request)",
                {},
            ),
            (
                "bash!",
                "uv run pytest tests/test_metrics.py -q",
                "FAILED tests/test_metrics.py::test_counter_names - AssertionError: 'ratelimit_rejected'"
                "\n1 failed, 4 passed in 0.22s",
                {},
            ),
        ],
        answer="Counter `ratelimit_rejected` added; the naming test fails.",
    )
    s.prompt(
        "the metric name is wrong, counters must end in _total",
        fires=[MISS(TESTING, "0.4391")],
        steps=[
            (
                "edit",
                "src/api/ratelimit/metrics.py",
                '"ratelimit_rejected"',
                '"ratelimit_rejected_total"',
                {},
            ),
            ("bash", "uv run pytest tests/test_metrics.py -q", ok(5), {}),
        ],
        answer="Renamed to `ratelimit_rejected_total`; 5 passed.",
    )
    s.prompt(
        "commit",
        fires=[F("softwaredev/delivery/commits", "keyword")],
        steps=[
            (
                "bash",
                "git commit -S -am 'fix(ratelimit): refill by a monotonic clock, in Python and Lua'",
                "[fix/refill-clock 5d21e0c] fix(ratelimit): refill by a monotonic clock, in Python and Lua",
                {},
            )
        ],
        answer="Committed.",
    )
    s.prompt(
        "update the ADR with the clock decision",
        fires=[F("softwaredev/docs/adr", "keyword")],
        steps=[
            (
                "edit",
                "docs/adr/0009-rate-limit-per-api-key-with-a-redis-token-bucket.md",
                "## Consequences",
                "## Clock\n\nRefill reads a monotonic clock (Python) and Redis TIME (Lua), never the wall clock."
                "\n\n## Consequences",
                {},
            )
        ],
        answer="ADR-0009 has a Clock section.",
    )
    s.finish()
