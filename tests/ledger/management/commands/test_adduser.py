"""`manage.py adduser`: accounts from the command line, with or without the reviewer role."""

from __future__ import annotations

from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

pytestmark = pytest.mark.django_db


def test_it_creates_users_from_the_command_line(monkeypatch):
    monkeypatch.setenv("NEW_PASSWORD", "correct horse battery")
    out = StringIO()
    call_command("adduser", "ann", "--reviewer", "--password-env", "NEW_PASSWORD", stdout=out)
    user = get_user_model().objects.get(username="ann")
    assert user.check_password("correct horse battery") and user.has_perm("ledger.review_knowledge")
    assert "Created ann (reviewer)" in out.getvalue()
