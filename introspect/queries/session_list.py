"""The session list: its filters, the sessions a page lists with what each viewer has not seen, the
import under way, and the menus of its filter form."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from django.core.paginator import Page, Paginator
from django.db.models import (
    BooleanField,
    Case,
    Count,
    Exists,
    F,
    IntegerField,
    Max,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    Value,
    When,
)
from django.db.models.functions import Coalesce

from introspect.importer import activity, heartbeat
from introspect.models import Project, SeenMark, Session, Subagent, TranscriptEntry
from introspect.queries.conversation import CONVERSATION_TYPES_HIDDEN, from_position
from lib.viewers import Viewer

SESSIONS_PER_PAGE = 50


@dataclass(frozen=True)
class SessionFilters:
    project: int | None = None
    q: str = ""
    sort: str = "newest"
    since: date | None = None
    until: date | None = None
    model: str = ""
    transcript: str = ""  # "", "yes" (present), "gone", "none"
    live: bool = False

    @property
    def active(self) -> bool:
        return bool(
            self.project or self.q or self.since or self.until or self.model or self.transcript or self.live
        )


SORTS = {
    "newest": (F("started_at").desc(nulls_last=True), "-pk"),
    "oldest": (F("started_at").asc(nulls_last=True), "pk"),
    "fires": ("-total_fires", "-pk"),
    "turns": ("-turn_count", "-pk"),
    "duration": ("-duration_secs", "-pk"),
}


# A row the importer made for a session id it read (stores.ensure_sessions) that no derive has
# filled in yet: every field at its default. Mid-import the list showed such rows as
# "inferred · no transcript · unknown · 0 s"; it lists a session once it is put together.
NOT_DERIVED = Q(derived_version=0, built_event_id=0, built_entry_id=0)


@dataclass(frozen=True)
class ListImport:
    """What the session list says about the import, and the cursor its poller carries."""

    importer: heartbeat.Reading
    activity: activity.Activity | None  # the import under way, None when nothing imports
    waiting: int  # sessions read but not derived yet (not listed)
    # Changes whenever the list would: the phase, the sessions listed and waiting, their last change.
    cursor: str

    @property
    def importing(self) -> bool:
        return self.activity is not None


def session_list_import() -> ListImport:
    """The import under way (small files, no query) and the list's state in one aggregate query."""
    reading = heartbeat.current()
    current = activity.of(reading)
    listed = ~NOT_DERIVED
    counts = Session.objects.aggregate(
        listed=Count("pk", filter=listed),
        waiting=Count("pk", filter=NOT_DERIVED),
        changed=Max("updated_at", filter=listed),
    )
    changed = int(counts["changed"].timestamp() * 1e6) if counts["changed"] else 0
    phase = current.phase if current else "idle"
    return ListImport(
        importer=reading,
        activity=current,
        waiting=counts["waiting"],
        cursor=f"{phase}.{counts['listed']}.{counts['waiting']}.{changed}",
    )


