"""Way files (formats-agent-ways.md §10): the core and user ways of the sample HOME, read from
sample/texts/ways/, and the criteria each fire's matched span and injected body come from."""

from __future__ import annotations

import re

from sample import texts
from sample.timeline import CORE, USER

ROOTS = {"core": CORE, "user": USER}
WAYS: list[tuple[str, str, str]] = [  # (root, relative path, text)
    (root, rel, text) for label, root in ROOTS.items() for rel, text in texts.tree(f"ways/{label}").items()
]
UNKNOWN_WAY = "softwaredev/delivery/changelog"  # fired in S04, no way file today (renamed upstream)


def _criteria() -> dict[str, dict[str, str]]:
    """way id -> flat criteria of the winning root (user shadows core), for spans and bodies."""
    out: dict[str, dict[str, str]] = {}
    for root in (USER, CORE):
        for r, rel, text in WAYS:
            if r != root or not rel.endswith(".md") or ".check." in rel or not text.startswith("---\n"):
                continue
            wid = rel.rsplit("/", 1)[0]
            if wid in out:
                continue
            front, _, body = text[4:].partition("\n---\n")
            crit = {"body": body.strip()}
            for line in front.splitlines():
                m = re.match(r"^(pattern|commands|files): (.*)$", line)
                if m:
                    crit[m.group(1)] = m.group(2)
            out[wid] = crit
    return out


CRITERIA = _criteria()
CRITERIA[UNKNOWN_WAY] = {
    "body": "# Changelog Way\n\nAdd an entry under Unreleased for every user-visible change.",
    "pattern": r"\bchangelog\b",
}
