"""Session S18: release 2.5 of the infrastructure. "commit" appears in questions about history, which the
keyword fallback's floor gates, and in "commit to Friday", which the judge blocks; the commits way is a
near-miss on "save this as a wip" (the hook refuses the message) and on tagging and pushing. The design
way is a near-miss on a terraform plan that fails and fires on splitting the modules, which the person
turns down."""

from __future__ import annotations

from sample.sessions import Session
from sample.specs import GATED, JUDGE_CALL, JUDGED, MISS, F
from sample.state import Home
from sample.timeline import SONNET, T

COMMITS = "softwaredev/delivery/commits"
DESIGN = "softwaredev/architecture/design"
PLAN = "terraform plan -no-color"


def gated(p: str) -> dict:
    return GATED(COMMITS, prob_en=p, floor="0.1500")


def play(h: Home) -> None:
    s = Session(
        h,
        "S18",
        "infra",
        T(10, 14, 5, 37),
        gen="new",
        model=SONNET,
        version="2.1.192",
        branch="release/2.5",
        note="arms: commits keyword-gated, judge-blocked and a near-miss; design a near-miss and fired",
    )
    s.start()
    s.prompt(
        "which commit broke the staging deploy yesterday?",
        fires=[gated("0.0712")],
        steps=[
            (
                "bash",
                "git log --since=yesterday --oneline",
                "e1d0c3a db: bump engine to 16.4\n77ab2f0 eks: node pool",
                {},
            )
        ],
        answer="e1d0c3a bumped the db engine; staging's parameter group is still for 15.",
    )
    s.prompt(
        "the plan shows the db instance being replaced, why?",
        fires=[MISS(DESIGN, "0.4310")],
        steps=[
            (
                "bash",
                PLAN,
                "  # module.db.aws_db_instance.main must be replaced\nPlan: 1 to add, 0 to change, 1 to destroy.",
                {},
            )
        ],
        answer="The parameter group family changed with the engine, which forces a new instance.",
    )
    s.prompt(
        "keep the instance, change only the parameter group",
        fires=[MISS(DESIGN, "0.4540")],
        steps=[
            (
                "edit",
                "modules/db/main.tf",
                'family = "postgres15"',
                'family = "postgres16"\n  parameter_group = aws_db_parameter_group.pg16.name',
                {},
            ),
            (
                "bash!",
                PLAN,
                "Error: Unsupported argument\n  on modules/db/main.tf line 14:\n"
                '  An argument named "parameter_group" is not expected here.',
                {},
            ),
        ],
        answer="terraform rejects the argument name.",
    )
    s.prompt(
        "the argument is still wrong, it is parameter_group_name",
        steps=[
            ("edit", "modules/db/main.tf", "parameter_group = ", "parameter_group_name = ", {}),
            ("bash", PLAN, "Plan: 1 to add, 1 to change, 0 to destroy.", {}),
        ],
        answer="Now an in-place change plus the new group.",
    )
    s.prompt(
        "can we commit to a Friday release?",
        fires=[
            JUDGED(COMMITS, "0.0600", "block", candidates="1"),
            JUDGE_CALL(cost="0.00040100", candidates="1", tokens=(388, 21, 0, 0)),
        ],
        answer="Yes, if the parameter group change goes through staging on Thursday.",
    )
    s.prompt(
        "save this as a wip and push the branch",
        fires=[MISS(COMMITS, "0.4710")],
        steps=[
            (
                "bash!",
                "git commit -am wip",
                "⧗   input: wip\n✖   subject may not be empty [subject-empty]\n✖   type may not be empty [type-empty]",
                {},
            )
        ],
        answer="The commit-msg hook refused `wip`; nothing pushed.",
    )
    s.prompt(
        "no, give it a proper conventional message",
        fires=[F(COMMITS, "semantic:embedding:en", 0.5810)],
        steps=[
            (
                "bash",
                "git commit -S -am 'fix(db): parameter group for postgres 16'",
                "[release/2.5 4c9d2e7] fix(db): parameter group for postgres 16",
                {},
            ),
            (
                "bash",
                "git push -u origin release/2.5",
                "branch 'release/2.5' set up to track 'origin/release/2.5'.",
                {},
            ),
        ],
        answer="Committed as `fix(db): …` and pushed.",
    )
    s.prompt(
        "is the parameter group fix in the last commit?",
        fires=[gated("0.0655")],
        steps=[("bash", "git show --stat HEAD", " modules/db/main.tf | 8 ++++++--", {})],
        answer="Yes, `modules/db/main.tf` only.",
    )
    s.prompt(
        "tag the release",
        fires=[MISS(COMMITS, "0.4420")],
        steps=[("bash", "git tag -s v2.5.0 -m 'infra 2.5.0'", "", {})],
        answer="Tagged `v2.5.0` (signed).",
    )
    s.prompt(
        "write the release notes for 2.5",
        steps=[("write", "RELEASE_NOTES.md", "## 2.5.0\n\n- Postgres 16 parameter group, in place\n", {})],
        answer="Release notes written.",
    )
    s.prompt(
        "what went in since the last release commit?",
        fires=[gated("0.0801")],
        steps=[("bash", "git log v2.4.0..v2.5.0 --oneline | wc -l", "12", {})],
        answer="Twelve changes, listed in the release notes.",
    )
    s.prompt(
        "should we split the terraform modules by environment?",
        fires=[F(DESIGN, "semantic:embedding:en", 0.6120)],
        answer="Yes: `envs/staging` and `envs/production` each calling the shared modules with their own state.",
    )
    s.prompt(
        "no, one module with workspaces is enough for two environments",
        fires=[MISS(DESIGN, "0.4630")],
        answer="Agreed: workspaces, one backend, the environment from `terraform.workspace`.",
    )
    s.prompt(
        "push the tag",
        fires=[MISS(COMMITS, "0.4210")],
        steps=[("bash", "git push origin v2.5.0", " * [new tag]         v2.5.0 -> v2.5.0", {})],
        answer="Pushed.",
    )
    s.prompt("done for today", answer="See you tomorrow.")
    s.finish()
