"""Values every page's frame needs: the sample badge, the counts the header shows, the import under way."""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from django.db import connection
from django.http import HttpRequest
from django.utils.functional import SimpleLazyObject

from introspect.derive.sessions import AREA as SESSIONS_AREA
from introspect.importer import activity, health, heartbeat
from introspect.models import SourceProblem
from ledger.models import AdrQuestion, AdrRecord, KnowledgeRecord


@dataclass(frozen=True)
class Header:
    pending_knowledge: int
    unread: int
    open_decisions: int
    failure: dict | None
    underived: int = 0  # sessions whose rows could not be derived (listed with the paths not read)

    @property
    def trouble(self) -> bool:
        return bool(self.unread or self.underived or self.failure)


def header() -> Header:
    """Every count of the header in one query (a page's query budget is fixed), plus the importer's
    last failure, which lives in a file because it may be about a database that cannot be written."""
    quote = connection.ops.quote_name
    questions, records = quote(AdrQuestion._meta.db_table), quote(AdrRecord._meta.db_table)
    problems = quote(SourceProblem._meta.db_table)
    sql = (
        f"SELECT (SELECT COUNT(*) FROM {quote(KnowledgeRecord._meta.db_table)} WHERE present AND status = %s), "
        f"(SELECT COUNT(*) FROM {problems} WHERE area <> %s), "
        f"(SELECT COUNT(*) FROM {questions} JOIN {records} ON {records}.id = {questions}.record_id "
        f"WHERE {questions}.state = %s AND {records}.present), "
        f"(SELECT COUNT(*) FROM {problems} WHERE area = %s)"
    )
    with connection.cursor() as cursor:
        cursor.execute(
            sql, [KnowledgeRecord.Status.CANDIDATE, SESSIONS_AREA, AdrQuestion.State.OPEN, SESSIONS_AREA]
        )
        pending, unread, decisions, underived = cursor.fetchone()
    return Header(
        pending_knowledge=pending,
        unread=unread,
        open_decisions=decisions,
        failure=health.last_failure(),
        underived=underived,
    )


def waysweb(request: HttpRequest) -> dict:
    # Lazy: only pages that render the frame pay for the query, once however often it is read.
    # The import under way is in small files (importer/activity.py), read without a query.
    # Not on the login page of a server that asks for one: its poll would be sent to log in too.
    return {
        "demo": settings.WAYSWEB_DEMO,
        "header": SimpleLazyObject(header),
        "import_activity": SimpleLazyObject(lambda: activity_for(request)),
        "importer_alert": SimpleLazyObject(lambda: importer_alert(request)),
    }


def activity_for(request: HttpRequest) -> activity.Activity | None:
    if settings.LOGIN_REQUIRED and not request.user.is_authenticated:
        return None
    return activity.current()


def importer_alert(request: HttpRequest) -> heartbeat.Reading | None:
    """The importer's heartbeat when every page must say it stopped: `serve` is about to start it
    again, or a follower ended with an error (a file read, no query)."""
    if settings.LOGIN_REQUIRED and not request.user.is_authenticated:
        return None
    reading = heartbeat.current()
    if reading.state != heartbeat.STOPPED:
        return None
    return reading if reading.restart_at is not None or (reading.follow and reading.error) else None
