"""URL converters and DOM ids for ids that are data (lib/converters.py): readable when they can be,
encoded otherwise, one URL per id, and a bad value a 404."""

from __future__ import annotations

import re

import pytest
from django.urls import Resolver404, URLPattern, resolve, reverse

from ledger import urls as ledger_urls
from lib import converters
from lib.converters import IdConverter, LedgerSlugConverter, WayIdConverter

ODD = [
    "a/b",
    "/",
    "..",
    ".",
    "?",
    "#",
    "a?b#c",
    "a b",
    "\t",
    "line\nbreak",
    " ",
    "%2F",
    "%",
    "héllo",
    "日本",
    "🙂",
    "~",
    "~x",
    "~YWJj",
    "",
    "x" * 299 + "/",
    "x" * 511 + "é",
]
# Ids the importer never stores (it writes NUL and lone surrogates as U+FFFD): reverse() still builds
# a URL for one, which reads as no id.
NEVER_STORED = ["\x00", "a\x00b", "\ud800", "x\udfffy"]
READABLE = [
    "5e7c1a2b-0d4f-4c3e-9a8b-7f6e5d4c3b2a",
    "s1",
    "agent-a1b2c3",
    "v1.2.3",
    "-home-dev-proj",
    "a_b",
    "...",
    "a.",
    ".hidden",
    "x" * 300,
]


@pytest.mark.parametrize("value", READABLE)
def test_it_keeps_ids_of_safe_characters_readable(value):
    assert IdConverter().to_url(value) == value
    assert IdConverter().to_python(value) == value


@pytest.mark.parametrize("value", ODD)
def test_it_encodes_every_other_id_into_one_safe_segment(value):
    text = IdConverter().to_url(value)
    assert text.startswith("~")
    assert re.fullmatch(r"~[A-Za-z0-9_-]*", text)
    assert IdConverter().to_python(text) == value


def test_it_never_gives_two_ids_one_url():
    values = READABLE + ODD + ["~" + IdConverter().to_url("a b")[1:], "a", "A"]
    urls = [IdConverter().to_url(value) for value in values]
    assert len(set(urls)) == len(set(values))


@pytest.mark.parametrize("text", ["~YWJj", "~Y", "~YW=", "~YW Jj", "~@@", "~IB", "~_w", "~wg", "~YS9i/"])
def test_it_refuses_what_is_not_the_one_encoded_form_of_an_id(text):
    # "~YWJj" spells "abc", whose URL is "abc"; "~IB" is " " with padding bits "~IA" does not set;
    # "~_w" and "~wg" spell bytes that are not UTF-8; "~Y" is cut short.
    with pytest.raises(ValueError):
        IdConverter().to_python(text)


@pytest.mark.parametrize("value", NEVER_STORED)
def test_it_builds_a_url_for_an_id_no_row_can_hold_that_reads_as_no_id(value):
    url = reverse("introspect:session-detail", args=[value])
    with pytest.raises(Resolver404):
        resolve(url)


def test_it_encodes_the_empty_id_as_the_mark_alone():
    assert IdConverter().to_url("") == "~"
    assert IdConverter().to_python("~") == ""


def test_it_takes_a_literal_it_would_have_encoded_as_the_id_it_spells():
    # A link shared before ids were encoded (/sessions/a%20b/) still opens the same session.
    assert IdConverter().to_python("a b") == "a b"
    assert IdConverter().to_url("a b") == "~YSBi"


@pytest.mark.parametrize("value", ["softwaredev/code/testing", "d/a", "a", "x.y/z_w-1"])
def test_it_keeps_way_ids_readable_with_their_slashes(value):
    assert WayIdConverter().to_url(value) == value
    assert reverse("introspect:way-detail", args=[value]) == f"/ways/{value}/"
    assert resolve(f"/ways/{value}/").kwargs == {"way_id": value}


