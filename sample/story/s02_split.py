"""Session S02: split-brain: session_start and subagent dispatch only in the legacy file."""

# ruff: noqa: E501  (long literal transcript content)
from __future__ import annotations

from sample.sessions import Session
from sample.specs import F
from sample.state import Home
from sample.timeline import T


def play(h: Home) -> None:
    s = Session(
        h,
        "S02",
        "infra",
        T(2, 8, 40, 11),
        gen="old",
        transcript=False,
        version="2.1.101",
        note="split-brain: session_start and subagent dispatch only in the legacy file",
    )
    s.start(start_dest="legacy")
    s.prompt(
        "terraform plan is showing drift on the db module, can you look",
        fires=[F("infra/terraform", "semantic:embedding:en", "0.7114")],
        steps=[
            (
                "bash",
                "terraform plan -no-color",
                '  ~ module.db.aws_db_instance.main\n      ~ instance_class = "db.t3.medium" -> "db.t3.large"\nPlan: 0 to add, 1 to change, 0 to destroy.',
                {},
            )
        ],
        answer="Someone resized the instance in the console; the code still says t3.medium.",
    )
    s.prompt(
        "what does modules/db/main.tf set for the class",
        steps=[("read", "terraform/modules/db/main.tf", {})],
        answer="It takes `var.db_instance_class`; the default is `db.t3.medium`.",
    )
    s.prompt(
        "change the default to large so the plan is clean, then re-run the plan via make",
        steps=[
            ("edit", "terraform/variables.tf", 'default = "db.t3.medium"', 'default = "db.t3.large"', {}),
            (
                "bash",
                "make plan",
                "terraform plan -out=tfplan\nNo changes. Your infrastructure matches the configuration.",
                {"pre": [F("build", "bash")]},
            ),
        ],
        answer="The plan is clean now.",
    )
    s.prompt(
        "have an agent double check the k8s manifests still point at the right db host",
        fires=[
            F(
                "softwaredev/code/navigation",
                "prompt",
                minimal=True,
                scope="subagent",
                dest="legacy",
                inject=False,
                dt=4,
            )
        ],
        answer="The agent found `DB_HOST` set from the module output in all three manifests.",
    )
    s.prompt(
        "looks good, commit it",
        steps=[
            (
                "bash",
                "git commit -am 'infra(db): match instance class to production'",
                "[main 91ab7c0] infra(db): match instance class to production\n 1 file changed, 1 insertion(+), 1 deletion(-)",
                {"pre": [F("softwaredev/delivery/commits", "bash")]},
            )
        ],
        answer="Committed.",
    )
    s.prompt("that's all for now", answer="Bye.")
    s.finish()
