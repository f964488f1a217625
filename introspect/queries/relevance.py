"""Fires and their labels over a frame (decisions-and-effectiveness.md §8.5, §8.6): which fires a
frame holds (what the labelling page samples from), the relevance its labels give (precision, κ, the
AUCs per channel: rules/relevance.py), and the labelled fires themselves as plain records, for the
proposals that read them.

A fire is a way injected on a fire turn, not re-disclosed (a `TurnWay` row neither gated nor held:
what the session list counts as fires), named by its `way_fired` event's sha256. A channel in a
frame is a family (`semantic`, `keyword`…, rules/channels.py): `semantic` takes every
`semantic:*` trigger.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from urllib.parse import urlencode

from django.db.models import Q
from django.urls import reverse

from introspect.models import RelevanceLabel, TurnWay, WaysEvent
from introspect.queries.secret_masks import Allowed
from introspect.rules import relevance as rules
from introspect.services import LabelRow

DEFAULT_SIZE = 40  # ADR-195's random sample was 40 fires
MAX_SIZE = 500


@dataclass(frozen=True)
class LabelFrame:
    """What a sample is drawn from: a window of days (`since`, its first instant: the caller reads
    it with queries/effectiveness.since_for), a project, a way, a channel family."""

    project: str | None = None
    days: int | None = None
    since: datetime | None = None
    way: str | None = None
    channel: str | None = None


def project_q(field: str, project: str | None) -> Q:
    """The project's path or anything under it."""
    if not project:
        return Q()
    root = project.rstrip("/\\")
    return Q(**{field: root}) | Q(**{f"{field}__startswith": root + "/"})


def channel_q(field: str, channel: str | None) -> Q:
    if not channel:
        return Q()
    return Q(**{field: channel}) | Q(**{f"{field}__startswith": channel + ":"})


def fire_rows(frame: LabelFrame):
    """The frame's fires as TurnWay rows (not yet evaluated)."""
    rows = TurnWay.objects.filter(gated=False, suppressed="", redisclosed=False)
    rows = rows.filter(project_q("turn__session__project__path", frame.project))
    rows = rows.filter(channel_q("trigger_channel", frame.channel))
    if frame.since:
        rows = rows.filter(turn__ts__gte=frame.since)
    if frame.way:
        rows = rows.filter(way_id=frame.way)
    return rows


def frame_fires(frame: LabelFrame) -> list[str]:
    """Every fire of the frame, by its event's sha256 (one query)."""
    return list(fire_rows(frame).values_list("event__sha256", flat=True))


def label_rows(frame: LabelFrame):
    rows = RelevanceLabel.objects.filter(project_q("project", frame.project))
    rows = rows.filter(channel_q("channel", frame.channel))
    if frame.since:
        rows = rows.filter(ts__gte=frame.since)
    if frame.way:
        rows = rows.filter(way=frame.way)
    return rows


def labels_in(frame: LabelFrame) -> list[rules.Label]:
    """The frame's labels as the rules read them (one query)."""
    return [
        rules.Label(fire, labeller, verdict, way, channel, fire_score, p_yes)
        for fire, labeller, verdict, way, channel, fire_score, p_yes in label_rows(frame).values_list(
            "fire", "labeller_name", "verdict", "way", "channel", "fire_score", "p_yes"
        )
    ]


def relevance(
    *, project: str | None = None, since: datetime | None = None, way: str | None = None
) -> rules.Relevance:
    """Precision per way with its Wilson interval, the AUCs per channel and κ, from the labels of
    fires in the frame (one query)."""
    return rules.relevance(labels_in(LabelFrame(project=project, since=since, way=way)))


@dataclass(frozen=True)
class LabelledFire:
    """One person's label of one fire, with the prompt the way fired on: what a proposal cites
    (a `description`/`vocabulary` review, a narrower `pattern`, calibration positives and negatives)."""

    way: str
    project: str
    channel: str
    prompt: str  # the turn's prompt as stored (first TEXT_LIMIT characters); '' when the turn has none now
    verdict: str  # relevant, irrelevant or unsure
    matched: str  # the keyword span that matched, when the fire logged one
    labeller: str
    score: float | None  # the matcher's fire_score
    p_yes: float | None  # the judge's P(yes), when it judged the way
    fire: str  # the way_fired event's sha256
    session: str
    turn: int | None
    ts: datetime | None
    note: str


def labelled_fires(
    *,
    project: str | None = None,
    since: datetime | None = None,
    way: str | None = None,
    channel: str | None = None,
    verdict: str | None = None,
) -> list[LabelledFire]:
    """Every label of a fire in the frame (optionally of one verdict) with the prompt it fired on,
    oldest fire first. Two queries whatever the count: the labels, then their fires' prompts."""
    rows = label_rows(LabelFrame(project=project, since=since, way=way, channel=channel))
    if verdict:
        rows = rows.filter(verdict=verdict)
    labels = list(rows.order_by("ts", "fire", "labeller_name"))
    prompts = prompts_of({label.fire for label in labels})
    found = []
    for label in labels:
        prompt, matched = prompts.get(label.fire, ("", ""))
        found.append(
            LabelledFire(
                way=label.way,
                project=label.project,
                channel=label.channel,
                prompt=prompt,
                verdict=label.verdict,
                matched=matched,
                labeller=label.labeller_name,
                score=label.fire_score,
                p_yes=label.p_yes,
                fire=label.fire,
                session=label.session_key,
                turn=label.turn,
                ts=label.ts,
                note=label.note,
            )
        )
    return found


