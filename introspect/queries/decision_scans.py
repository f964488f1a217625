"""A session's decision log for its page: each turn's scans with what they saw, each pull with its class,
each turn tied to its transcript prompt, and where the log and the events disagree.

Three queries at most whatever the session's size: its records (each read from its line by the rules'
reader, rules/decision_records.py), the trunk's prompts and UserPromptSubmit injections (only with a
transcript), and its fire turns (only with any). Turns and pull classes are the rules'
(rules/decision_turns.py) over this session's own records: the same as over the whole log unless a pull
names another session's scan (then `unknown` here) or the one-day idle close of a turn depends on other
sessions' records advancing upstream's clock.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, field, replace
from datetime import timedelta

import orjson
from django.db.models import Q

from introspect.models import DecisionRecord, Session, TranscriptEntry, Turn
from introspect.rules import decision_confirm as confirm
from introspect.rules import join as prompt_join
from introspect.rules.decision_records import Pull, Scan, parse_line
from introspect.rules.decision_turns import MAIN, Joined, group
from introspect.rules.decision_turns import Turn as DecisionTurn
from introspect.rules.timestamps import utc_second

# The newest scans listed in the section atop the page: a session that ran for months holds thousands.
MOST_SCANS = 200
STREAM_ORDER = ("order_rank", "order_generation", "order_offset", "order_index")
LATE_INTERACTION = (
    "late-interaction"  # its `p` is a share of the candidates, any other channel's a probability
)
SHOWN = ("fired", "redisclosed")
HIT_CHANNEL = "semantic"  # a candidate matched on a semantic channel scored at or above τ_s
DEFAULT_TAU = 0.5
TONES = {
    "fired": "shown",
    "redisclosed": "shown",
    "held_refire": "held",
    "held_context_cap": "held",
    "judge_block": "blocked",
    "ancestor_block": "blocked",
    "keyword_gated": "gated",
    "near_miss": "near",
}
JOINS = {
    "delivered": "the context had already been given this way",
    "recall_miss": "the scan it names had not given this way: a recall miss",
    "no_scan_id": "the agent had no last scan to name (a prompt without a scan, or state wiped by a compaction)",
    "unknown": "it names a scan that is not in the decision log",
}
PROMPT_SLACK = timedelta(seconds=1)  # a prompt line is written before its hook runs; seconds are truncated


@dataclass(frozen=True)
class CandidateRow:
    rank: int
    way: str
    cosine: float | None
    share: float | None
    margin: float | None
    matched: bool = False  # the scan matched it on a semantic channel: at or above τ_s


@dataclass(frozen=True)
class OutcomeRow:
    way: str
    result: str
    channel: str | None
    p: float | None
    p_label: str  # "share" or "probability", as the channel means it
    p_yes: float | None
    threshold: float | None
    mode: str | None
    verdict: str | None
    shortfall: float | None
    tau_s: float | None
    prob_en: float | None
    ancestor: str | None
    rank: int | None = None
    prob_multi: float | None = None
    matched_span: str | None = None  # keyword_gated: what the pattern matched
    floor: float | None = None  # keyword_gated: the floor τ_k its probability fell below

    @property
    def tone(self) -> str:
        return TONES.get(self.result, "other")


@dataclass(frozen=True)
class ScanRow:
    ts: str
    scan_id: str
    agent: str
    surface: str
    turn_start: bool
    judge_status: str | None
    judge_engine: str | None
    judge_model: str | None
    judge_ms: int | None
    judge_reason: str | None
    judge_capped: list[str]
    candidates: list[CandidateRow] = field(default_factory=list)
    outcomes: list[OutcomeRow] = field(default_factory=list)
    tau_s: float | None = None  # as a near-miss of the scan recorded it

    @property
    def tau_label(self) -> str:
        return (
            f"τ_s {self.tau_s}" if self.tau_s is not None else f"τ_s ({DEFAULT_TAU} by default; not recorded)"
        )

    @property
    def tau_after(self) -> int:
        """How many candidates sit above the τ_s line: up to the last one matched on a semantic channel."""
        return max((c.rank for c in self.candidates if c.matched), default=0)


@dataclass(frozen=True)
class PullRow:
    ts: str
    agent: str
    way: str
    window: str
    out_of_band: bool
    scan_id: str | None
    join: str  # delivered, recall_miss, no_scan_id or unknown
    stamped: bool = True
    reason: str | None = None
    turn: int | None = None

    @property
    def meaning(self) -> str:
        return JOINS.get(self.join, "")


@dataclass
class TurnView:
    """A decision turn: its opening scan and later ones, its pulls, and the prompt it was tied to."""

    ordinal: int
    agent: str
    scans: list[ScanRow]
    pulls: list[PullRow] = field(default_factory=list)
    prompt: int | None = None  # the prompt's pk
    confidence: str = "heuristic"  # keyed | heuristic, as fire turns are joined
    reason: str = ""
    source: str = confirm.DECISION

    @property
    def start(self) -> ScanRow:
        return self.scans[0]


@dataclass
class SessionDecisions:
    scans: list[ScanRow]
    pulls: list[PullRow]
    scan_count: int
    turn_starts: int
    turns: list[TurnView] = field(default_factory=list)
    disagreements: list[confirm.Disagreement] = field(default_factory=list)
    sources: dict[int, str] = field(default_factory=dict)  # prompt pk → which source saw its turn
    both: bool = False  # the session has events too: each turn says which source saw it

    @property
    def hidden_scans(self) -> int:
        return self.scan_count - len(self.scans)

    @property
    def by_prompt(self) -> dict[int, TurnView]:
        return {turn.prompt: turn for turn in self.turns if turn.prompt is not None}

    @property
    def unplaced(self) -> list[TurnView]:
        return [turn for turn in self.turns if turn.prompt is None]


def extras(raw: str) -> list[dict]:
    """The outcome keys upstream's reader does not type (a keyword-gated span and floor, the newest
    ancestor-block spelling), read from the line as written; only values of the right type."""
    try:
        value = orjson.loads(raw)
        outcomes = value.get("outcomes") if isinstance(value, dict) else None
    except orjson.JSONDecodeError:
        return []
    return [o if isinstance(o, dict) else {} for o in outcomes] if isinstance(outcomes, list) else []


def number(value: object) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def outcome_row(o, extra: dict) -> OutcomeRow:
    label = "share" if o.channel and LATE_INTERACTION in o.channel else "probability"
    span = extra.get("matched_span")
    p_yes, threshold = o.p_yes, o.threshold
    if o.result == "ancestor_block" and p_yes is None:  # the newest writer's spelling (§6.5)
        p_yes, threshold = number(extra.get("ancestor_p_yes")), number(extra.get("ancestor_threshold"))
    return OutcomeRow(
        o.way,
        o.result,
        o.channel,
        o.p,
        label,
        p_yes,
        threshold,
        o.mode,
        o.verdict,
        o.shortfall,
        o.tau_s,
        o.prob_en,
        o.ancestor,
        rank=o.rank,
        prob_multi=o.prob_multi,
        matched_span=span if isinstance(span, str) else None,
        floor=number(extra.get("floor")),
    )


def scan_row(scan: Scan, raw: str) -> ScanRow:
    more = extras(raw)
    outcomes = [outcome_row(o, more[n] if n < len(more) else {}) for n, o in enumerate(scan.outcomes)]
    matched = {o.way for o in outcomes if o.channel and o.channel.startswith(HIT_CHANNEL)}
    judge = scan.judge
    return ScanRow(
        scan.ts,
        scan.scan_id,
        scan.agent,
        scan.surface,
        scan.turn_start,
        judge.status if judge else None,
        judge.engine if judge else None,
        judge.model if judge else None,
        judge.judge_ms if judge else None,
        judge.reason if judge else None,
        list(judge.capped) if judge else [],
        [
            CandidateRow(n + 1, c.way, c.cosine, c.share, c.margin, c.way in matched)
            for n, c in enumerate(scan.candidates)
        ],
        outcomes,
        tau_s=next((o.tau_s for o in outcomes if o.tau_s is not None), None),
    )


def pull_row(joined: Joined) -> PullRow:
    p = joined.pull
    return PullRow(
        p.ts,
        p.agent,
        p.way,
        p.window,
        p.out_of_band,
        p.scan_id,
        joined.join.value,
        p.stamped,
        p.reason,
        joined.turn,
    )


def session_decisions(session: Session) -> SessionDecisions | None:
    """The session's decision turns tied to its prompts, its scans (the newest MOST_SCANS, in log
    order) and pulls, and where the log and the events disagree; None without a decision log."""
    rows = list(DecisionRecord.objects.filter(session=session).order_by(*STREAM_ORDER).only("pk", "raw"))
    if not rows:
        return None
    raws: dict[int, str] = {}
    records = []
    for row in rows:
        record = parse_line(row.raw)
        if isinstance(record, Scan | Pull):
            raws[id(record)] = row.raw
            records.append(record)
    turns: list[DecisionTurn] = []
    pulls: list[Joined] = []

    def take(item: object) -> None:  # an orphan scan is listed with every scan atop the page
        if isinstance(item, DecisionTurn) and item.start.session == session.sid:
            turns.append(item)
        elif isinstance(item, Joined) and item.pull.session == session.sid:
            pulls.append(item)

    group(records, take)
    turns.sort(key=lambda turn: turn.ordinal)
    scans = [record for record in records if isinstance(record, Scan)]
    views = [
        TurnView(turn.ordinal, turn.start.agent, [scan_row(s, raws[id(s)]) for s in turn.all_scans()])
        for turn in turns
    ]
    pull_rows = [pull_row(joined) for joined in pulls]
    place_pulls(views, pull_rows)
    found = SessionDecisions(
        scans=[scan_row(s, raws[id(s)]) for s in scans[-MOST_SCANS:]],
        pulls=pull_rows,
        scan_count=len(scans),
        turn_starts=sum(1 for s in scans if s.turn_start),
        turns=views,
    )
    confirm_turns(session, found)
    return found


def place_pulls(views: list[TurnView], pulls: list[PullRow]) -> None:
    """Each pull under the turn holding the scan it named; one that names none (no scan id, unknown)
    under the main agent's turn it was made in, by time."""
    by_ordinal = {view.ordinal: view for view in views}
    mains = [view for view in views if view.agent == MAIN]
    starts = [view.start.ts for view in mains]
    for pull in pulls:
        view = by_ordinal.get(pull.turn) if pull.turn is not None else None
        if view is None and pull.turn is None:
            at = bisect_right(starts, pull.ts) - 1
            view = mains[at] if at >= 0 else None
        if view is not None:
            view.pulls.append(pull)


