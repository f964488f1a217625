"""A session's decision log for its page: each scan with what it saw, and each pull with its class.

Three queries whatever the session's size (records, candidates, outcomes). A pull's class is the
rules' (rules/decision_turns.py) over this session's own records: the same as over the whole log
unless a pull names another session's scan (then `unknown` here) or the one-day idle close of a turn
depends on other sessions' records advancing upstream's clock.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from introspect.models import DecisionCandidate, DecisionOutcome, DecisionRecord, Session
from introspect.rules.decision_session import session_document

# The newest scans shown: a session that ran for months holds thousands; the page says how many more.
MOST_SCANS = 200
STREAM_ORDER = ("order_rank", "order_generation", "order_offset", "order_index")
LATE_INTERACTION = (
    "late-interaction"  # its `p` is a share of the candidates, any other channel's a probability
)


@dataclass(frozen=True)
class CandidateRow:
    rank: int
    way: str
    cosine: float | None
    share: float | None
    margin: float | None


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


@dataclass(frozen=True)
class PullRow:
    ts: str
    agent: str
    way: str
    window: str
    out_of_band: bool
    scan_id: str | None
    join: str  # delivered, recall_miss, no_scan_id or unknown


@dataclass(frozen=True)
class SessionDecisions:
    scans: list[ScanRow]
    pulls: list[PullRow]
    scan_count: int
    turn_starts: int

    @property
    def hidden_scans(self) -> int:
        return self.scan_count - len(self.scans)


def session_decisions(session: Session) -> SessionDecisions | None:
    """The session's scans (the newest MOST_SCANS, in log order) and pulls; None without a decision log."""
    records = list(
        DecisionRecord.objects.filter(session=session)
        .order_by(*STREAM_ORDER)
        .only(
            "pk",
            "kind",
            "raw",
            "ts_raw",
            "scan_id",
            "agent",
            "surface",
            "turn_start",
            "way",
            "window",
            "out_of_band",
            "judge_status",
            "judge_engine",
            "judge_model",
            "judge_ms",
            "judge_reason",
            "judge_capped",
        )
    )
    if not records:
        return None
    scans = [record for record in records if record.kind == DecisionRecord.Kind.SCAN]
    shown = scans[-MOST_SCANS:]
    ids = [record.pk for record in shown]
    candidates: dict[int, list[CandidateRow]] = {}
    for c in DecisionCandidate.objects.filter(record_id__in=ids).order_by("record_id", "position"):
        candidates.setdefault(c.record_id, []).append(
            CandidateRow(c.position + 1, c.way, c.cosine, c.share, c.margin)
        )
    outcomes: dict[int, list[OutcomeRow]] = {}
    for o in DecisionOutcome.objects.filter(record_id__in=ids).order_by("record_id", "position"):
        label = "share" if o.channel and LATE_INTERACTION in o.channel else "probability"
        outcomes.setdefault(o.record_id, []).append(
            OutcomeRow(
                o.way,
                o.result,
                o.channel,
                o.p,
                label,
                o.p_yes,
                o.threshold,
                o.mode,
                o.verdict,
                o.shortfall,
                o.tau_s,
                o.prob_en,
                o.ancestor,
            )
        )
    document = session_document([record.raw for record in records], session.sid)
    pulls = [
        PullRow(p["ts"], p["agent"], record.way, record.window, record.out_of_band, p["scan_id"], p["join"])
        for p, record in zip(
            document["pulls"], [r for r in records if r.kind == DecisionRecord.Kind.PULL], strict=False
        )
    ]
    return SessionDecisions(
        scans=[
            ScanRow(
                r.ts_raw,
                r.scan_id or "",
                r.agent,
                r.surface,
                r.turn_start,
                r.judge_status,
                r.judge_engine,
                r.judge_model,
                r.judge_ms,
                r.judge_reason,
                r.judge_capped,
                candidates.get(r.pk, []),
                outcomes.get(r.pk, []),
            )
            for r in shown
        ],
        pulls=pulls,
        scan_count=len(scans),
        turn_starts=sum(1 for r in scans if r.turn_start),
    )
