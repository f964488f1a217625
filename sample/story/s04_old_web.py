"""Session S04: unknown way id fired; judge_call kept in the live log."""

from __future__ import annotations

from sample.sessions import Session
from sample.specs import JUDGE_CALL, F
from sample.state import Home
from sample.timeline import SONNET, T
from sample.ways import UNKNOWN_WAY


def play(h: Home) -> None:
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
