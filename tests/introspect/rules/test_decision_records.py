"""Decision records read as serde reads upstream's `#[serde(default)]` structs and tagged `Record`: what a
hostile line becomes, and why a line is refused."""

from __future__ import annotations

import pytest

from introspect.rules.decision_records import (
    BAD_FIELD,
    MALFORMED,
    MISSING_KIND,
    UNKNOWN_KIND,
    Judge,
    Outcome,
    Pull,
    Rejected,
    Scan,
    parse_line,
)

SCAN = '{"ts":"2026-09-01T10:00:00Z","kind":"scan","scan_id":"a1","session":"s","agent":"main"'
PULL = '{"ts":"2026-09-01T10:00:00Z","kind":"pull","session":"s","agent":"main","way":"d/a"'


def scan_with(fields: str) -> Scan | Rejected | None:
    return parse_line(f"{SCAN},{fields}}}")


def reason(line: str) -> str:
    parsed = parse_line(line)
    assert isinstance(parsed, Rejected), parsed
    return parsed.reason


def test_it_reads_the_full_writer_shape_with_native_types():
    line = (
        '{"ts":"2026-10-06T14:03:12Z","kind":"scan","scan_id":"18d9c0a3f1b2c4e0-3e8a","session":"8f0c","agent":"main",'
        '"epoch":12,"turn_start":true,"token_position":48213,"surface":"prompt","hook_event":"UserPromptSubmit",'
        '"scope":"agent","project":"/home/you/proj","lane":"en","basis":"single","sidecar":true,"body_rank":"scaled-single",'
        '"candidates":[{"way":"a","cosine":0.4121,"share":0.6312,"margin":null}],'
        '"outcomes":[{"way":"a","result":"ancestor_block","rank":2,"channel":"keyword","ancestor_p_yes":0.05,'
        '"ancestor_threshold":0.3,"mode":"enforce","ancestor":"x"}],'
        '"judge":{"status":"judged","engine":"anthropic","model":"claude-haiku-4-5","judge_ms":812,"capped":["b"]}}'
    )
    scan = parse_line(line)
    assert isinstance(scan, Scan)
    assert (scan.epoch, scan.token_position, scan.sidecar, scan.lane) == (12, 48213, True, "en")
    assert (scan.candidates[0].cosine, scan.candidates[0].margin) == (0.4121, None)
    assert scan.outcomes[0] == Outcome(
        way="a", result="ancestor_block", rank=2, channel="keyword", mode="enforce", ancestor="x"
    )
    assert scan.judge == Judge("judged", None, "anthropic", "claude-haiku-4-5", 812, ["b"])


def test_it_passes_a_blank_line_and_reads_a_line_padded_with_any_unicode_white_space():
    assert parse_line(b"   \r\n") is None
    assert parse_line("\u3000") is None
    assert isinstance(parse_line(f"\u00a0{PULL}}}\u2028\r\n"), Pull)


def test_it_refuses_what_rust_does_not_trim_or_parse():
    assert reason(f"\x1c{PULL}}}") == MALFORMED, "str::trim keeps the file separators Python would strip"
    assert reason(f"\ufeff{PULL}}}") == MALFORMED, "a byte-order mark is no JSON white space"
    assert reason(f"{PULL}}} x") == MALFORMED
    assert reason(f"{PULL}") == MALFORMED, "a torn line"
    assert reason(f'{PULL},"epoch":NaN}}') == MALFORMED


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ('{"ts":"2026-09-01T10:00:00Z","session":"s"}', MISSING_KIND),
        ('{"kind":"verdict"}', UNKNOWN_KIND),
        ('{"kind":"Scan"}', UNKNOWN_KIND),
        ('{"kind":0}', UNKNOWN_KIND),
        ('{"kind":null}', UNKNOWN_KIND),
        ('{"kind":"scan","kind":"scan"}', BAD_FIELD),
        ('{"event":"way_fired","way":"d/a"}', MISSING_KIND),
        ("[]", MISSING_KIND),
        ('"scan"', MALFORMED),
        ("7", MALFORMED),
    ],
)
def test_it_refuses_a_line_without_a_known_kind(line, expected):
    assert reason(line) == expected