@pytest.mark.parametrize(
    "value",
    ["a//b", "/a", "a/", "a/../b", "./a", "my way/x", "a/#b?", "~a/b", "", "softwaredev/%2F", "a/b c"],
)
def test_it_encodes_way_ids_with_an_unsafe_segment_whole(value):
    text = WayIdConverter().to_url(value)
    assert "/" not in text and text.startswith("~")
    assert WayIdConverter().to_python(text) == value


def test_it_encodes_a_ledger_folder_named_like_another_ledger_route():
    for word in ("knowledge", "decisions"):
        url = reverse("ledger:ledger-stream", args=[word])
        assert url != f"/ledger/{word}/"
        match = resolve(url)
        assert (match.view_name, match.kwargs) == ("ledger:ledger-stream", {"slug": word})
    assert reverse("ledger:ledger-stream", args=["-home-dev-proj"]) == "/ledger/-home-dev-proj/"


def test_it_reserves_every_word_the_ledger_routes_beside_the_stream():
    words = {str(p.pattern).split("/")[0] for p in ledger_urls.urlpatterns if isinstance(p, URLPattern)}
    words -= {"", "<ledgerslug:slug>"}
    assert words <= LedgerSlugConverter.reserved


@pytest.mark.parametrize(
    "name, kwarg",
    [
        ("introspect:session-detail", "session_id"),
        ("introspect:session-events", "session_id"),
        ("introspect:api-session-dump", "session_id"),
        ("introspect:api-session-replay", "session_id"),
        ("introspect:api-session-fires", "session_id"),
        ("introspect:way-detail", "way_id"),
        ("ledger:ledger-stream", "slug"),
    ],
)
@pytest.mark.parametrize("value", ODD + READABLE)
def test_it_reverses_and_resolves_every_id_both_ways(name, kwarg, value):
    url = reverse(name, kwargs={kwarg: value})
    match = resolve(url)
    assert (match.view_name, match.kwargs) == (name, {kwarg: value})
    assert reverse(match.view_name, kwargs=match.kwargs) == url


@pytest.mark.parametrize("value", ODD + READABLE)
def test_it_carries_a_session_and_an_agent_id_in_one_url(value):
    url = reverse("introspect:subagent-detail", args=[value, value + "/agent"])
    assert resolve(url).kwargs == {"session_id": value, "agent_id": value + "/agent"}


@pytest.mark.parametrize(
    "path",
    [
        "/sessions/~YWJj/",
        "/sessions/~Y/",
        "/sessions/~!!/",
        "/ways/~YS9i/c/",
        "/ledger/~a25vd2xlZGdlx/",
        "/api/sessions/~%/dump.json",
    ],
)
def test_it_answers_a_value_that_does_not_decode_with_no_route(path):
    with pytest.raises(Resolver404):
        resolve(path)


@pytest.mark.django_db
def test_it_answers_404_to_a_value_that_does_not_decode(client):
    for path in (
        "/sessions/~Y/",
        "/sessions/~YWJj/events/",
        "/ways/~@/",
        "/ledger/~Zm9v!/",
        "/api/sessions/~Y/dump.json",
    ):
        assert client.get(path).status_code == 404, path


@pytest.mark.parametrize("value", ["5e7c1a2b-0d4f-4c3e-9a8b-7f6e5d4c3b2a", "a1b2c3", "u-1", "A_b"])
def test_it_keeps_dom_ids_of_selector_safe_characters(value):
    assert converters.dom_id(value) == value


@pytest.mark.parametrize("value", [*ODD, "_x", "a.b", "a:b", "1 2", ".hidden", "x" * 299 + "."])
def test_it_encodes_every_other_dom_id_into_a_selector_safe_token(value):
    token = converters.dom_id(value)
    assert re.fullmatch(r"_[A-Za-z0-9_-]*", token)
    assert converters.unb64(token[1:]) == value


def test_it_never_gives_two_values_one_dom_id():
    values = READABLE + ODD + ["_x", "x", "_" + converters.b64("x")]
    assert len({converters.dom_id(value) for value in values}) == len(set(values))
