"""The entry cards' preparation (introspect/queries/entry_cards.py): a stored text that fills its
column read whole from its raw line; a message's usage on its last line with its final counts."""

from __future__ import annotations

from decimal import Decimal
from types import SimpleNamespace

import orjson
import pytest

from introspect.importer.transcripts import TEXT_LIMIT
from introspect.queries import entry_cards
from tests.introspect.usage_session import trunk_lines, write_session

pytestmark = pytest.mark.django_db


def test_it_reads_a_stored_text_that_fills_the_column_whole_from_its_raw_line():
    whole = "x" * 25_000
    cut = SimpleNamespace(text=whole[:TEXT_LIMIT], line=orjson.dumps({"type": "user", "message": whole}))
    short = SimpleNamespace(text="short", line=b"never parsed: a short text is whole")

    entry_cards.whole_texts([cut, short])

    assert (cut.text, short.text) == (whole, "short")


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
