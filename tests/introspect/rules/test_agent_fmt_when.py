"""agent-fmt's `when.rs` stamps: its own tests (named `test_` + the Rust test's name), then the lax forms
its parser takes, which the decision reader's clock and the stats calendar inherit."""

from __future__ import annotations

from introspect.rules.agent_fmt_when import civil_from_days, days_from_civil, parse_utc_iso, utc_date, utc_iso

NOW = 1_784_732_645  # 2026-07-22 15:04:05 UTC


def test_utc_stamps_render_and_parse_back():
    assert utc_iso(0) == "1970-01-01T00:00:00Z"
    assert utc_iso(NOW) == "2026-07-22T15:04:05Z"
    assert utc_date(NOW) == "2026-07-22"
    assert parse_utc_iso(utc_iso(NOW)) == NOW
    assert parse_utc_iso("2026-09-17T20:37:03.286Z") == 1_789_677_423
    assert parse_utc_iso("2000-03-01T00:00:00Z") == 951_868_800
    assert parse_utc_iso("garbage") is None
    assert parse_utc_iso("2026-07") is None


def test_parsed_differences_are_calendar_correct():
    assert parse_utc_iso("2026-07-03T01:02:03Z") == parse_utc_iso("2026-07-03T01:02:03.999Z")
    assert parse_utc_iso("2026-02-01T00:00:00Z") - parse_utc_iso("2026-01-31T00:00:00Z") == 86_400
    assert parse_utc_iso("2024-03-01T00:00:00Z") - parse_utc_iso("2024-02-29T00:00:00Z") == 86_400


def test_parse_rejects_offsets_and_missing_zones():
    assert parse_utc_iso("2026-09-17T20:37:03+02:00") is None
    assert parse_utc_iso("2026-09-17T20:37:03") is None


def test_days_from_civil_inverts_civil_from_days():
    for z in (-800_000, -1, 0, 11_016, 19_723, 20_656, 2_000_000):
        assert days_from_civil(*civil_from_days(z)) == z


def test_civil_conversion_hits_known_dates():
    assert civil_from_days(10_957) == (2000, 1, 1)
    assert civil_from_days(11_016) == (2000, 2, 29)
    assert civil_from_days(20_565) == (2026, 4, 22)
    assert civil_from_days(0) == (1970, 1, 1)
    assert civil_from_days(19_723) == (2024, 1, 1)
    assert civil_from_days(20_656) == (2026, 7, 22)


def test_it_takes_the_lax_forms_rusts_integer_parse_takes():
    assert parse_utc_iso("2026-9-1T1:2:3Z") == parse_utc_iso("2026-09-01T01:02:03Z")
    assert parse_utc_iso("+2026-+09-01T00:00:+60Z") == parse_utc_iso("2026-09-01T00:01:00Z")
    assert parse_utc_iso(" 2026-09-01T00:00:00.1.2Z\u3000") == parse_utc_iso("2026-09-01T00:00:00Z")
    assert parse_utc_iso("2026-02-31T00:00:00Z") == parse_utc_iso("2026-03-03T00:00:00Z")


def test_it_refuses_what_rusts_integer_parse_refuses_and_anything_before_1970():
    for text in (
        "2026-09-01T00:00:61Z",
        "2026-13-01T00:00:00Z",
        "2026-09-00T00:00:00Z",
        "2026-09-01T24:00:00Z",
        "2026-09-01T00:00Z",
        "2026-09-01-02T00:00:00Z",
        "2026-09-01T00:00:00:00Z",
        "2026-09-01T ٠٠:00:00Z",
        "2026-09-01T1_0:00:00Z",
        "-2026-09-01T00:00:00Z",
        "1969-12-31T23:59:59Z",
        "2026-09-01t00:00:00Z",
        "2026-09-01T00:00:00z",
    ):
        assert parse_utc_iso(text) is None, text


def test_a_hostile_year_wraps_as_a_release_build_does_instead_of_raising():
    assert isinstance(parse_utc_iso("9223372036854775807-01-01T00:00:00Z") or 0, int)
    assert parse_utc_iso("9223372036854775808-01-01T00:00:00Z") is None, "past i64"