def confirm_turns(session: Session, found: SessionDecisions) -> None:
    """Tie each main-agent decision turn to its transcript prompt as fire turns are (keyed by the
    UserPromptSubmit injection within 8 s, else heuristic: the last prompt before its scan), and
    compare the turns with the events' fire turns."""
    mains = [view for view in found.turns if view.agent == MAIN]
    if session.transcript_id is not None and mains:
        entries = list(
            TranscriptEntry.objects.filter(source_id=session.transcript_id, is_copy=False)
            .filter(Q(is_prompt=True, inert=False) | Q(type="attachment", hook_event="UserPromptSubmit"))
            .order_by("offset", "index")
            .only(
                "pk",
                "uuid",
                "parent_uuid",
                "type",
                "hook_event",
                "timestamp_raw",
                "ts",
                "is_prompt",
                "version",
            )
        )
        tie_to_prompts(mains, entries)
    else:
        for view in mains:
            view.reason = prompt_join.NO_TRANSCRIPT
    fires = []
    if session.turn_count:
        found.both = True
        for epoch, ts, keyed_to, nearest, confidence in session.turns.order_by("ts", "epoch").values_list(
            "epoch", "ts", "prompt_entry_id", "nearest_prompt_id", "join_confidence"
        ):
            fires.append(confirm.FireMark(epoch, ts, keyed_to or nearest, confidence == Turn.Join.KEYED))
    marks = [
        confirm.DecisionMark(
            view.ordinal,
            second,
            view.prompt,
            tuple(o.way for o in view.start.outcomes if o.result in SHOWN),
        )
        for view in mains
        if (second := utc_second(view.start.ts)) is not None
    ]
    if found.both:
        found.sources = confirm.turn_sources(marks, fires)
        found.disagreements = confirm.disagreements(marks, fires)
        for view in mains:
            view.source = (
                found.sources.get(view.prompt, confirm.DECISION) if view.prompt else confirm.DECISION
            )


