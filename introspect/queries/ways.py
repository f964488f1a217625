"""Reads for the way pages: the catalog as a domain tree, and one way's record for tuning it.

Everything is aggregated in the database with a fixed number of queries per page, whatever the
number of sessions, turns or events (STYLE.md §2: reads live in query modules). Counting follows
introspection.md §7: only injected rows (neither gated nor suppressed) are fires; re-disclosures
injected too but are counted apart; gated, suppressed and judge-blocked rows are never fires.
Scores follow formats-agent-ways.md §8: calibrated probabilities (`prob_*`, `tau_s`) and raw
scores from before ADR-156 (`score_*`, `thr_*`) are never compared with each other.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

from django.db.models import Count, Max, Min, Q
from django.db.models.functions import TruncWeek

from introspect.importer.wayfiles import CRITERIA_KEYS
from introspect.models import TurnWay, Way, WaysEvent
from introspect.rules.evidence import TAU_S

# Precedence of way roots (formats-agent-ways.md §10.1): project, then user, then core.
ROOT_RANK = {Way.RootKind.PROJECT: 0, Way.RootKind.USER: 1, Way.RootKind.CORE: 2}

# Fields agent-ways no longer reads (formats-agent-ways.md §10.3): shown struck through, never
# used to explain a fire.
GONE_FIELDS = {
    "embed_threshold": "not read since ADR-156 (firing uses the global τ on calibrated g(s))",
    "curve": "not read since ADR-126 (replaced by refire:)",
    "redisclose": "not read since ADR-123 (removed)",
}

SESSION_LIMIT = 100
NEAR_MISS_LIMIT = 200
SERIES_LIMIT = 500
REDISCLOSURE_LIMIT = 200
WEEK_LIMIT = 104

INJECTED = Q(gated=False, suppressed="")
FIRST_FIRE = INJECTED & Q(redisclosed=False)
REDISCLOSED = INJECTED & Q(redisclosed=True)
WITHHELD = Q(gated=True) | ~Q(suppressed="")


# ── The catalog tree ────────────────────────────────────────────────────────────────────────────


@dataclass
class WayLeaf:
    """One way id in the catalog, with what the events and the way roots say about it."""

    way_id: str
    fires: int = 0
    redisclosures: int = 0
    withheld: int = 0
    near_misses: int = 0
    events: int = 0
    last_fired: datetime | None = None
    root_kinds: list[str] = field(default_factory=list)  # present files, highest precedence first
    gone_kinds: list[str] = field(default_factory=list)  # files that were read once and vanished

    @property
    def root_kind(self) -> str:
        return self.root_kinds[0] if self.root_kinds else ""

    @property
    def no_file(self) -> bool:
        """In events only: no way file with this id was ever read (a rename, or another machine)."""
        return not self.root_kinds and not self.gone_kinds

    @property
    def file_gone(self) -> bool:
        """A file with this id was read once and is no longer under any root."""
        return not self.root_kinds and bool(self.gone_kinds)


@dataclass
class DomainNode:
    """One `/` segment of way ids; `way` is set when the prefix itself is a way id."""

    name: str
    path: str
    way: WayLeaf | None = None
    children: list[DomainNode] = field(default_factory=list)
    fires: int = 0
    way_count: int = 0

    @property
    def depth(self) -> int:
        return self.path.count("/")


def way_tree(*, q: str = "") -> list[DomainNode]:
    """Every way id with a file (present or gone) or in any event, nested by `/` segments.

    Three aggregate queries (turn rows, events, way files); `q` keeps ids containing it.
    """
    leaves: dict[str, WayLeaf] = {}

    def leaf(way_id: str) -> WayLeaf:
        return leaves.setdefault(way_id, WayLeaf(way_id))

    rows = TurnWay.objects.all()
    events = WaysEvent.objects.exclude(way__isnull=True).exclude(way="")
    files = Way.objects.all()
    if q:
        rows, events, files = (
            rows.filter(way_id__icontains=q),
            events.filter(way__icontains=q),
            files.filter(way_id__icontains=q),
        )

    for item in (
        rows.values("way_id")
        .annotate(
            fires=Count("pk", filter=FIRST_FIRE),
            redisclosures=Count("pk", filter=REDISCLOSED),
            withheld=Count("pk", filter=WITHHELD),
            last_fired=Max("event__ts", filter=INJECTED),
        )
        .order_by()
    ):
        way = leaf(item["way_id"])
        way.fires, way.redisclosures, way.withheld = item["fires"], item["redisclosures"], item["withheld"]
        way.last_fired = item["last_fired"]
    for item in (
        events.values("way")
        .annotate(
            n=Count("pk"),
            near=Count("pk", filter=Q(event="way_nearmiss")),
        )
        .order_by()
    ):
        way = leaf(item["way"])
        way.events, way.near_misses = item["n"], item["near"]
    for item in files.values("way_id", "root_kind", "present").order_by():
        way = leaf(item["way_id"])
        kinds = way.root_kinds if item["present"] else way.gone_kinds
        if item["root_kind"] not in kinds:
            kinds.append(item["root_kind"])
    for way in leaves.values():
        way.root_kinds.sort(key=lambda kind: ROOT_RANK.get(kind, 9))
        way.gone_kinds.sort(key=lambda kind: ROOT_RANK.get(kind, 9))
    return build_tree(leaves.values())


# Way ids are data: `w/w/w/…` 150 deep would nest the template 150 includes deep (a RecursionError
# for every reader of /ways/). Past this depth the rest of the id stays one node, `/`s and all.
MAX_TREE_DEPTH = 8


def build_tree(leaves) -> list[DomainNode]:
    """Nest leaves by `/` segments (at most MAX_TREE_DEPTH), children sorted by name, counts summed up."""
    root = DomainNode(name="", path="")
    index: dict[str, DomainNode] = {}
    for way in leaves:
        parent = root
        segments = way.way_id.split("/", MAX_TREE_DEPTH - 1)
        for depth in range(1, len(segments) + 1):
            path = "/".join(segments[:depth])
            node = index.get(path)
            if node is None:
                node = index[path] = DomainNode(name=segments[depth - 1], path=path)
                parent.children.append(node)
            parent = node
        parent.way = way

    def finish(node: DomainNode) -> None:
        node.children.sort(key=lambda child: child.name)
        for child in node.children:
            finish(child)
        node.fires = (node.way.fires if node.way else 0) + sum(child.fires for child in node.children)
        node.way_count = (1 if node.way else 0) + sum(child.way_count for child in node.children)

    finish(root)
    return root.children


# ── One way ─────────────────────────────────────────────────────────────────────────────────────


@dataclass(frozen=True)
class WayFileRow:
    """A way file with this id under one root, and whether it is the one agent-ways reads."""

    way: Way
    note: str
    resolves: bool


@dataclass(frozen=True)
class Criterion:
    key: str
    text: str
    gone_note: str = ""
    fire_bearing: bool = False


@dataclass
class Counts:
    rows: int = 0
    fires: int = 0
    redisclosures: int = 0
    gated: int = 0
    suppressed_refire: int = 0
    suppressed_cap: int = 0
    suppressed_other: int = 0
    judge_blocked: int = 0
    events: int = 0
    near_misses: int = 0
    judged_pass: int = 0
    judged_would_block: int = 0
    first_fired: datetime | None = None
    last_fired: datetime | None = None


@dataclass(frozen=True)
class WeekBucket:
    """One ISO week (Monday start): injected first fires and re-disclosures, apart."""

    start: date
    fires: int
    redisclosures: int

    @property
    def label(self) -> str:
        year, week, _ = self.start.isocalendar()
        return f"{year}-W{week:02d}"


@dataclass(frozen=True)
class ChannelMix:
    channel: str
    total: int
    fires: int
    redisclosures: int
    withheld: int


@dataclass(frozen=True)
class SessionFires:
    """A session where the way appears in a turn, with links to its first and last turn."""

    sid: str
    project: str
    project_path: str
    fires: int
    redisclosures: int
    withheld: int
    first_epoch: int
    last_epoch: int
    first_ts: datetime | None
    last_ts: datetime | None


@dataclass(frozen=True)
class NearMiss:
    """A `way_nearmiss`: calibrated (`prob_*` vs `tau_s`) or raw (`score_*` vs `thr_*`), never mixed."""

    ts: datetime | None
    ts_raw: str
    sid: str
    surface: str
    schema_gen: str
    margin: float | None
    prob_en: float | None = None
    prob_multi: float | None = None
    tau_s: float | None = None
    score_en: float | None = None
    score_multi: float | None = None
    thr_en: float | None = None
    thr_multi: float | None = None
    way: str | None = None  # the event's own field, printed as it is

    @property
    def calibrated(self) -> bool:
        return self.schema_gen == "calibrated"

    @property
    def raw(self) -> bool:
        """Scored before ADR-156: a raw `score_*` against a per-model `thr_*`, no probability."""
        return self.schema_gen == "raw_score"

    @property
    def score(self) -> float | None:
        """The raw score shown for it: the English model's, else the multilingual one's."""
        return self.score_en if self.score_en is not None else self.score_multi

    @property
    def threshold(self) -> float | None:
        return self.thr_en if self.thr_en is not None else self.thr_multi

    @property
    def shown_probability(self) -> float | None:
        """The probability shown beside τ: the English model's, else the multilingual one's."""
        return self.prob_en if self.prob_en is not None else self.prob_multi

    @property
    def probability(self) -> float | None:
        """The probability that fell short: the highest one under τ, else τ − margin."""
        if not self.calibrated:
            return None
        probs = [p for p in (self.prob_en, self.prob_multi) if p is not None]
        below = [p for p in probs if self.tau_s is None or p < self.tau_s]
        if below:
            return max(below)
        if self.tau_s is not None and self.margin is not None:
            return round(self.tau_s - self.margin, 4)
        return max(probs) if probs else None

    @property
    def generation_label(self) -> str:
        if self.schema_gen == "calibrated":
            return "calibrated probability"
        if self.raw:
            return "raw score, before ADR-156"
        return "no score recorded"


@dataclass(frozen=True)
class ScorePoint:
    """One point of the score chart: a semantic fire's `fire_score` or a calibrated near-miss."""

    ts: datetime
    value: float
    kind: str  # fire, redisclosure, near-miss
    sid: str
    epoch: int | None = None
    channel: str = ""


