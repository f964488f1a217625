"""Session S09: session_start also in the legacy file; cwd changes after cd."""

from __future__ import annotations

from sample.sessions import Session
from sample.specs import AUTO, NEAR, F
from sample.state import Home
from sample.timeline import T


def play(h: Home) -> None:
    s = Session(
        h,
        "S09",
        "infra",
        T(6, 15, 30, 2),
        gen="new",
        version="2.1.180",
        branch="main",
        note="session_start also in the legacy file; cwd changes after cd",
    )
    s.start(dup_legacy=True)
    s.prompt(
        "the api pods can't reach the new db, check the security group in terraform",
        fires=[NEAR("infra/terraform", prob_en="0.4712", prob_multi="0.4388", tau_s="0.5000")],
        steps=[
            (
                "bash",
                "cd terraform && terraform state list | grep security_group",
                "module.db.aws_security_group.db\nmodule.eks.aws_security_group.node",
                {"cd": "/home/dev/src/infra/terraform"},
            ),
            ("read", "modules/db/main.tf", {"pre": [F("infra/terraform", "file", span=AUTO, inject=False)]}),
        ],
        answer="The db group allows the old node CIDR only.",
    )
    s.prompt(
        "fetch the db password from vault so I can test a connection",
        steps=[
            (
                "bash",
                "vault kv get -field=username secret/api/staging/db",
                "api_app",
                {"pre": [F("security/secrets", "semantic:bash:en", 0.6588)]},
            )
        ],
        answer="I fetched the username only; run the password fetch yourself so it stays out of this transcript.",
    )
    s.prompt(
        "allow the node security group instead of the CIDR",
        steps=[
            (
                "edit",
                "modules/db/main.tf",
                "cidr_blocks = [var.node_cidr]",
                "security_groups = [var.node_sg_id]",
                {},
            ),
            ("bash", "terraform plan -no-color", "Plan: 1 to add, 0 to change, 1 to destroy.", {}),
        ],
        answer="Plan replaces one rule.",
    )
    s.prompt(
        "apply it",
        steps=[
            (
                "bash",
                "terraform apply -auto-approve tfplan",
                "Apply complete! Resources: 1 added, 0 changed, 1 destroyed.",
                {},
            )
        ],
        answer="Applied; pods connect now.",
    )
    s.prompt("thanks", answer="Done.")
    s.finish()