@pytest.mark.parametrize(
    "fields",
    [
        '"epoch":-1',
        '"epoch":1.0',
        '"epoch":-0',
        '"epoch":"3"',
        '"epoch":null',
        '"epoch":18446744073709551616',
        '"turn_start":1',
        '"turn_start":null',
        '"ts":null',
        '"ts":5',
        '"candidates":null',
        '"candidates":{}',
        '"outcomes":[{"way":"d/a","rank":4294967296}]',
        '"outcomes":[{"way":"d/a","p":"0.5"}]',
        '"outcomes":[{"way":"d/a","way":"d/b"}]',
        '"outcomes":[["d/a","fired",1,"keyword",0.5,0.9,"pass",0.3,"enforce","x",0.1,0.5,0.4,0.4,"extra"]]',
        '"judge":{"capped":null}',
        '"judge":"judged"',
        '"session":"t"',
    ],
)
def test_it_refuses_a_known_field_of_the_wrong_type_or_repeated(fields):
    assert reason(f"{SCAN},{fields}}}") == BAD_FIELD


def test_it_takes_integers_where_floats_go_and_null_where_a_field_is_optional():
    scan = scan_with(
        '"epoch":18446744073709551615,"token_position":null,"judge":null,'
        '"outcomes":[{"way":"d/a","rank":4294967295,"p":1,"shortfall":-0}]'
    )
    assert (scan.epoch, scan.token_position, scan.judge) == (2**64 - 1, None, None)
    outcome = scan.outcomes[0]
    assert (outcome.rank, outcome.p, type(outcome.p)) == (2**32 - 1, 1.0, float)
    assert str(outcome.shortfall) == "-0.0"


def test_it_ignores_unknown_fields_whatever_they_hold_but_still_parses_them():
    scan = scan_with('"future":{"a":1,"a":[99999999999999999999,1e-400]},"body_rank":"on"')
    assert isinstance(scan, Scan)
    assert reason(f'{SCAN},"future":"\\ud800"}}') == MALFORMED, "a lone surrogate anywhere refuses the line"
    assert reason(f'{SCAN},"future":1e400}}') == MALFORMED, "a number past f64 anywhere, too"
    assert reason(f'{SCAN},"future":18446744073709551616.0}}') == MALFORMED, "serde_json's exponent-0 quirk"
    deep = "[" * 126 + "]" * 126
    assert isinstance(scan_with(f'"future":{deep}'), Scan), "127 levels with the record itself"
    assert reason(f'{SCAN},"future":[{deep}]}}') == MALFORMED, "the 128th is serde_json's recursion limit"


def test_it_reads_structs_given_as_arrays_field_by_field_as_serde_does():
    pull = parse_line(
        '["pull","2026-09-01T10:00:00Z","s","sub1",4,null,"d/a","first_fire",false,true,null,"t1"]'
    )
    assert pull == Pull(
        "2026-09-01T10:00:00Z", "s", "sub1", 4, None, "d/a", "first_fire", False, True, None, "t1"
    )
    scan = scan_with('"outcomes":[["d/a","fired",1]],"judge":[]')
    assert scan.outcomes == [Outcome(way="d/a", result="fired", rank=1)]
    assert scan.judge == Judge()


def test_it_reads_invalid_utf8_as_replacement_characters():
    pull = parse_line(PULL.encode()[:-1] + b'\xff\xfe"}')
    assert isinstance(pull, Pull)
    assert pull.way == "d/a\ufffd\ufffd"


def test_it_gives_every_missing_field_its_default():
    assert parse_line('{"kind":"pull"}') == Pull()
    assert parse_line('{"kind":"scan"}') == Scan()
