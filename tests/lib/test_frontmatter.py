"""lib/frontmatter.py's dump: the nodes it builds emit what PyYAML's own representation does."""

from __future__ import annotations

import random
from datetime import date

import yaml

from lib import frontmatter

# Texts the emitter quotes, folds, escapes or resolves to another type, and plain ones.
TEXTS = [
    "",
    "plain",
    "knowledge/v1",
    "ww-0001407f1f88e2c5",
    "yes",
    "No",
    "on",
    "null",
    "~",
    "true",
    "1",
    "0x1F",
    "1.5e3",
    ".inf",
    "1:20",
    "2026-10-04",
    "2026-10-04T10:20:50Z",
    "a: b",
    "a #b",
    "#start",
    "- item",
    "? key",
    "[flow]",
    "{map}",
    "'single'",
    '"double"',
    " leading",
    "trailing ",
    "two\nlines",
    "ends with newline\n",
    "tab\there",
    "é and ü, 日本",
    "emoji 😀",
    "\x85 next line",
    "\ufeff bom",
    "control \x07",
    "&anchor",
    "*alias",
    "!tag",
    "%directive",
    "@at",
    "`tick",
    "|",
    ">",
    "---",
    "...",
    "Way d/n nearly fired 3 times in one episode (best probability 0.441)",
    "Repeated near-misses in window 1 of session abcd1234: its vocabulary may miss the topic.",
    "word " * 300,
]


def value(rng: random.Random, depth: int = 0) -> object:
    roll = rng.random()
    if depth >= 3 or roll < 0.6:
        return rng.choice(TEXTS) + (rng.choice(TEXTS) if rng.random() < 0.2 else "")
    if roll < 0.8:
        return [value(rng, depth + 1) for _ in range(rng.randrange(0, 4))]
    return {rng.choice(TEXTS): value(rng, depth + 1) for _ in range(rng.randrange(0, 4))}


def pyyaml(data: dict) -> str:
    _, _, dumper = frontmatter._yaml()
    return yaml.dump(data, Dumper=dumper, sort_keys=False, allow_unicode=True, width=1000)


def test_it_dumps_text_lists_and_mappings_as_pyyaml_represents_them():
    rng = random.Random(29)
    for _ in range(3000):
        data = {rng.choice(TEXTS): value(rng) for _ in range(rng.randrange(1, 8))}
        assert frontmatter.dump(data) == pyyaml(data)
    assert frontmatter._node(yaml.nodes, data, set()) is not None  # built here, not by the fallback


def test_it_leaves_other_values_and_repeated_lists_to_pyyaml():
    shared = ["derived", "way-tuning"]
    for data in (
        {"date": date(2026, 10, 4), "n": 3, "ok": True, "none": None, "ratio": 0.5},
        {"tags": shared, "again": shared},  # the representer anchors the second
        {1: "a key that is not text"},
    ):
        assert frontmatter._node(yaml.nodes, data, set()) is None
        assert frontmatter.dump(data) == pyyaml(data)
    assert "&id001" in frontmatter.dump({"tags": shared, "again": shared})