@dataclass(frozen=True)
class Redisclosure:
    """A re-disclosure and the token distance from the previous injection in its window.

    `token_position` 0 means not recorded (no transcript when the hook ran), so a distance is only
    computed when both positions were recorded.
    """

    sid: str
    window: int
    epoch: int
    ts: datetime | None
    token_position: int
    previous_epoch: int | None
    previous_token_position: int | None

    @property
    def distance(self) -> int | None:
        if self.previous_epoch is None or not self.token_position or not self.previous_token_position:
            return None
        return self.token_position - self.previous_token_position

    @property
    def why_no_distance(self) -> str:
        if self.previous_epoch is None:
            return "no earlier injection in this window"
        if not self.token_position or not self.previous_token_position:
            return "token position not recorded (0)"
        return ""


@dataclass
class WayStats:
    """Everything the way page shows about one way id."""

    way_id: str
    files: list[WayFileRow]
    primary: Way | None
    criteria: list[Criterion]
    counts: Counts
    weeks: list[WeekBucket]
    weeks_truncated: bool
    channels: list[ChannelMix]
    sessions: list[SessionFires]
    session_total: int
    near_misses: list[NearMiss]
    raw_near_misses: list[NearMiss]
    score_points: list[ScorePoint]
    fire_score_total: int
    tau: float
    tau_note: str
    redisclosures: list[Redisclosure]

    @property
    def domain(self) -> str:
        return self.way_id.split("/", 1)[0]

    @property
    def known(self) -> bool:
        """A file was read with this id, or an event names it: anything else is a 404."""
        return bool(self.files) or self.counts.events > 0 or self.counts.rows > 0

    @property
    def file_state(self) -> str:
        if any(row.way.present for row in self.files):
            return "present"
        return "gone" if self.files else "none"

    @property
    def changed_after_last_fire(self) -> bool:
        """Today's file changed after the last fire: the criteria shown may not be those that fired."""
        # The first version's `changed_at` is only when waysweb first read the file; a later
        # version's is when its content was first seen, which is the evidence of a change.
        last = self.counts.last_fired
        versions = getattr(self.primary, "version_count", 0)
        return bool(self.primary and last and versions > 1 and self.primary.changed_at > last)

    @property
    def plotted_near_misses(self) -> int:
        return sum(1 for point in self.score_points if point.kind == "near-miss")


