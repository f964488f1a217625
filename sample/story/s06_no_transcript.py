"""Session S06: transcript deleted upstream; subagent dispatch with prompt channel; subagents switched off."""

from __future__ import annotations

from sample.sessions import Session
from sample.specs import EV, RD, F, P, S
from sample.state import Home
from sample.timeline import T


def play(h: Home) -> None:
    s = Session(
        h,
        "S06",
        "infra",
        T(5, 9, 0, 3),
        gen="new",
        transcript=False,
        version="2.1.176",
        note="transcript deleted upstream; subagent dispatch with prompt channel; subagents switched off",
    )
    s.start()
    s.prompt(
        "plan the staging cluster upgrade to 1.31",
        fires=[
            F("infra/terraform", "semantic:embedding:en", 0.6403),
            EV(
                "gate_fallback",
                reason="config: judge disabled",
                hook="UserPromptSubmit",
                scope="agent",
                project=P,
                session=S,
            ),
        ],
        steps=[
            (
                "bash",
                "terraform plan -no-color -target=module.staging",
                "Plan: 0 to add, 2 to change, 0 to destroy.",
                {},
            )
        ],
        answer="Two node groups change; no replacement.",
    )
    s.prompt(
        "have an explorer check which helm charts pin the old api versions",
        steps=[("bash", "helm list -A", "NAME  NAMESPACE  REVISION\ningress  kube-system  14", {})],
        fires=[
            F(
                "softwaredev/code/navigation",
                "prompt",
                minimal=True,
                scope="subagent",
                agent_id="a" + h.hexs(16),
                inject=False,
                dt=3,
            )
        ],
        answer="The explorer found two charts using `policy/v1beta1`.",
    )
    s.prompt(
        "turn off way injection for subagents in this session, they're noisy",
        answer="Done: `ways subagents off --session`.",
    )
    s.prompt(
        "send another explorer to list the CRDs we own",
        fires=[
            EV(
                "injection_suppressed",
                dt=3,
                reason="subagents_off",
                switch="session",
                lane="subagent_start",
                agent="Explore",
                scope="subagent",
                project=P,
                session=S,
            )
        ],
        answer="Seven CRDs, all under `platform.dev`.",
    )
    for i, (q, a) in enumerate(
        [
            (
                "bump the chart versions for ingress and cert-manager",
                "Bumped both in `helm/values-staging.yaml`.",
            ),
            (
                "what does the upgrade runbook say about draining?",
                "Drain one node group at a time with a 10 minute PDB wait.",
            ),
            ("apply the terraform plan for staging", "Applied: 2 changed."),
            ("check the nodes are all Ready", "All 9 nodes Ready on v1.31.2."),
            ("write a short note for the team channel", "Drafted the note."),
            ("done", "Upgrade complete."),
        ]
    ):
        steps = []
        if i == 2:
            steps = [
                (
                    "bash",
                    "terraform apply tfplan",
                    "Apply complete! Resources: 0 added, 2 changed, 0 destroyed.",
                    {"pre": [RD("infra/terraform", "bash")]},
                )
            ]
        if i == 3:
            steps = [("bash", "kubectl get nodes", "NAME  STATUS  VERSION\nstaging-a-1  Ready  v1.31.2", {})]
        s.prompt(q, steps=steps, answer=a)
    s.finish()