def tie_to_prompts(views: list[TurnView], entries: list[TranscriptEntry]) -> None:
    prompts = sorted(
        (entry for entry in entries if entry.is_prompt and entry.ts is not None), key=lambda e: e.ts
    )
    by_uuid = {entry.uuid: entry.pk for entry in prompts if entry.uuid}
    injections = prompt_join.prompt_turns(entries)
    index = prompt_join.PromptIndex(injections)
    unmatched = prompt_join.no_match_reason(entries, injections)
    seconds = [entry.ts for entry in prompts]
    for view in views:
        second = utc_second(view.start.ts)
        if second is None:
            view.reason = prompt_join.OUT_OF_RANGE
            continue
        joined = prompt_join.join_turn(second, index, no_match_reason=unmatched)
        if joined.confidence == "keyed" and joined.user_uuid in by_uuid:
            view.prompt, view.confidence, view.reason = by_uuid[joined.user_uuid], "keyed", joined.reason
            continue
        at = bisect_right(seconds, second + PROMPT_SLACK) - 1
        view.prompt = prompts[at].pk if at >= 0 else None
        view.reason = joined.reason if at >= 0 else f"{joined.reason}; no prompt before it"


def place_on(items: list, decisions: SessionDecisions | None) -> list:
    """The items of a conversation page (queries.conversation.Item), each prompt's given the decision
    turn tied to it and which source saw its turn (new items; the others as they are)."""
    if decisions is None:
        return items
    by_prompt = decisions.by_prompt
    return [
        replace(
            item,
            decision=by_prompt.get(item.entry.pk),
            turn_source=decisions.sources.get(item.entry.pk, "") if decisions.both else "",
        )
        if getattr(item, "entry", None) is not None and item.entry.is_prompt
        else item
        for item in items
    ]
