"""Secrets in a text: where they are, what kind, a fingerprint to recognise one again, and the text masked.

`find_secrets(text)` returns the spans of the secrets it holds (kinds and their tests: secret_kinds.py),
sorted and never overlapping: where two kinds cover the same characters (`API_KEY=sk-proj-…` is both an
assignment and an OpenAI key) the union is one span, named by the more specific kind. A text holds
either plain characters or a JSON line's escaped ones; both are read the same way.

Speed: a kind's pattern runs only on a text that holds one of its keywords (one `in` on the lower-cased
text, as gitleaks' keyword prefilter does), so a text without `sk-`, `ghp_`, `://`, `token` or `password`
costs one lower-casing and a few substring searches. bench/secrets.py measures it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from introspect.rules.secret_kinds import KINDS, Kind, plausible
from lib.hashing import sha256_text

COMPILED = tuple((kind, re.compile(kind.pattern)) for kind in KINDS)
RANK = {kind.name: rank for rank, kind in enumerate(KINDS)}
LABELS = {kind.name: kind.label for kind in KINDS}
KEEPS_TAIL = {kind.name: kind.keep_tail for kind in KINDS}
# JSON escapes a secret may be written with inside a transcript line, undone before fingerprinting so
# one private key has one fingerprint whether it was read from the line or from its decoded text.
UNESCAPE = re.compile(r"\\([nrt\"\\/])")
UNESCAPED = {"n": "\n", "r": "\r", "t": "\t", '"': '"', "\\": "\\", "/": "/"}
TAIL = 4
DOTS = "····"


@dataclass(frozen=True, slots=True)
class Secret:
    start: int
    end: int
    kind: str  # a `Kind.name`: "github-token"
    fingerprint: str  # sha256 of the secret's characters (JSON escapes undone), hex

    @property
    def label(self) -> str:
        return LABELS[self.kind]


def fingerprint(secret: str) -> str:
    if "\\" in secret:
        secret = UNESCAPE.sub(lambda m: UNESCAPED[m.group(1)], secret)
    return sha256_text(secret)


def _matches(kind: Kind, pattern: re.Pattern[str], text: str) -> list[tuple[int, int]]:
    found = []
    for match in pattern.finditer(text):
        group = 1 if pattern.groups else 0
        start, end = match.span(group)
        # A URL's user name, to tell `postgres:postgres@` (a default) from a password.
        user = text[match.start() : start - 1].rpartition("/")[2] if group else ""
        if plausible(kind, text[start:end], user):
            found.append((start, end))
    return found


def find_secrets(text: str) -> list[Secret]:
    """The secrets of `text`, by position; overlapping finds merged into one span."""
    lowered = text.lower()
    found: list[tuple[int, int, int]] = []  # start, end, rank of the kind
    for rank, (kind, pattern) in enumerate(COMPILED):
        if any(keyword in lowered for keyword in kind.keywords):
            found.extend((start, end, rank) for start, end in _matches(kind, pattern, text))
    return [
        Secret(start, end, KINDS[rank].name, fingerprint(text[start:end]))
        for start, end, rank in merge(found)
    ]


def merge(spans: list[tuple[int, int, int]]) -> list[tuple[int, int, int]]:
    """Overlapping (start, end, rank) spans as their unions, each with the lowest (most specific) rank."""
    merged: list[list[int]] = []
    for start, end, rank in sorted(spans):
        if merged and start < merged[-1][1]:
            last = merged[-1]
            last[1] = max(last[1], end)
            last[2] = min(last[2], rank)
        else:
            merged.append([start, end, rank])
    return [(start, end, rank) for start, end, rank in merged]


def marker(secret: str, kind: str) -> str:
    """`[secret: github-token ····a1b2]`, or `[secret: assignment]` where the tail must not show.

    The last four characters tell two keys of one kind apart (the way GitHub and Stripe list keys),
    and of a long machine-made token they give away about 24 of its 120 or more random bits. They are
    kept only for such tokens: of a password a person chose they are a large share of it, and a
    private key, a JWT or an Azure key end in fixed or padding characters that tell nothing apart.
    """
    if KEEPS_TAIL[kind] and len(secret) >= 20:
        return f"[secret: {kind} {DOTS}{secret[-TAIL:]}]"
    return f"[secret: {kind}]"


def mask(text: str, spans: list[Secret]) -> str:
    """`text` with each span replaced by its marker; every other character left as it was."""
    parts = []
    at = 0
    for span in sorted(spans, key=lambda s: s.start):
        parts.append(text[at : span.start])
        parts.append(marker(text[span.start : span.end], span.kind))
        at = span.end
    parts.append(text[at:])
    return "".join(parts)
