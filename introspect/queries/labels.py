"""The labelling page (decisions-and-effectiveness.md §8.6, ADR-195's method in the browser): a seeded
uniform sample of a frame's fires (rules/relevance.sample), the person's progress through it, and
one sampled fire shown as a labeller needs it: the prompt, the reply before it (ADR-195's "last
turn"), the way's path and description, and what followed (the replies and calls up to the next
prompt, and the turn's outcome signals).

Labelling is blind, as ADR-195's two judges were: the page shows the person their own labels only,
so that the agreement (κ) between two people means something. Who else labelled a fire, and when, is
shown (on the fire and in the audit list of the sample's label writes); their verdicts and notes are
not, to a signed-in person or to anyone else.

Queries: the frame's fires, the sample's labels, the sample's audit rows, then for the fire shown its
row, the way file, the reply before, what followed, the turn's outcome and the person's label: ten at
most whatever the frame holds.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from urllib.parse import urlencode

from django.urls import reverse

from introspect.models import (
    LabelAction,
    RelevanceLabel,
    TranscriptEntry,
    TurnOutcome,
    TurnWay,
    Way,
    WaysEvent,
)
from introspect.queries.conversation import fires_query
from introspect.queries.effectiveness import RESOLUTION
from introspect.queries.relevance import LabelFrame, frame_fires
from introspect.queries.secret_masks import Allowed
from introspect.rules import relevance as rules
from introspect.rules.channels import FAMILIES, trigger_label

SHOWN_CHARS = 1500  # of a reply or a call: enough to judge relevance, short enough to read
FOLLOWED_ENTRIES = 8
AUDIT_ROWS = 30  # the newest label writes of the sample listed on the page
HIDDEN = "hidden (blind)"
CHANNELS = sorted(FAMILIES)


@dataclass(frozen=True)
class SampleItem:
    position: int  # 1-based, the order of the draw
    fire: str
    verdict: str  # the person's label, '' for none
    url: str


@dataclass(frozen=True)
class Followed:
    kind: str  # reply, call, error
    text: str


@dataclass(frozen=True)
class FireView:
    fire: str
    way: str
    way_url: str
    way_path: str  # '' when no way file has the id today
    way_description: str
    channel: str
    channel_label: str
    fire_score: float | None
    p_yes: float | None
    session: str
    session_url: str
    turn: int
    turn_url: str
    ts: object
    project: str
    prompt: str
    prompt_keyed: bool  # False: the prompt nearest in time (a heuristic turn)
    reply_before: str
    followed: list[Followed]
    signals: str  # the turn's outcome signals, in words
    verdict: str
    note: str


@dataclass(frozen=True)
class OtherLabel:
    """Someone else's label of the fire shown: who and when, never the verdict (blind labelling)."""

    labeller: str
    at: datetime


@dataclass(frozen=True)
class AuditRow:
    """One label write of the sample (LabelAction): who acted, whose label, how, on which sampled fire
    and when; the verdicts only on the person's own label."""

    at: datetime
    user: str
    labeller: str
    verb: str
    position: int
    url: str
    change: str  # "relevant → irrelevant", or HIDDEN for someone else's label


@dataclass(frozen=True)
class LabelPage:
    frame: LabelFrame
    seed: str
    size: int
    query: str  # the frame and sample as a query string, for every link and form of the page
    frame_fires: int
    items: list[SampleItem]
    labelled: int  # by the person
    at: int  # the position shown; 0 when the sample is empty
    current: FireView | None
    previous_url: str
    next_url: str
    export_url: str
    effectiveness_url: str
    done: bool  # every sampled fire labelled by the person
    others: list[OtherLabel]  # other people's labels of the fire shown, without their verdicts
    audit: list[AuditRow]  # the sample's label writes, newest first


def frame_query(frame: LabelFrame, seed: str, size: int) -> dict:
    found = {
        "project": frame.project,
        "days": frame.days,
        "way": frame.way,
        "channel": frame.channel,
        "seed": seed,
        "size": size,
    }
    return {key: value for key, value in found.items() if value}


