"""Session S11: judge gate: pass, block, ancestor block, capped; check pull; teammate fire."""

from __future__ import annotations

from sample.sessions import Session
from sample.specs import CHECK, EV, JUDGE_CALL, JUDGED, SUP, A, F, P, S
from sample.state import Home
from sample.timeline import T
from sample.tool_output import ok


def play(h: Home) -> None:
    s = Session(
        h,
        "S11",
        "api",
        T(7, 11, 0, 9),
        gen="new",
        version="2.1.184",
        branch="feat/audit-log",
        note="judge gate: pass, block, ancestor block, capped; check pull; teammate fire",
    )
    s.start(
        fires=[
            F("meta/orientation", "state"),
            F(
                "collaboration/teams",
                "state",
                minimal=True,
                scope="teammate",
                team="api-refactor-team",
                inject=True,
                dt=1,
            ),
        ]
    )
    s.prompt(
        "add an audit log for admin actions: who, what, when, before/after",
        fires=[
            JUDGED("softwaredev/architecture/design", "0.812", "pass"),
            JUDGED("softwaredev/delivery", "0.050", "block", candidates="3"),
            EV(
                "way_judged",
                way="softwaredev/delivery/commits",
                p_yes="0.050",
                threshold="0.30",
                verdict="block",
                reason="ancestor",
                ancestor="softwaredev/delivery",
                hook="UserPromptSubmit",
                scope="agent",
                project=P,
                session=S,
                agent_id=A,
            ),
            JUDGE_CALL(cost="0.00071400", tokens=(688, 41, 0, 0)),
            F("softwaredev/architecture/design", "semantic:embedding:en", 0.6650, dt=1),
        ],
        steps=[("grep", "is_admin", ["src/api/routes/admin.py", "src/api/auth/middleware.py"], {})],
        think="An append-only table plus a decorator on admin routes.",
        answer="Plan: `audit_events` table, an `@audited` decorator, JSON diff of before/after.",
    )
    s.prompt(
        "write the tests for the decorator first",
        steps=[
            (
                "edit",
                "tests/test_audit.py",
                "",
                "def test_audited_records_actor_and_diff(admin_client):",
                {
                    "pre": [
                        CHECK("softwaredev/code/testing", "file", 3, 0, 3, 0, 1.40, "false"),
                        F("softwaredev/code/testing", "check-pull", inject=True),
                    ]
                },
            )
        ],
        answer="Tests written; they fail as expected.",
    )
    s.prompt(
        "implement it",
        steps=[
            ("edit", "src/api/audit.py", "", "def audited(action: str):", {}),
            (
                "edit",
                "tests/test_audit.py",
                "assert events == []",
                'assert [e.action for e in events] == ["user.disable"]',
                {"pre": [SUP("softwaredev/code/testing", "file", "refire", kind="check")]},
            ),
        ],
        answer="Decorator and model done.",
    )
    s.prompt(
        "which of these ways would even apply here? run the gate over all of them",
        fires=[
            EV(
                "gate_capped",
                judged="8",
                unjudged="2",
                ways="softwaredev/docs/readme,collaboration/teams",
                hook="UserPromptSubmit",
                scope="agent",
                project=P,
                session=S,
            ),
            JUDGED("softwaredev/docs/adr", "0.640", "pass", candidates="10", judge_ms="655", gate_ms="702"),
            JUDGE_CALL(cost="0.00148300", candidates="8", tokens=(1490, 96, 512, 0)),
            F("softwaredev/docs/adr", "semantic:embedding:en", 0.5533, dt=1),
        ],
        answer="Eight were judged; the ADR way passed.",
    )
    s.prompt(
        "record the audit log decision as an ADR",
        steps=[
            ("edit", "docs/adr/0010-audit-log.md", "", "# 10. Append-only audit log\n\nStatus: proposed", {})
        ],
        answer="ADR-0010 drafted.",
    )
    s.prompt(
        "commit the delivery part now",
        fires=[
            JUDGED("softwaredev/delivery", "0.730", "pass"),
            JUDGED("softwaredev/delivery/commits", "0.910", "pass"),
            JUDGE_CALL(cost="0.00069800", tokens=(702, 40, 0, 0)),
            F("softwaredev/delivery", "semantic:embedding:en", 0.5870, dt=1),
            F(
                "softwaredev/delivery/commits",
                "keyword",
                dt=1,
                parent="softwaredev/delivery",
                tree_depth="1",
                epoch_distance="0",
            ),
        ],
        steps=[
            (
                "bash",
                "git commit -S -am 'feat(audit): append-only audit log for admin actions'",
                "[feat/audit-log 8e1f2a3] feat(audit): append-only audit log for admin actions",
                {},
            )
        ],
        answer="Committed.",
    )
    for q in ["add the migration", "run the suite", "show the diff stat", "push", "anything left?", "bye"]:
        steps = []
        if q == "run the suite":
            steps = [("bash", "make test", ok(281), {"pre": [F("build", "bash")]})]
        if q == "show the diff stat":
            steps = [
                ("bash", "git diff --stat main", " 7 files changed, 244 insertions(+), 3 deletions(-)", {})
            ]
        if q == "add the migration":
            steps = [
                (
                    "bash",
                    "alembic revision --autogenerate -m 'audit events'",
                    "Generating migrations/versions/9c1e_audit_events.py ...  done",
                    {},
                )
            ]
        s.prompt(q, steps=steps, answer="Done.")
    s.finish()
