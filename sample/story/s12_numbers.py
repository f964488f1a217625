"""Session S12: rows with JSON numbers; semantic bash multilingual; postcheck."""

from __future__ import annotations

from sample.sessions import Session
from sample.specs import JUDGE_CALL, F
from sample.state import Home
from sample.timeline import SONNET, T


def play(h: Home) -> None:
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
