"""The entry cards' preparation (introspect/queries/entry_cards.py): a stored text that fills its
column read whole from its raw line; a message's usage on its last line with its final counts."""

from __future__ import annotations

from decimal import Decimal
from types import SimpleNamespace

import orjson
import pytest

from introspect.importer.transcripts import TEXT_LIMIT
from introspect.models import TranscriptEntry
from introspect.queries import entry_cards, secret_masks
from tests.introspect.rules.test_secrets import URLSAFE, rand
from tests.introspect.usage_session import trunk_lines, write_session

pytestmark = pytest.mark.django_db


def test_it_reads_a_stored_text_that_fills_the_column_whole_from_its_raw_line():
    whole = "x" * 25_000
    cut = SimpleNamespace(text=whole[:TEXT_LIMIT], line=orjson.dumps({"type": "user", "message": whole}))
    short = SimpleNamespace(text="short", line=b"never parsed: a short text is whole")

    shown = [entry_cards.whole_text(entry, entry.text, None) for entry in (cut, short)]

    assert shown == [whole, "short"]
    assert cut.text == whole[:TEXT_LIMIT]  # the row keeps its stored column


def test_a_cut_text_is_read_whole_from_its_masked_line_when_a_secret_was_masked_in_it():
    stored = SimpleNamespace(text="x" * TEXT_LIMIT, line=orjson.dumps({"type": "user", "message": "secret"}))
    masked = orjson.dumps({"type": "user", "message": "x" * 25_000})
    assert entry_cards.whole_text(stored, stored.text, masked) == "x" * 25_000


def test_a_messages_usage_is_on_its_last_line_with_its_final_counts(home, django_assert_num_queries):
    write_session(home)
    entries = trunk_lines()
    with django_assert_num_queries(1):
        usages = entry_cards.message_usages(entries)
    by_uuid = {entry.uuid: usages.get(id(entry)) for entry in entries}
    assert by_uuid["u1"] is None and by_uuid["a1"] is None and by_uuid["a2"] is None
    usage = by_uuid["a3"]
    assert (usage.model, usage.input_tokens, usage.output_tokens) == ("claude-opus-4-6", 4, 480)
    assert (usage.cache_read_input_tokens, usage.cache_creation_input_tokens) == (30000, 2000)
    assert usage.cost_usd == (4 * 5 + 480 * 25 + 2000 * Decimal("6.25") + 30000 * Decimal("0.5")) / 1_000_000
    assert (by_uuid["a4"].output_tokens, by_uuid["a4"].cost_usd) == (7, None)


def test_a_message_cut_by_the_page_still_counts_all_its_lines(home):
    write_session(home)
    page = trunk_lines()[:3]  # the prompt and the first two lines of msg_1
    usages = entry_cards.message_usages(page)
    assert page[-1].uuid == "a2" and usages[id(page[-1])].output_tokens == 480


def test_it_reads_nothing_for_a_page_without_assistant_messages(home, django_assert_num_queries):
    write_session(home)
    entries = trunk_lines()[:1]
    with django_assert_num_queries(0):
        usages = entry_cards.message_usages(entries)
    assert usages == {}


def test_a_card_carries_its_masked_line_and_text_and_leaves_the_row_as_stored():
    token = "glpat-" + rand(20, URLSAFE)
    line = orjson.dumps({"type": "user", "message": {"content": f"token {token}"}})
    stored = TranscriptEntry(
        type="user", raw=line, raw_compressed=False, text=f"token {token}", has_secret=True, is_prompt=True
    )
    masked, text = entry_cards.shown_line(stored, secret_masks.Allowed())
    card = entry_cards.entry_card(
        stored,
        masked=masked,
        text=text,
        usage=None,
        spills=[],
        paired_result=None,
        with_call=False,
        prompt_spans=[],
        bookkeeping=False,
    )
    assert (card.kind, token in card.text, token.encode() in card.line) == ("prompt", False, False)
    assert orjson.loads(card.line)["message"]["content"] == card.text
    # The row is read again by other pages of the same request: it keeps what was stored.
    assert token in stored.text and token.encode() in stored.line
