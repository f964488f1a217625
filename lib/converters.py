"""Ids are data: URL converters and DOM ids that carry any session, agent or way id and ledger slug.

The importer accepts whatever a log or a file name says an id is (`a/b`, `..`, `?x#y`, a tab, 300
characters, `%2F`, non-ASCII). Django's `<str:…>` cannot carry a `/` (and decodes `%2F` before
routing, so percent-encoding cannot either), browsers drop `.` and `..` segments, and `?`, `#`, `%`
and whitespace end or change a URL. So an id is written into a path in one of two forms:

- **readable**: the id itself, when every character is `A-Z a-z 0-9 . _ -` (way ids: each
  `/`-separated segment), no segment is `.` or `..`, and the id is not a word the URLconf routes
  elsewhere. Uuids, agent ids and `softwaredev/code/testing` stay as they were, so permalinks keep
  working;
- **encoded**: `~` followed by the unpadded base64url of the id's UTF-8 bytes. `~` is never a
  readable character, so the two forms cannot collide, and base64url has no `.`, `/`, `%`.

Reading a path is the inverse. A `~` value must decode to an id whose own form is exactly that value
(one URL per id, a hand-edited or truncated one is a 404, never a 500; so is one that spells a NUL or
a lone surrogate, which no stored id holds); any other value is taken
literally, as `<str:…>` and `<path:…>` took it, so a link shared before this scheme still opens.

DOM ids and `#fragment`s built from data (`u-<uuid>`, `agent-<id>`) follow the same rule with a
stricter alphabet, CSS-selector safe, in `dom_id()`.

The converters are registered once, when this module is first imported: the app URLconfs import it.
"""

from __future__ import annotations

import base64
import binascii
import re

from django.urls import register_converter

MARK = "~"
READABLE = re.compile(r"[A-Za-z0-9._-]+")
ENCODED = re.compile(r"~[A-Za-z0-9_-]*")
# DOM ids: readable ones never start with `_`, the mark of an encoded one (base64url uses `-` and `_`).
DOM_READABLE = re.compile(r"[A-Za-z0-9-][A-Za-z0-9_-]*")
DOM_MARK = "_"


def b64(value: str) -> str:
    # surrogatepass keeps reverse() total; such a URL reads as no id (the importer stores a lone
    # surrogate as U+FFFD, as it does NUL, so none is ever looked up).
    return base64.urlsafe_b64encode(value.encode("utf-8", "surrogatepass")).rstrip(b"=").decode("ascii")


def unb64(text: str) -> str:
    """The id `text` (unpadded base64url) spells; ValueError when it spells none."""
    if len(text) % 4 == 1:
        raise ValueError("truncated base64")
    try:
        raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except binascii.Error as exc:
        raise ValueError(str(exc)) from exc
    value = raw.decode("utf-8")  # UnicodeDecodeError is a ValueError; so is a lone surrogate
    if "\x00" in value:
        # The importer stores NUL as U+FFFD: no id holds one, and PostgreSQL refuses it in a query.
        raise ValueError("an id never holds NUL")
    return value


def readable_segment(segment: str) -> bool:
    return READABLE.fullmatch(segment) is not None and segment not in {".", ".."}


def dom_id(value: str) -> str:
    """A token for `id="…"`, `#…` and CSS selectors: the value itself when it is made of
    `A-Z a-z 0-9 _ -` and does not start with `_`, else `_` + base64url. Injective, and never empty."""
    value = str(value)
    if DOM_READABLE.fullmatch(value):
        return value
    return DOM_MARK + b64(value)


class IdConverter:
    """One path segment holding any id: `<id:session_id>`, `<id:agent_id>`."""

    regex = r"[^/]+"
    # Words the URLconf routes elsewhere at this place: an id spelled like one is always encoded.
    reserved: frozenset[str] = frozenset()

    def readable(self, value: str) -> bool:
        return readable_segment(value) and value not in self.reserved

    def to_url(self, value: str) -> str:
        value = str(value)
        return value if self.readable(value) else MARK + b64(value)

    def to_python(self, value: str) -> str:
        if not value.startswith(MARK):
            return value
        if ENCODED.fullmatch(value) is None:
            raise ValueError("not an encoded id")
        decoded = unb64(value[1:])
        if self.to_url(decoded) != value:
            # Another spelling of an id that has its own URL (padding bits, a readable id encoded).
            raise ValueError("not the canonical form of its id")
        return decoded


class WayIdConverter(IdConverter):
    """A way id, readable with its `/`s (`softwaredev/code/testing`): `<wayid:way_id>`."""

    regex = r".+"

    def readable(self, value: str) -> bool:
        return all(readable_segment(segment) for segment in value.split("/"))


class LedgerSlugConverter(IdConverter):
    """A ledger folder name under /ledger/, beside the routes ledger/urls.py names by a word."""

    reserved = frozenset({"knowledge", "decisions", "memory"})


register_converter(IdConverter, "id")
register_converter(WayIdConverter, "wayid")
register_converter(LedgerSlugConverter, "ledgerslug")
