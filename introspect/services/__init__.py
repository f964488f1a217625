"""Writes the introspection pages make: a viewer's last-seen mark on a session; a person's relevance
label of a fire set, changed or cleared, and labels imported from a file, each audited (LabelAction)
in its transaction, as the ledger audits a ruling or a promotion (one row per act, naming who acted,
what it was before and after, kept when the label is gone)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from introspect.models import LabelAction, RelevanceLabel, SeenMark, Session, TurnWay, WaysEvent
from lib.viewers import Viewer


def seen_mark_move(
    *,
    session: Session,
    viewer: Viewer,
    current: SeenMark | None,
    position: tuple[int, int] | None = None,
    turns: int | None = None,
) -> None:
    """Move the viewer's mark on `session` to `position` (the newest entry shown) and/or `turns`
    (the fire turns shown); what is not given keeps its value.

    `current` is the viewer's mark as the caller read it (None: there is none). An unchanged mark
    is not written, so reopening a quiet session costs no write; else one UPDATE, or the first
    time one INSERT. Two first visits racing each other: the unique constraint keeps the first
    row and ignores the second (they hold the same position, read a moment apart).
    """
    values: dict = {}
    if position is not None and (current is None or current.position != position):
        values |= {"offset": position[0], "index": position[1]}
    if turns is not None and (current is None or current.turns != turns):
        values["turns"] = turns
    if not values:
        return
    values["seen_at"] = timezone.now()
    if current is not None:
        SeenMark.objects.filter(pk=current.pk).update(**values)
        return
    browser = "" if viewer.user_id is not None else viewer.browser
    mark = SeenMark(session=session, user_id=viewer.user_id, browser=browser, **values)
    SeenMark.objects.bulk_create([mark], ignore_conflicts=True)


class UnknownFire(LookupError):
    """No fire of that event in the database (a typed or stale link)."""


@dataclass(frozen=True)
class LabelRow:
    """One label as an export line carries it (documents/labels.py reads and writes the line)."""

    fire: str
    session: str
    turn: int | None
    way: str
    project: str
    channel: str
    ts: datetime | None
    fire_score: float | None
    p_yes: float | None
    verdict: str
    note: str
    labeller: str
    labelled_at: datetime
    frame: str = ""


def fire_facts(fire: str) -> dict:
    """What a label copies of its fire: session, turn, way, project, channel, time and scores."""
    row = (
        TurnWay.objects.filter(WaysEvent.with_sha([fire], via="event__"), gated=False, suppressed="")
        .select_related("turn__session__project", "judge_event")
        .first()
    )
    if row is None:
        raise UnknownFire(f"no fire with event {fire[:12]}… in the database")
    session = row.turn.session
    return {
        "session_key": session.sid,
        "turn": row.turn.epoch,
        "way": row.way_id,
        "project": session.project.path if session.project else session.recorded_project,
        "channel": row.trigger_channel,
        "ts": row.turn.ts,
        "fire_score": row.fire_score,
        "p_yes": row.judge_event.p_yes if row.judge_event else None,
    }


@transaction.atomic
def relevance_label_set(*, fire: str, verdict: str, note: str, user, frame: str = "") -> RelevanceLabel:
    """Set the user's label of a fire (relevant, irrelevant or unsure, with a note), audited in the
    same transaction. Labelling again with the same verdict and note writes nothing."""
    if verdict not in RelevanceLabel.Verdict.values:
        raise ValueError(f"not a verdict: {verdict!r}")
    name = user.get_username()
    label = RelevanceLabel.objects.select_for_update().filter(fire=fire, labeller_name=name).first()
    if label is not None and (label.verdict, label.note) == (verdict, note):
        return label
    before = label.verdict if label else ""
    if label is None:
        label = RelevanceLabel(fire=fire, labeller_name=name, **fire_facts(fire))
    label.verdict, label.note, label.labeller, label.frame = verdict, note, user, frame[:1000]
    label.labelled_at = timezone.now()
    label.save()
    LabelAction.objects.create(
        label=label,
        fire=fire,
        way=label.way,
        verb=LabelAction.Verb.RELABEL if before else LabelAction.Verb.LABEL,
        verdict_before=before,
        verdict_after=verdict,
        note=note,
        user=user,
        user_name=name,
        labeller_name=name,
    )
    return label


@transaction.atomic
def relevance_label_delete(*, fire: str, user) -> bool:
    """Clear the user's own label of a fire, audited in the same transaction (verb `delete`, the
    verdict it had before). False, and nothing written, when the user had no label of it."""
    name = user.get_username()
    label = RelevanceLabel.objects.select_for_update().filter(fire=fire, labeller_name=name).first()
    if label is None:
        return False
    LabelAction.objects.create(
        fire=fire,
        way=label.way,
        verb=LabelAction.Verb.DELETE,
        verdict_before=label.verdict,
        verdict_after="",
        note=label.note,
        user=user,
        user_name=name,
        labeller_name=name,
    )
    label.delete()
    return True


@dataclass(frozen=True)
class Imported:
    added: int
    changed: int
    unchanged: int


@transaction.atomic
def relevance_labels_import(*, rows: list[LabelRow], by: str) -> Imported:
    """Add or update the labels (all or none: one transaction), each write audited as an import by
    `by`. A label already held with the same verdict and note is left alone, so importing a file twice
    changes nothing. A labeller named like a user here is linked to that user."""
    users = {
        u.get_username(): u for u in get_user_model().objects.filter(username__in={r.labeller for r in rows})
    }
    held = {
        (label.fire, label.labeller_name): label
        for label in RelevanceLabel.objects.select_for_update().filter(fire__in={r.fire for r in rows})
    }
    added = changed = unchanged = 0
    for row in rows:
        label = held.get((row.fire, row.labeller))
        if label is not None and (label.verdict, label.note) == (row.verdict, row.note):
            unchanged += 1
            continue
        before = label.verdict if label else ""
        if label is None:
            label = RelevanceLabel(fire=row.fire, labeller_name=row.labeller)
            held[(row.fire, row.labeller)] = label
            added += 1
        else:
            changed += 1
        label.session_key, label.turn, label.way, label.project = row.session, row.turn, row.way, row.project
        label.channel, label.ts, label.fire_score, label.p_yes = (
            row.channel,
            row.ts,
            row.fire_score,
            row.p_yes,
        )
        label.verdict, label.note, label.frame = row.verdict, row.note, row.frame
        label.labeller, label.labelled_at = users.get(row.labeller), row.labelled_at
        label.save()
        LabelAction.objects.create(
            label=label,
            fire=row.fire,
            way=row.way,
            verb=LabelAction.Verb.IMPORT,
            verdict_before=before,
            verdict_after=row.verdict,
            note=row.note,
            user_name=by,
            labeller_name=row.labeller,
        )
    return Imported(added, changed, unchanged)
