"""majordomus ledger lines keep the first `event` key as the event."""

from __future__ import annotations

from ledger.importer import majordomus_ledger


def test_it_keeps_the_first_event_key_of_a_majordomus_line():
    line = (
        b'{"ts":"2026-09-11T07:27:24Z","event":"provider.event.failed","head":"06fa258","branch":"master",'
        b'"by":"majordomus/0.6.0","provider":"claude","event":"end","reason":"knowledge: not writable"}'
    )
    parsed = majordomus_ledger.parse_mj_line(line)
    assert parsed["event"] == "provider.event.failed" and parsed["provider_event"] == "end"
    assert parsed["reason"] == "knowledge: not writable"
