"""Fixtures of the derive tests."""

from __future__ import annotations

import pytest

from introspect.derive import extend


@pytest.fixture
def extended(monkeypatch) -> list[bool]:
    """What every extend_session call answered."""
    answers: list[bool] = []
    real = extend.extend_session

    def spy(session):
        answers.append(real(session))
        return answers[-1]

    monkeypatch.setattr(extend, "extend_session", spy)
    return answers
