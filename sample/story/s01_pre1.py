"""Session S01: pre-1.0 shell hooks, legacy file only."""

# ruff: noqa: E501  (long literal transcript content)
from __future__ import annotations

from sample.sessions import Session
from sample.specs import F
from sample.state import Home
from sample.timeline import T
from sample.tool_output import ok


def play(h: Home) -> None:
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