def way_stats(way_id: str) -> WayStats:
    """One way's files, fires, channels, sessions, near-misses, scores and re-disclosure distances.

    A fixed number of queries (about ten) whatever the number of sessions; lists are capped
    (`SESSION_LIMIT`, `NEAR_MISS_LIMIT`, `SERIES_LIMIT`, `REDISCLOSURE_LIMIT`) and say so.
    """
    files, primary = way_files(way_id)
    rows = TurnWay.objects.filter(way_id=way_id)
    counts = way_counts(way_id, rows)
    weeks, truncated = fires_per_week(rows)
    near, raw = near_misses(way_id)
    points, fire_total = score_points(rows, near)
    tau, tau_note = threshold(near)
    return WayStats(
        way_id=way_id,
        files=files,
        primary=primary,
        criteria=criteria_rows(primary) if primary else [],
        counts=counts,
        weeks=weeks,
        weeks_truncated=truncated,
        channels=channel_mix(rows),
        sessions=sessions_for_way(rows),
        session_total=rows.values("turn__session").distinct().count(),
        near_misses=near,
        raw_near_misses=raw,
        score_points=points,
        fire_score_total=fire_total,
        tau=tau,
        tau_note=tau_note,
        redisclosures=redisclosure_distances(rows),
    )


def way_files(way_id: str) -> tuple[list[WayFileRow], Way | None]:
    """Every file read with this id, highest precedence first, and the one whose text to show.

    Outside a project agent-ways reads user, then core; a project way applies only in its own
    project, where it shadows both (formats-agent-ways.md §10.1).
    """
    ways = sorted(
        Way.objects.filter(way_id=way_id).select_related("project").annotate(version_count=Count("versions")),
        key=lambda w: (not w.present, ROOT_RANK.get(w.root_kind, 9), w.root),
    )
    present = [w for w in ways if w.present]
    global_winner = next((w for w in present if w.root_kind != Way.RootKind.PROJECT), None)
    out = []
    for way in ways:
        if not way.present:
            note, resolves = "file gone: no longer under this root (last read shown)", False
        elif way.root_kind == Way.RootKind.PROJECT:
            name = way.project.name if way.project else "its project"
            shadows = " and shadows the user/core way there" if global_winner else ""
            note, resolves = f"read only in {name}{shadows}", True
        elif way is global_winner:
            note, resolves = "resolves outside projects that carry their own", True
        else:
            note, resolves = f"shadowed by the {global_winner.root_kind} way", False
        out.append(WayFileRow(way=way, note=note, resolves=resolves))
    primary = global_winner or (present[0] if present else (ways[0] if ways else None))
    return out, primary