def session_list_page(filters: SessionFilters, *, page: int, viewer: Viewer | None = None) -> Page:
    """Sessions newest first (by origin), filtered by project and a text match on id, project,
    title or any prompt; each with what `viewer` has not seen yet (`unseen`, see with_unseen) and
    whether subagent transcripts are all it has (`subagents_only`: its main one is missing).
    Sessions read but not derived yet are left out (NOT_DERIVED)."""
    sessions = with_unseen(
        Session.objects.exclude(NOT_DERIVED).select_related("project", "transcript"), viewer
    ).annotate(
        subagents_only=Case(
            When(
                transcript__isnull=True,
                then=Exists(Subagent.objects.filter(session=OuterRef("pk"), source__isnull=False)),
            ),
            default=Value(False),
            output_field=BooleanField(),
        )
    )
    if filters.project:
        sessions = sessions.filter(project_id=filters.project)
    if filters.q:
        # Any prompt of the session, not only its first: one EXISTS per session row, stopping at
        # the first prompt line that matches (real prompts only, never tool output).
        prompted = TranscriptEntry.objects.filter(
            session=OuterRef("pk"), is_prompt=True, text__icontains=filters.q
        )
        sessions = sessions.filter(
            Q(sid__icontains=filters.q)
            | Q(project__path__icontains=filters.q)
            | Q(title__icontains=filters.q)
            | Q(first_prompt__icontains=filters.q)
            | Exists(prompted)
        )
    if filters.since:
        sessions = sessions.filter(started_at__date__gte=filters.since)
    if filters.until:
        sessions = sessions.filter(started_at__date__lte=filters.until)
    if filters.model:
        sessions = sessions.filter(
            Q(model__icontains=filters.model) | Q(models_seen__icontains=filters.model)
        )
    if filters.transcript:
        status = {
            "yes": Session.TranscriptStatus.PRESENT,
            "gone": Session.TranscriptStatus.GONE,
            "none": Session.TranscriptStatus.NONE,
        }.get(filters.transcript)
        if status:
            sessions = sessions.filter(transcript_status=status)
    if filters.live:
        sessions = sessions.filter(Session.live_filter())
    sessions = sessions.order_by(*SORTS.get(filters.sort, SORTS["newest"]))
    return Paginator(sessions, SESSIONS_PER_PAGE).get_page(page)


def with_unseen(sessions: QuerySet[Session], viewer: Viewer | None) -> QuerySet[Session]:
    """Each session's `unseen`: its trunk entries after the viewer's last-seen mark (for a session
    without a transcript, its fire turns after the mark); None where the viewer never opened it.

    Subqueries of the list's one query. The count is a range on (source, offset) from the mark, so
    it reads only the entries written since, whatever the session's length.
    """
    if viewer is None or not viewer.known:
        return sessions.annotate(unseen=Value(None, output_field=IntegerField()))
    mark = SeenMark.objects.of(viewer).filter(session=OuterRef("pk"))
    sessions = sessions.annotate(
        seen_offset=Subquery(mark.values("offset")[:1]),
        seen_index=Subquery(mark.values("index")[:1]),
        seen_turns=Subquery(mark.values("turns")[:1]),
    )
    trunk = TranscriptEntry.objects.filter(
        source_id=OuterRef("transcript_id"), inert=False, is_copy=False
    ).exclude(type__in=CONVERSATION_TYPES_HIDDEN)
    newer = from_position(trunk, OuterRef("seen_offset"), OuterRef("seen_index") + 1)
    count = Subquery(newer.order_by().values("source_id").annotate(n=Count("pk")).values("n")[:1])
    return sessions.annotate(
        unseen=Case(
            When(seen_turns__isnull=True, then=Value(None)),
            When(transcript__isnull=False, then=Coalesce(count, 0)),
            default=F("turn_count") - F("seen_turns"),
            output_field=IntegerField(),
        )
    )


SHORT_ID = 8  # the list shows this many characters of an id (templatetags short_id)


PREFIX_MATCHES = 50


def sessions_by_prefix(prefix: str) -> list[Session]:
    """Sessions whose id starts with `prefix` (a short id of at least SHORT_ID characters, as the
    list shows them), at most PREFIX_MATCHES: one range scan of the unique sid index. A range, not
    `startswith`: SQLite's LIKE ignores case, and ids differing in case are different sessions."""
    if len(prefix) < SHORT_ID:
        return []
    found = Session.objects.select_related("project").filter(sid__gte=prefix, sid__lt=prefix + "\U0010ffff")
    return [session for session in found.order_by("sid")[:PREFIX_MATCHES] if session.sid.startswith(prefix)]


def models_for_filter() -> list[str]:
    """Model names seen in any session, for the filter menu."""
    names: set[str] = set()
    for seen, last in Session.objects.values_list("models_seen", "model").distinct():
        names.update(name.strip() for name in f"{seen},{last}".split(",") if name.strip())
    return sorted(names)


def projects_for_filter() -> QuerySet[Project]:
    return (
        Project.objects.annotate(session_count=Count("sessions")).filter(session_count__gt=0).order_by("name")
    )
