"""Session S08: ambiguous join, +00:00 row, shadow judge, gate fallback, manual compaction."""

from __future__ import annotations

from datetime import timedelta

from sample.sessions import Session
from sample.specs import EV, GATED, JUDGE_CALL, JUDGED, RD, SUP, F, P, S
from sample.state import Home
from sample.timeline import SONNET, T, floor_s


def play(h: Home) -> None:
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