def criteria_rows(way: Way) -> list[Criterion]:
    """Front matter as read today, gone fields marked (formats-agent-ways.md §10.3)."""
    out = []
    for key, value in (way.frontmatter or {}).items():
        out.append(
            Criterion(
                key=key,
                text=field_text(value),
                gone_note=GONE_FIELDS.get(key, ""),
                fire_bearing=key in CRITERIA_KEYS or key == "description",
            )
        )
    return out


def field_text(value) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list) and all(isinstance(item, (str, int, float)) for item in value):
        return ", ".join(str(item) for item in value)
    return json.dumps(value, ensure_ascii=False)


def way_counts(way_id: str, rows) -> Counts:
    """Turn-row counts by outcome, plus event counts (near-misses, judge verdicts): two queries."""
    # Aliases must not shadow field names (`gated`), or Django reads them as aggregates.
    totals = rows.aggregate(
        n_rows=Count("pk"),
        n_fires=Count("pk", filter=FIRST_FIRE),
        n_redisclosures=Count("pk", filter=REDISCLOSED),
        n_gated=Count("pk", filter=Q(gated=True)),
        n_suppressed_refire=Count("pk", filter=Q(gated=False, suppressed="refire")),
        n_suppressed_cap=Count("pk", filter=Q(gated=False, suppressed="context_cap")),
        n_suppressed_other=Count(
            "pk", filter=Q(gated=False) & ~Q(suppressed__in=["", "refire", "context_cap", "judge"])
        ),
        n_judge_blocked=Count("pk", filter=Q(suppressed="judge")),
        n_first_fired=Min("event__ts", filter=INJECTED),
        n_last_fired=Max("event__ts", filter=INJECTED),
    )
    events = WaysEvent.objects.filter(way=way_id).aggregate(
        n_events=Count("pk"),
        n_near_misses=Count("pk", filter=Q(event="way_nearmiss")),
        n_judged_pass=Count("pk", filter=Q(event="way_judged", verdict="pass")),
        n_judged_would_block=Count("pk", filter=Q(event="way_judged", verdict="would_block")),
    )
    return Counts(**{key.removeprefix("n_"): value for key, value in (totals | events).items()})