def prompts_of(fires: set[str]) -> dict[str, tuple[str, str]]:
    """Each fire's prompt (its turn's keyed prompt, else the prompt nearest in time) and matched span,
    in one query. Secrets masked, as every page shows stored text."""
    if not fires:
        return {}
    found: dict[str, tuple[str, str]] = {}
    allowed = Allowed()
    for fire, keyed, nearest, matched in TurnWay.objects.filter(
        WaysEvent.with_sha(fires, via="event__")
    ).values_list("event__sha256", "turn__prompt_entry__text", "turn__nearest_prompt__text", "matched_span"):
        if fire not in found:
            found[fire] = (allowed.text(keyed or nearest or ""), allowed.text(matched or ""))
    return found


def export_rows(frame: LabelFrame) -> list[LabelRow]:
    """The frame's labels in the export's shape, oldest label first (one query)."""
    return [
        LabelRow(
            fire=label.fire,
            session=label.session_key,
            turn=label.turn,
            way=label.way,
            project=label.project,
            channel=label.channel,
            ts=label.ts,
            fire_score=label.fire_score,
            p_yes=label.p_yes,
            verdict=label.verdict,
            note=label.note,
            labeller=label.labeller_name,
            labelled_at=label.labelled_at,
            frame=label.frame,
        )
        for label in label_rows(frame).order_by("labelled_at", "pk")
    ]


@dataclass(frozen=True)
class PrecisionRow:
    """One way's (or every way's) precision and AUCs as the page prints them."""

    way: str
    labelled: int
    precision: str  # "4 of 40 relevant · 10 % (4–23 %)", or why there is none
    counts: str  # "3 unsure · 1 disputed"
    channels: list[str]  # "semantic: score AUC 0.53 (36 fires) · judge AUC 0.92 (30)"
    has_estimate: bool


@dataclass(frozen=True)
class RelevanceView:
    overall: PrecisionRow
    ways: list[PrecisionRow]
    agreements: list[str]
    label_url: str
    export_url: str
    empty: bool


def pct(value: float) -> str:
    return f"{value * 100:.0f} %"


def precision_text(found: rules.Precision) -> str:
    if not found.decided:
        return "no decided label yet" if found.labelled else "no labels yet"
    interval = found.interval
    return (
        f"{found.relevant} of {found.decided} relevant · {pct(found.estimate)} "
        f"({pct(interval.low)}–{pct(interval.high)})"
    )


def counts_text(found: rules.Precision) -> str:
    parts = [
        f"{found.unsure} unsure" if found.unsure else "",
        f"{found.disputed} disputed" if found.disputed else "",
    ]
    return " · ".join(part for part in parts if part)


def auc_text(value: float | None, n: int) -> str:
    if not n:
        return "no fire with one"
    if value is None:
        return f"— ({n} fire{'s' if n != 1 else ''}: needs a relevant and an irrelevant one)"
    return f"{value:.2f} ({n} fires)"


def channel_text(found: rules.ChannelAuc) -> str:
    return (
        f"{found.channel}: score AUC {auc_text(found.score_auc, found.scored)} · "
        f"judge P(yes) AUC {auc_text(found.p_yes_auc, found.judged)}"
    )


def precision_row(way: str, found: rules.Precision, channels: list[rules.ChannelAuc]) -> PrecisionRow:
    return PrecisionRow(
        way,
        found.labelled,
        precision_text(found),
        counts_text(found),
        [channel_text(channel) for channel in channels],
        found.decided > 0,
    )


def agreement_text(found: rules.Agreement) -> str:
    kappa = f"κ {found.kappa:.2f}" if found.kappa is not None else "κ undefined (one verdict throughout)"
    return (
        f"{found.first} and {found.second}: {found.items} fires both labelled, {found.agreed} agreed, {kappa}"
    )


def relevance_view(found: rules.Relevance, query: dict) -> RelevanceView:
    """The labels' numbers as printed, with the links to label the frame's fires and to export them."""
    shown = {key: value for key, value in query.items() if value}
    return RelevanceView(
        overall=precision_row("every way", found.overall, found.channels),
        ways=[precision_row(way.way, way.precision, way.channels) for way in found.ways],
        agreements=[agreement_text(pair) for pair in found.agreements],
        label_url=f"{reverse('introspect:way-labels')}?{urlencode(shown)}".rstrip("?"),
        export_url=f"{reverse('introspect:way-labels-export')}?{urlencode(shown)}".rstrip("?"),
        empty=not found.labels,
    )