def label_page(*, frame: LabelFrame, seed: str, size: int, at: int | None, labeller: str | None) -> LabelPage:
    """The sample of `frame` drawn with `seed`, the person's labels of it, and the fire at `at`
    (absent: the first the person has not labelled, so the same link resumes where they stopped)."""
    base = reverse("introspect:way-labels")
    query = frame_query(frame, seed, size)
    fires = frame_fires(frame)
    drawn = rules.sample(fires, size, seed)
    mine: dict[str, str] = {}
    others: dict[str, list[OtherLabel]] = {}
    labels = RelevanceLabel.objects.filter(fire__in=drawn).order_by("labelled_at", "pk")
    for fire, name, verdict, at_time in (
        labels.values_list("fire", "labeller_name", "verdict", "labelled_at") if drawn else ()
    ):
        if labeller and name == labeller:
            mine[fire] = verdict
        else:
            others.setdefault(fire, []).append(OtherLabel(name, at_time))
    items = [
        SampleItem(n, fire, mine.get(fire, ""), f"{base}?{urlencode(query | {'at': n})}")
        for n, fire in enumerate(drawn, start=1)
    ]
    if at is None:
        at = next((item.position for item in items if not item.verdict), len(items))
    at = min(at, len(items))
    current = fire_view(items[at - 1].fire, labeller) if at else None
    effect = {key: value for key, value in query.items() if key in ("project", "days", "way")}
    return LabelPage(
        frame=frame,
        seed=seed,
        size=size,
        query=urlencode(query),
        frame_fires=len(set(fires)),
        items=items,
        labelled=sum(1 for item in items if item.verdict),
        at=at,
        current=current,
        previous_url=items[at - 2].url if at > 1 else "",
        next_url=items[at].url if at and at < len(items) else "",
        export_url=f"{reverse('introspect:way-labels-export')}?{urlencode(query)}",
        effectiveness_url=f"{reverse('introspect:way-effectiveness')}?{urlencode(effect)}".rstrip("?"),
        done=bool(items) and all(item.verdict for item in items),
        others=others.get(items[at - 1].fire, []) if at else [],
        audit=label_audit(items, labeller),
    )


def label_audit(items: list[SampleItem], labeller: str | None) -> list[AuditRow]:
    """The newest label writes (set, changed, cleared, imported) of the sampled fires, each with who
    acted and when; the verdicts shown on the person's own label only (none to a reader signed out)."""
    if not items:
        return []
    by_fire = {item.fire: item for item in items}
    rows = LabelAction.objects.filter(fire__in=by_fire).order_by("-at", "-pk")[:AUDIT_ROWS]
    found = []
    for fire, at, user, whose, verb, before, after in rows.values_list(
        "fire", "at", "user_name", "labeller_name", "verb", "verdict_before", "verdict_after"
    ):
        own = labeller is not None and whose == labeller
        change = f"{before or '—'} → {after or 'cleared'}" if own else HIDDEN
        item = by_fire[fire]
        found.append(AuditRow(at, user, whose, verb, item.position, item.url, change))
    return found


def way_file(way_id: str) -> Way | None:
    """The file that resolves the id today (project, user, core), as the effectiveness page reads it."""
    files = Way.objects.filter(way_id=way_id, present=True).only(
        "root", "rel_path", "root_kind", "frontmatter"
    )
    return min(files, key=lambda way: RESOLUTION.get(way.root_kind, 3), default=None)


def shown(text: str, allowed: Allowed) -> str:
    text = allowed.text(text or "")
    return text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS] + " …"


def reply_before(prompt: TranscriptEntry, allowed: Allowed) -> str:
    """The assistant's last text reply before the prompt, in the same file (ADR-195's "last turn")."""
    found = (
        TranscriptEntry.objects.filter(
            source_id=prompt.source_id, type="assistant", is_copy=False, tool_use_id__isnull=True
        )
        .filter(offset__lt=prompt.offset)
        .exclude(text="")
        .order_by("-offset", "-index")
        .only("text")
        .first()
    )
    return shown(found.text, allowed) if found else ""


