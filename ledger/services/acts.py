"""What every act of a person shares: who acts, and the two ways an act is turned down."""

from __future__ import annotations

from dataclasses import dataclass

from ledger.models import AdrRecord, KnowledgeRecord


class Conflict(Exception):
    """The record changed since the page loaded, or is no longer a candidate: decide again."""

    def __init__(self, record: KnowledgeRecord | AdrRecord, message: str):
        super().__init__(message)
        self.record = record


class Refused(ValueError):
    """The request itself is not acceptable (empty evidence, a transcript pasted as evidence…)."""


@dataclass(frozen=True)
class Reviewer:
    user: object
    name: str

    @classmethod
    def of(cls, user) -> Reviewer:
        return cls(user=user, name=user.get_username())
