"""Session S13: a way shown by hand (trigger unknown); secrets bash fire; suppressed pull; secrets printed.

`printenv` prints three made-up secrets (a database password, a Django secret key, a deploy token),
real-shaped so waysweb's scanner finds them: the sample's Secrets page lists them and every page
shows them masked. None was ever a credential of anything.
"""

from __future__ import annotations

from sample.sessions import Session
from sample.specs import EV, A, F, P, S
from sample.state import Home
from sample.timeline import T

PRINTENV = (
    "AWS_REGION=eu-central-1\n"
    "CLUSTER=staging\n"
    "DATABASE_URL=postgres://deploy:Vd8qLz2RkT7wNp4XcJ6m@db.staging.internal:5432/api\n"
    "DJANGO_SECRET_KEY=k7Q2mZ9xR4tW8vN3pL6sJ1dF5hG0bYc2\n"
    "DEPLOY_TOKEN=dpl_4Hq8Xw2Rt6Zk9Lm3Np7Vb5Jc1Fs0Gy"
)


def play(h: Home) -> None:
    s = Session(
        h,
        "S13",
        "infra",
        T(8, 20, 15, 33),
        gen="new",
        version="2.1.190",
        branch="main",
        note="a way shown by hand (trigger unknown); secrets bash fire; suppressed pull; secrets printed",
    )
    s.start()
    s.prompt(
        "print the env vars the deploy script needs",
        steps=[
            (
                "bash",
                "printenv | grep -E '^(AWS_REGION|CLUSTER|DATABASE_URL|DJANGO_SECRET_KEY|DEPLOY_TOKEN)='",
                PRINTENV,
                {"pre": [F("security/secrets", "bash")]},
            )
        ],
        answer=(
            "The script reads AWS_REGION, CLUSTER, DATABASE_URL and DEPLOY_TOKEN; the database password, "
            "the Django secret key and the deploy token are in the output above, so rotate them if this "
            "transcript leaves the machine."
        ),
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
