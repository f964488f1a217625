"""Session S13: a way shown by hand (trigger unknown); secrets bash fire; suppressed pull."""

from __future__ import annotations

from sample.sessions import Session
from sample.specs import EV, A, F, P, S
from sample.state import Home
from sample.timeline import T


def play(h: Home) -> None:
    s = Session(
        h,
        "S13",
        "infra",
        T(8, 20, 15, 33),
        gen="new",
        version="2.1.190",
        branch="main",
        note="a way shown by hand (trigger unknown); secrets bash fire; suppressed pull",
    )
    s.start()
    s.prompt(
        "print the env vars the deploy script needs",
        steps=[
            (
                "bash",
                "printenv | grep -E '^(AWS_REGION|CLUSTER)='",
                "AWS_REGION=eu-central-1\nCLUSTER=staging",
                {"pre": [F("security/secrets", "bash")]},
            )
        ],
        answer="Only AWS_REGION and CLUSTER are read; credentials come from the instance role.",
    )
    s.prompt(
        "show me the commits way, I want to read it",
        steps=[
            (
                "bash",
                "ways show way softwaredev/delivery/commits",
                "# Commits (personal conventions)\n...",
                {"pre": [F("softwaredev/delivery/commits", "unknown", inject=False)]},
            )
        ],
        answer="That's the user version; it shadows the shipped one.",
    )
    s.prompt(
        "and the secrets way",
        fires=[
            EV(
                "way_pulled",
                dt=1,
                way="security/secrets",
                domain="security",
                window="suppressed",
                scope="agent",
                project=P,
                session=S,
                agent_id=A,
                reason="refire window open",
                out_of_band=False,
                stamped=False,
                epoch_distance=1,
            )
        ],
        answer="Not re-shown: it fired a moment ago.",
    )
    s.finish()
