"""Session S03: old generation (raw scores), one manual compaction."""

# ruff: noqa: E501  (long literal transcript content)
from __future__ import annotations

from datetime import timedelta

from sample.sessions import Session
from sample.specs import GATED, NEAR, F
from sample.state import Home
from sample.timeline import T
from sample.tool_output import ok


def play(h: Home) -> None:
    s = Session(
        h,
        "S03",
        "api",
        T(2, 13, 5, 30),
        gen="old",
        version="2.1.104",
        branch="feat/token-rotation",
        note="old generation (raw scores), one manual compaction",
    )
    s.start()
    s.prompt(
        "we need refresh-token rotation: every refresh should issue a new refresh token and revoke the old one. How should we structure it?",
        fires=[F("softwaredev/architecture/design", "semantic:embedding:en", "0.612")],
        steps=[
            ("read", "src/api/auth/tokens.py", {}),
            ("grep", "def refresh", ["src/api/auth/tokens.py", "src/api/routes/auth.py"], {}),
        ],
        think="Rotation touches storage, the refresh route and the revocation list.",
        answer="Two options: a token family table with a `replaced_by` column, or a revocation list keyed by jti. The family table makes reuse detection possible.",
    )
    s.prompt(
        "go with the family table. should this be an ADR?",
        fires=[F("softwaredev/docs/adr", "keyword")],
        answer="Yes: it changes the storage schema and the security model. I suggest ADR-0008.",
    )
    s.prompt(
        "draft it in docs/adr/0008-refresh-token-rotation.md",
        steps=[
            (
                "edit",
                "docs/adr/0008-refresh-token-rotation.md",
                "",
                "# 8. Refresh token rotation\n\nStatus: proposed",
                {},
            )
        ],
        answer="Drafted with Context, Decision and Consequences.",
    )
    s.prompt(
        "I can't commit to a migration date yet, leave the rollout section open",
        fires=[
            GATED(
                "softwaredev/delivery/commits",
                old=True,
                score_en="0.082",
                score_multi="0.104",
                floor_en="0.150",
                floor_multi="0.150",
            )
        ],
        steps=[
            (
                "edit",
                "docs/adr/0008-refresh-token-rotation.md",
                "## Rollout\n\nTBD in sprint 46",
                "## Rollout\n\nOpen: date not fixed.",
                {},
            )
        ],
        answer="Rollout left open.",
    )
    s.prompt(
        "now the model: add TokenFamily with id, user_id, created_at, revoked_at",
        fires=[
            NEAR(
                "softwaredev/architecture/design",
                old=True,
                score_en="0.4410",
                score_multi="",
                thr_en="0.4600",
                thr_multi="",
            )
        ],
        steps=[
            ("read", "src/api/models.py", {}),
            (
                "edit",
                "src/api/models.py",
                "class RefreshToken(Base):",
                'class TokenFamily(Base):\n    __tablename__ = "token_families"\n\n\nclass RefreshToken(Base):',
                {},
            ),
        ],
        answer="Added `TokenFamily` and a `family_id` foreign key on `RefreshToken`.",
    )
    s.prompt(
        "write the alembic migration",
        steps=[
            (
                "bash",
                "alembic revision --autogenerate -m 'token families'",
                "Generating migrations/versions/3f2a_token_families.py ...  done",
                {},
            )
        ],
        answer="Migration generated; it creates `token_families` and adds the column.",
    )
    s.prompt(
        "add unit tests for rotation and reuse detection",
        fires=[F("softwaredev/code/testing", "keyword")],
        steps=[
            (
                "edit",
                "tests/test_tokens.py",
                "def test_refresh_returns_new_access_token():",
                "def test_refresh_rotates_refresh_token():",
                {},
            ),
            ("bash", "pytest -q tests/test_tokens.py", ok(9), {}),
        ],
        answer="Two tests added: rotation issues a new token; reusing an old one revokes the family.",
    )
    s.clock += timedelta(seconds=95)
    s.compact(
        "manual",
        "1. Rotation design agreed: token family table (ADR-0008, proposed).\n2. Model and migration done; tests for rotation and reuse pass.\n3. Next: wire rotation into POST /auth/refresh.",
    )
    s.prompt(
        "wire rotation into POST /auth/refresh",
        steps=[
            ("read", "src/api/routes/auth.py", {}),
            (
                "edit",
                "src/api/routes/auth.py",
                "token = issue_refresh(user)",
                "token = rotate_refresh(old_token)",
                {},
            ),
        ],
        answer="The route now calls `rotate_refresh` and returns the new pair.",
    )
    s.prompt(
        "run everything",
        steps=[("bash", "make test", ok(231), {"pre": [F("build", "bash")]})],
        answer="231 passed.",
    )
    s.prompt(
        "commit with a good message",
        fires=[F("softwaredev/delivery/commits", "keyword")],
        steps=[
            (
                "bash",
                "git commit -S -am 'feat(auth): rotate refresh tokens per family'",
                "[feat/token-rotation 0d4e8a1] feat(auth): rotate refresh tokens per family\n 6 files changed, 188 insertions(+), 12 deletions(-)",
                {},
            )
        ],
        answer="Committed and signed.",
    )
    s.prompt(
        "open a pull request for it",
        fires=[F("softwaredev/delivery/pull-requests", "keyword")],
        steps=[
            ("bash", "gh pr create --fill --draft", "https://git.example.com/dev/api-server/pull/412", {})
        ],
        answer="Draft PR #412 opened.",
    )
    s.prompt(
        "ok, mark the ADR accepted",
        steps=[
            ("edit", "docs/adr/0008-refresh-token-rotation.md", "Status: proposed", "Status: accepted", {})
        ],
        answer="ADR-0008 accepted.",
    )
    s.prompt("done for today", answer="Summary: rotation implemented, ADR accepted, PR #412 in draft.")
    s.finish("done for today")
