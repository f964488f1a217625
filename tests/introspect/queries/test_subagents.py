"""A subagent run's summary (introspect/queries/subagents.py): its own file's models, tokens, cost,
tool calls and duration; none without a file."""

from __future__ import annotations

from decimal import Decimal

import pytest

from introspect.models import Subagent
from introspect.queries import subagents
from tests.introspect.usage_session import write_session

pytestmark = pytest.mark.django_db


def test_a_subagent_summary_covers_its_own_file(home, django_assert_num_queries):
    write_session(home)
    agent = Subagent.objects.get(agent_id="x1")
    with django_assert_num_queries(2):
        summary = subagents.subagent_summary(agent)
    assert summary.models == ["claude-haiku-4-5-20251001"]
    assert (summary.totals.input_tokens, summary.totals.output_tokens) == (12, 90 + 60 + 20)
    assert summary.totals.cost_usd == Decimal("0.017362")  # 12·1 + 170·5 + 6000·1.25 + 90000·0.1 per MTok
    assert summary.tool_calls == 2  # two calls, one written over two lines
    assert summary.duration_secs == 40


def test_a_subagent_without_a_file_has_no_summary(home):
    write_session(home)
    agent = Subagent.objects.get(agent_id="x1")
    agent.source = None
    assert subagents.subagent_summary(agent) is None