def fires_per_week(rows) -> tuple[list[WeekBucket], bool]:
    """Injected first fires and re-disclosures per ISO week, empty weeks filled in (at most two years)."""
    found = {
        item["week"].date(): (item["fires"], item["re"])
        for item in rows.filter(INJECTED, event__ts__isnull=False)
        .annotate(week=TruncWeek("event__ts"))
        .values("week")
        .annotate(fires=Count("pk", filter=Q(redisclosed=False)), re=Count("pk", filter=Q(redisclosed=True)))
        .order_by("week")
    }
    if not found:
        return [], False
    first, last = min(found), max(found)
    count = (last - first).days // 7 + 1
    truncated = count > WEEK_LIMIT
    if truncated:
        first, count = last - timedelta(weeks=WEEK_LIMIT - 1), WEEK_LIMIT
    weeks = []
    # Counted, not stepped past `last`: the week after one in the year 9999 is not in the calendar.
    for n in range(count):
        current = first + timedelta(weeks=n)
        fires, re = found.get(current, (0, 0))
        weeks.append(WeekBucket(start=current, fires=fires, redisclosures=re))
    return weeks, truncated


def channel_mix(rows) -> list[ChannelMix]:
    """Rows per trigger channel (synthetic `keyword:gated` and `judge` included), most used first."""
    return [
        ChannelMix(
            channel=item["trigger_channel"],
            total=item["total"],
            fires=item["fires"],
            redisclosures=item["re"],
            withheld=item["withheld"],
        )
        for item in rows.values("trigger_channel")
        .annotate(
            total=Count("pk"),
            fires=Count("pk", filter=FIRST_FIRE),
            re=Count("pk", filter=REDISCLOSED),
            withheld=Count("pk", filter=WITHHELD),
        )
        .order_by("-total", "trigger_channel")
    ]


def sessions_for_way(rows) -> list[SessionFires]:
    """Sessions where the way appears in a turn, latest first, with first/last turn of injection."""
    out = []
    for item in (
        rows.values(
            "turn__session__sid",
            "turn__session__project__name",
            "turn__session__project__path",
            "turn__session__recorded_project",
        )
        .annotate(
            fires=Count("pk", filter=FIRST_FIRE),
            re=Count("pk", filter=REDISCLOSED),
            withheld=Count("pk", filter=WITHHELD),
            first_injected=Min("turn__epoch", filter=INJECTED),
            last_injected=Max("turn__epoch", filter=INJECTED),
            first_any=Min("turn__epoch"),
            last_any=Max("turn__epoch"),
            first_ts=Min("turn__ts"),
            last_ts=Max("turn__ts"),
        )
        .order_by("-last_ts", "turn__session__sid")[:SESSION_LIMIT]
    ):
        path = item["turn__session__project__path"] or item["turn__session__recorded_project"] or ""
        out.append(
            SessionFires(
                sid=item["turn__session__sid"],
                project=item["turn__session__project__name"] or path,
                project_path=path,
                fires=item["fires"],
                redisclosures=item["re"],
                withheld=item["withheld"],
                first_epoch=item["first_injected"] or item["first_any"],
                last_epoch=item["last_injected"] or item["last_any"],
                first_ts=item["first_ts"],
                last_ts=item["last_ts"],
            )
        )
    return out


def near_miss(event: WaysEvent, sid: str) -> NearMiss:
    """A `way_nearmiss` event of session `sid` as the pages show it."""
    return NearMiss(
        ts=event.ts,
        ts_raw=event.ts_raw or "",
        sid=sid,
        surface=event.trigger or "",
        schema_gen=event.schema_gen or "",
        margin=event.margin,
        prob_en=event.prob_en,
        prob_multi=event.prob_multi,
        tau_s=event.tau_s,
        score_en=event.score_en,
        score_multi=event.score_multi,
        thr_en=event.thr_en,
        thr_multi=event.thr_multi,
        way=event.way,
    )


