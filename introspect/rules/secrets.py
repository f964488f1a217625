"""Secrets in a text: where they are, what kind, a fingerprint to recognise one again, and the text masked.

`find_secrets(text)` returns the spans of the secrets it holds (kinds and their tests: secret_kinds.py),
sorted and never overlapping: where two kinds cover the same characters (`API_KEY=sk-proj-…` is both an
assignment and an OpenAI key) the union is one span, named by the more specific kind. A text holds
either plain characters or a JSON line's escaped ones; both are read the same way.

Speed: no regular expression scans the text. Each kind names the literals its matches begin with
(`ghp_`, `sk-ant-`, `-----BEGIN`, `password=`: its anchors, as gitleaks' keywords prefilter its rules,
each as long as every match makes it), one Aho-Corasick pass over the lower-cased text finds every
place one stands, and the kind's pattern is tried only there (`Pattern.match`, whose look-behind
still sees the character before; for an assignment only the branch of the name found). A `str.find`
per anchor scanned the text some thirty times over, a quarter of an import's CPU
(bench/results/2026-12-02-importer-cpu.md). Every match begins at an anchor, so the findings are those
of the patterns alone: bench/secrets_same.py compares versions, bench/secret_scan.py measures it.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from ahocorasick_rs import AhoCorasick, BytesAhoCorasick, Implementation

from introspect.rules.secret_kinds import KINDS, Kind, plausible
from lib.hashing import sha256_text


def _probes() -> dict[tuple[str, bool], list[tuple[int, Kind, re.Pattern[str]]]]:
    """Each anchor once (by its text and whether it is folded), with every kind it starts (`secret_`:
    an AWS secret key and an assignment) and the pattern tried there (the kind's branch for it)."""
    table: dict[tuple[str, bool], list[tuple[int, Kind, re.Pattern[str]]]] = {}
    for rank, kind in enumerate(KINDS):
        pattern = re.compile(kind.pattern)
        for anchor in dict.fromkeys(kind.anchors):
            tried = next((re.compile(b) for prefix, b in kind.branches if anchor.startswith(prefix)), pattern)
            table.setdefault((anchor, kind.folded), []).append((rank, kind, tried))
    return table


def _anchor_table() -> tuple[tuple[str, tuple[tuple[str, tuple], ...]], ...]:
    """Every anchor lower-cased, once, each with what stands there: (the anchor as the text must hold
    it, "" for a folded one; its probes). `SK0` and `sk0` lower alike, `sk-` is cased and folded."""
    table: dict[str, list[tuple[str, tuple]]] = {}
    for (anchor, folded), probes in _probes().items():
        table.setdefault(anchor.lower(), []).append(("" if folded else anchor, tuple(probes)))
    return tuple((lowered, tuple(entries)) for lowered, entries in table.items())


@dataclass(frozen=True, slots=True)
class Scanner:
    """The anchors and the automata that find them. Every occurrence of every anchor, overlapping ones
    too (as `find(anchor, at + 1)` would meet them), at character positions, in the lower-cased text:
    one pass for the cased anchors and the folded ones (a cased one is then checked in the text
    itself, a cheap `startswith` that few places reach). An ASCII text is searched as bytes (the same
    positions) and lowered as bytes (ten times faster than `str.lower`, the same characters). A DFA:
    twice the speed of the default automaton on these anchors."""

    anchors: tuple[tuple[str, tuple[tuple[str, tuple], ...]], ...]
    search: AhoCorasick
    search_ascii: BytesAhoCorasick
    longest: int  # the longest anchor's length


@functools.cache
def scanner() -> Scanner:
    """Built on the first scan, not at import: compiling every kind's patterns and the automata is a
    tenth of `ingest`'s start, and a no-op re-run scans nothing (tests/waysweb/management/test_ingest_start.py)."""
    anchors = _anchor_table()
    return Scanner(
        anchors,
        AhoCorasick([lowered for lowered, _ in anchors], implementation=Implementation.DFA),
        BytesAhoCorasick([lowered.encode() for lowered, _ in anchors], implementation=Implementation.DFA),
        max(len(lowered) for lowered, _ in anchors),
    )


# The shortest text that can hold a finding (`pwd=` and eight characters).
SHORTEST = 12
# The search lowers this many characters at a time (anchor_places).
FOLD_WINDOW = 1 << 20
RANK = {kind.name: rank for rank, kind in enumerate(KINDS)}
LABELS = {kind.name: kind.label for kind in KINDS}
# JSON escapes a secret may be written with inside a transcript line, undone before fingerprinting so
# one private key has one fingerprint whether it was read from the line or from its decoded text.
UNESCAPE = re.compile(r"\\([nrt\"\\/])")
UNESCAPED = {"n": "\n", "r": "\r", "t": "\t", '"': '"', "\\": "\\", "/": "/"}


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


def _lower(text: str) -> str:
    lowered = text.lower()
    if len(lowered) == len(text):
        return lowered
    # A few characters (`İ`) lower-case to two: keep every position where it was.
    return "".join(c.lower() if len(c.lower()) == 1 else c for c in text)


def places(haystack: str) -> list[tuple[int, int, int]]:
    """(anchor's index in `scanner().anchors`, position, end) of every anchor in `haystack`, a lowered
    text."""
    scan = scanner()
    try:
        return scan.search.find_matches_as_indexes(haystack, overlapping=True)
    except UnicodeEncodeError:  # a lone surrogate (bytes a line did not decode): one search per anchor
        hits = []
        for which, (anchor, _) in enumerate(scan.anchors):
            at = haystack.find(anchor)
            while at >= 0:
                hits.append((which, at, at + len(anchor)))
                at = haystack.find(anchor, at + 1)
        return hits


def anchor_places(text: str, data: bytes | None) -> list[tuple[int, int, int]]:
    """Every anchor of `text` (`data`: its bytes when it is ASCII), found in its lower-cased copy one
    window at a time: lowering a 50 MB tool result whole held another 50 MB at the importer's peak
    (bench/results/2026-12-03-rss-huge-line.txt)."""
    scan = scanner()
    if len(text) <= FOLD_WINDOW:  # nearly every text: one window, no slice
        if data is not None:
            return scan.search_ascii.find_matches_as_indexes(data.lower(), overlapping=True)
        return places(_lower(text))
    hits: list[tuple[int, int, int]] = []
    for start in range(0, len(text), FOLD_WINDOW):
        # Each window reaches one anchor past its end, and keeps only the anchors starting in it:
        # one met at a seam is found whole, once.
        end = start + FOLD_WINDOW + scan.longest - 1
        if data is not None:
            found = scan.search_ascii.find_matches_as_indexes(data[start:end].lower(), overlapping=True)
        else:
            found = places(_lower(text[start:end]))
        hits.extend((which, start + at, start + to) for which, at, to in found if at < FOLD_WINDOW)
    return hits


def find_secrets(text: str, *, ascii_data: bytes | None = None) -> list[Secret]:
    """The secrets of `text`, by position; overlapping finds merged into one span. `ascii_data`: the
    text's bytes when the caller holds them and they are ASCII (a line as read), not encoded again."""
    return secrets_at(text, anchor_hits(text, ascii_data))


def anchor_hits(text: str, ascii_data: bytes | None = None) -> list[tuple[int, int, int]]:
    """`anchor_places` of `text`, none for a text too short to hold a finding."""
    size = len(text)
    if size < SHORTEST:
        return []
    if not text.isascii():
        return anchor_places(text, None)
    data = ascii_data if ascii_data is not None else text.encode("ascii")
    if size <= FOLD_WINDOW:  # anchor_places' common case, one call fewer a text
        return scanner().search_ascii.find_matches_as_indexes(data.lower(), overlapping=True)
    return anchor_places(text, data)


def secrets_at(text: str, hits: list[tuple[int, int, int]]) -> list[Secret]:
    """The secrets of `text` that begin at its anchors `hits` (anchor_hits). Nearly every text of an
    import has no anchor, or one no pattern matches at: both answered before anything is merged."""
    if not hits:
        return []
    found: list[tuple[int, int, int]] = []  # start, end, rank of the kind
    anchors = scanner().anchors
    for which, at, _ in hits:
        for cased, probes in anchors[which][1]:
            if cased and not text.startswith(cased, at):
                continue
            for rank, kind, pattern in probes:
                if (match := pattern.match(text, at - kind.offset)) is None:
                    continue
                group = 1 if pattern.groups else 0
                start, end = match.span(group)
                # A URL's user name, to tell `postgres:postgres@` (a default) from a password.
                user = text[match.start() : start - 1].rpartition("/")[2] if group else ""
                if plausible(kind, text[start:end], user):
                    found.append((start, end, rank))
    if not found:
        return []
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


# The part of a token that is the same for every token of its kind (`sk-ant-api03-`, `ghp_`, `AKIA`):
# public, so a mask keeps it to say what the value was. Kinds whose whole span is secret (a password, a
# URL's password, an assignment's value, an AWS secret key) keep nothing.
PUBLIC_PREFIX = re.compile(
    r"sk-ant-[a-z]{2,10}[0-9]{0,3}-|sk-(?:proj|svcacct|admin)-|(?:sk|rk)_(?:live|test)_|sk-|gh[pousr]_|github_pat_"
    r"|gl[a-z]{2,5}-|xox[a-z]-|xapp-|hooks\.slack\.com/(?:services|workflows)/|AIza|AKIA|ASIA|ABIA|ACCA|npm_"
    r"|SG\.|SK|hf_|pypi-|do[opr]_v1_|eyJ|-----BEGIN[ A-Z0-9]{0,20}PRIVATE KEY(?: BLOCK)?-----"
)
PREFIXED = frozenset(
    {
        "private-key", "anthropic-key", "openai-key", "github-token", "gitlab-token", "slack-token",
        "slack-webhook", "stripe-key", "google-api-key", "aws-access-key-id", "npm-token", "sendgrid-key",
        "twilio-key", "huggingface-token", "pypi-token", "digitalocean-token", "jwt",
    }
)  # fmt: skip
HIDDEN = "…••••"


def marker(secret: str, kind: str) -> str:
    """`sk-ant-api03-…•••• (Anthropic key, masked)`: the kind's public prefix, if it has one, and what it was.

    Nothing of the secret part is kept: not its length, not its last characters (of a password a
    person chose they are a large share of it). The ellipsis makes the marker a stand-in to the rules
    (secret_kinds.STAND_IN), so a masked text masked again is unchanged.
    """
    prefix = ""
    if kind in PREFIXED and (found := PUBLIC_PREFIX.match(secret)) is not None:
        prefix = found.group()
    return f"{prefix}{HIDDEN} ({LABELS[kind]}, masked)"


def finding_key(kind: str, fingerprint: str) -> str:
    """What a person's "not a secret" is remembered by: the kind and the value's hash, never the value,
    so it holds for the same value wherever (and however often) it is imported again."""
    return f"{kind}:{fingerprint}"


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


def shown(spans: list[Secret], allowed: frozenset[str] | set[str] = frozenset()) -> list[Secret]:
    """The spans still masked: all but those a person marked "not a secret" (`allowed` finding keys)."""
    return [span for span in spans if finding_key(span.kind, span.fingerprint) not in allowed]


def mask_text(text: str, allowed: frozenset[str] | set[str] = frozenset()) -> str:
    """`text` as a page, a search index or an export may hold it: every secret masked but those allowed."""
    spans = shown(find_secrets(text), allowed)
    return mask(text, spans) if spans else text


def mask_line(line: bytes, allowed: frozenset[str] | set[str] = frozenset()) -> bytes:
    """A transcript's JSON line with its secrets masked in place, still one JSON line (no span leaves
    its string: no kind's value holds an unescaped quote, and a marker holds none)."""
    text = line.decode("utf-8", "surrogateescape")
    masked = mask_text(text, allowed)
    return line if masked is text else masked.encode("utf-8", "surrogateescape")
