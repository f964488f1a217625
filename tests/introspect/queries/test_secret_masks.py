"""Masking where stored text becomes display text: a line found clean at import is read as stored, a
line holding a secret or never scanned is scanned and masked, values marked no secret are left alone;
the masked values are returned, the row is left as stored."""

from __future__ import annotations

import orjson
import pytest

from introspect.models import SecretFalsePositive, TranscriptEntry
from introspect.queries.secret_masks import masked_line, masked_text
from introspect.rules import secrets
from tests.introspect.rules.test_secrets import URLSAFE, rand

pytestmark = pytest.mark.django_db

TOKEN = "glpat-" + rand(20, URLSAFE)


def entry(has_secret: bool | None) -> TranscriptEntry:
    line = orjson.dumps({"type": "user", "message": {"content": f"token {TOKEN}"}})
    return TranscriptEntry(raw=line, raw_compressed=False, text=f"token {TOKEN}", has_secret=has_secret)


def test_a_line_holding_a_secret_or_never_scanned_is_masked_in_its_line_and_text():
    for flag in (True, None):
        stored = entry(flag)
        line, text = masked_line(stored), masked_text(stored.text)
        assert TOKEN not in text and TOKEN.encode() not in line
        assert text == "token glpat-…•••• (GitLab token, masked)"
        assert orjson.loads(line)["message"]["content"] == text
        assert TOKEN in stored.text and TOKEN.encode() in stored.line  # the row as it was read


def test_a_line_found_clean_at_import_is_read_as_stored(django_assert_num_queries):
    stored = entry(False)
    with django_assert_num_queries(0):
        assert masked_line(stored) is None  # shown as stored


def test_a_value_marked_no_secret_is_shown_as_it_is():
    SecretFalsePositive.objects.create(
        key=secrets.finding_key("gitlab-token", secrets.fingerprint(TOKEN)), kind="gitlab-token"
    )
    stored = entry(True)
    assert masked_line(stored) is None and masked_text(stored.text) == stored.text