def what_followed(prompt: TranscriptEntry, allowed: Allowed) -> list[Followed]:
    """The replies, calls and failed results after the prompt, up to the next prompt."""
    rows = (
        TranscriptEntry.objects.filter(source_id=prompt.source_id, is_copy=False, inert=False)
        .filter(offset__gt=prompt.offset, type__in=("assistant", "user"))
        .order_by("offset", "index")
        .only("type", "is_prompt", "text", "tool_name", "tool_use_id", "tool_result_id", "is_error")[:40]
    )
    found: list[Followed] = []
    for entry in rows:
        if entry.is_prompt or len(found) >= FOLLOWED_ENTRIES:
            break
        if entry.type == "assistant" and entry.tool_use_id:
            found.append(Followed("call", shown(entry.text or entry.tool_name or "", allowed)))
        elif entry.type == "assistant" and entry.text:
            found.append(Followed("reply", shown(entry.text, allowed)))
        elif entry.tool_result_id and entry.is_error:
            found.append(Followed("error", shown(entry.text, allowed)))
    return found


def signals_text(outcome: TurnOutcome | None) -> str:
    if outcome is None:
        return ""
    parts = [
        f"{outcome.tool_errors} tool error{'s' if outcome.tool_errors != 1 else ''}"
        if outcome.tool_errors
        else "",
        f"corrected ({outcome.correction_cue})" if outcome.correction_cue else "",
        f"{outcome.interrupts} interrupt{'s' if outcome.interrupts != 1 else ''}"
        if outcome.interrupts
        else "",
        f"{outcome.retries} retr{'ies' if outcome.retries != 1 else 'y'}" if outcome.retries else "",
        f"{outcome.churn} churned edit{'s' if outcome.churn != 1 else ''}" if outcome.churn else "",
        "compacted" if outcome.compactions else "",
    ]
    return " · ".join(part for part in parts if part) or "no trouble"


def fire_view(fire: str, labeller: str | None) -> FireView | None:
    row = (
        TurnWay.objects.filter(WaysEvent.with_sha([fire], via="event__"))
        .select_related("turn__session__project", "turn__prompt_entry", "turn__nearest_prompt", "judge_event")
        .first()
    )
    if row is None:
        return None
    turn, session = row.turn, row.turn.session
    allowed = Allowed()
    prompt = turn.prompt_entry or turn.nearest_prompt
    way = way_file(row.way_id)
    label = None
    if labeller:
        label = RelevanceLabel.objects.filter(fire=fire, labeller_name=labeller).first()
    outcome = TurnOutcome.objects.filter(prompt_entry=prompt).first() if prompt else None
    session_url = reverse("introspect:session-detail", args=[session.sid])
    return FireView(
        fire=fire,
        way=row.way_id,
        way_url=reverse("introspect:way-detail", args=[row.way_id]),
        way_path=way.path if way else "",
        way_description=str((way.frontmatter or {}).get("description") or "") if way else "",
        channel=row.trigger_channel,
        channel_label=trigger_label(row.trigger_channel),
        fire_score=row.fire_score,
        p_yes=row.judge_event.p_yes if row.judge_event else None,
        session=session.sid,
        session_url=session_url,
        turn=turn.epoch,
        turn_url=f"{session_url}{fires_query(turn.epoch)}#turn-{turn.epoch}",
        ts=turn.ts,
        project=session.project.path if session.project else session.recorded_project,
        prompt=shown(prompt.text, allowed) if prompt else "",
        prompt_keyed=turn.prompt_entry_id is not None,
        reply_before=reply_before(prompt, allowed) if prompt else "",
        followed=what_followed(prompt, allowed) if prompt else [],
        signals=signals_text(outcome),
        verdict=label.verdict if label else "",
        note=label.note if label else "",
    )