def near_misses(way_id: str) -> tuple[list[NearMiss], list[NearMiss]]:
    """The latest near-misses, split by generation: (calibrated, raw-score or unscored)."""
    calibrated, raw = [], []
    for event in (
        WaysEvent.objects.filter(event="way_nearmiss", way=way_id)
        .select_related("session")
        .order_by("-ts_raw", "-pk")[:NEAR_MISS_LIMIT]
    ):
        miss = near_miss(event, event.session.sid if event.session else (event.session_key or ""))
        (calibrated if miss.calibrated else raw).append(miss)
    return calibrated, raw


def score_points(rows, near: list[NearMiss]) -> tuple[list[ScorePoint], int]:
    """Semantic fire scores (calibrated `g(s)`) and calibrated near-misses, oldest first.

    Raw-score near-misses are never points here: their scale is not the calibrated one.
    """
    scored = rows.filter(INJECTED, fire_score__isnull=False, event__ts__isnull=False)
    points = [
        ScorePoint(
            ts=item["event__ts"],
            value=item["fire_score"],
            kind="redisclosure" if item["redisclosed"] else "fire",
            sid=item["turn__session__sid"],
            epoch=item["turn__epoch"],
            channel=item["trigger_channel"],
        )
        for item in scored.order_by("-event__ts", "-pk").values(
            "event__ts",
            "fire_score",
            "redisclosed",
            "turn__session__sid",
            "turn__epoch",
            "trigger_channel",
        )[:SERIES_LIMIT]
    ]
    total = scored.count() if len(points) == SERIES_LIMIT else len(points)
    points += [
        ScorePoint(ts=miss.ts, value=miss.probability, kind="near-miss", sid=miss.sid, channel=miss.surface)
        for miss in near
        if miss.ts is not None and miss.probability is not None
    ]
    points.sort(key=lambda point: point.ts)
    return points, total


def threshold(near: list[NearMiss]) -> tuple[float, str]:
    """τ for the chart: the τ_s the near-misses recorded, else the 0.5 default."""
    seen = Counter(miss.tau_s for miss in near if miss.tau_s is not None)
    if not seen:
        return TAU_S, f"τ {TAU_S} is the default semantic_fire_probability; no near-miss recorded another"
    tau, _ = seen.most_common(1)[0]
    if len(seen) > 1:
        others = ", ".join(f"{value:g}" for value in sorted(seen) if value != tau)
        return tau, f"τ {tau:g} as most near-misses recorded it; some recorded {others}"
    return tau, f"τ {tau:g} as the near-misses recorded it"


def redisclosure_distances(rows) -> list[Redisclosure]:
    """Each re-disclosure with the token distance from the previous injection of the way.

    "Previous" is the latest fire or re-disclosure of the same way in the same session and
    compaction window. One query over the sessions that have a re-disclosure; latest first.
    """
    sessions = rows.filter(REDISCLOSED).values("turn__session")
    out: list[Redisclosure] = []
    last: dict[tuple[int, int], tuple[int, int]] = {}
    for item in (
        rows.filter(INJECTED, turn__session__in=sessions)
        .order_by(
            "turn__session",
            "turn__epoch",
            "position",
        )
        .values(
            "turn__session",
            "turn__session__sid",
            "turn__window",
            "turn__epoch",
            "redisclosed",
            "event__token_position",
            "event__ts",
        )
    ):
        key = (item["turn__session"], item["turn__window"])
        position = item["event__token_position"] or 0
        if item["redisclosed"]:
            previous = last.get(key)
            out.append(
                Redisclosure(
                    sid=item["turn__session__sid"],
                    window=item["turn__window"],
                    epoch=item["turn__epoch"],
                    ts=item["event__ts"],
                    token_position=position,
                    previous_epoch=previous[0] if previous else None,
                    previous_token_position=previous[1] if previous else None,
                )
            )
        last[key] = (item["turn__epoch"], position)
    out.reverse()
    return out[:REDISCLOSURE_LIMIT]
