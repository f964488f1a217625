"""Which status changes a person may make to a decision record, from the status it has. No Django.

waysweb writes three verbs (ledger/services/records.py `record_set_status`). A record is accepted from a proposal
(draft, proposed, or a status no format names: Log4brains reads a missing one as draft);
only an accepted record is deprecated; an accepted or deprecated one is superseded by its
replacement. A rejected, abandoned, archived or superseded record is settled: no verb applies
(agent-ways v1 freezes a record once it leaves proposed; §10.6 and §13).
"""

from __future__ import annotations

VERBS = ("accept", "deprecate", "supersede")
FROM = {
    "accept": ("draft", "proposed", "unknown"),
    "deprecate": ("accepted",),
    "supersede": ("accepted", "deprecated"),
}
AFTER = {"accept": "accepted", "deprecate": "deprecated", "supersede": "superseded"}


def verbs_from(status: str) -> list[str]:
    """The verbs valid from `status`, in the order the form offers them."""
    return [verb for verb in VERBS if status in FROM[verb]]


def refusal(status: str, verb: str) -> str | None:
    """Why `verb` is not a valid change from `status`, or None when it is."""
    if verb not in FROM:
        return f"unknown action {verb!r}"
    if status not in FROM[verb]:
        return f"a record that is {status} cannot become {AFTER[verb]}"
    return None
