"""`manage.py introspect effectiveness --json`: the effectiveness page's numbers as one document, each
with the definition of what it counts and where it came from. The report is queries/effectiveness.py's
`Report` (a layer above, so the command hands it in)."""

from __future__ import annotations

from introspect.rules import outcome_signals as signals
from introspect.rules import relevance
from introspect.rules import way_arms as arms
from introspect.rules.arm_statistics import Difference, Interval

NOTE = (
    "Correlations, not effects. The matcher and the judge chose which turns showed a way, not chance, "
    "so a difference between the arms says what went with showing it, never what showing it caused."
)
SOURCES = {
    "arms": "shown: the turns where the way fired or was re-disclosed; matched, not shown: the turns "
    "where it was a near-miss, keyword-gated, judge-blocked or held (refire, context cap) and not shown",
    "exposure": "the decision log's scan outcomes for sessions that have one, else the event log's "
    "fire-turn rows and near-misses",
    "turns": "conversation turns (rules/outcome_signals.py), placed by the prompt a fire turn is keyed "
    "to, else by the clock (placed_by_time counts those); an outcome in no stored turn (before the first "
    "prompt, a session without its transcript) counts in the exposure only",
    "intervals": "95 %: Wilson per arm, Newcombe's hybrid score for a difference of rates, Welch's "
    "normal interval for a difference of means",
    "pulls": "the decision log's ways_read pulls of the way; out_of_band: those inside its refire window, "
    "evidence that its `refire:` is longer than the work needs (ADR-701 §8)",
    "estimated_tokens": f"the way's body today, in characters, times its fires, over {arms.CHARS_PER_TOKEN}",
    "precision": "people's labels of the frame's fires (the labelling page, ADR-195's method): relevant over "
    "relevant + irrelevant, one verdict per fire (unsure and disputed fires, where two people disagreed, left "
    "out), with Wilson's 95 % interval",
    "auc": "per channel family, the chance a fire labelled relevant scored above one labelled irrelevant "
    "(Mann–Whitney, ties half): the matcher's fire_score, and the judge's P(yes) where it judged the way",
    "kappa": "Cohen's κ of two people over the fires both labelled: their agreement beyond what their own "
    "shares of each verdict give by chance",
}


def definition(signal: str) -> str:
    return arms.TROUBLE_DEFINITION if signal == arms.TROUBLE else signals.DEFINITIONS[signal]


def interval(found: Interval) -> dict:
    return {"low": round(found.low, 4), "high": round(found.high, 4)}


def difference(found: Difference | None) -> dict | None:
    if found is None:
        return None
    return {"estimate": round(found.estimate, 4), "low": round(found.low, 4), "high": round(found.high, 4)}


def rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def rate_document(found: arms.RateArms) -> dict:
    return {
        "definition": definition(found.signal),
        "shown": {"hits": found.shown_hits, "n": found.shown_n, "rate": rounded(found.shown_rate)}
        | interval(found.shown_interval),
        "not_shown": {"hits": found.other_hits, "n": found.other_n, "rate": rounded(found.other_rate)}
        | interval(found.other_interval),
        "difference": difference(found.difference),
        "too_few_turns": found.too_few,
    }


def mean_document(found: arms.MeanArms) -> dict:
    return {
        "definition": signals.DEFINITIONS[found.signal],
        "shown": {"mean": rounded(found.shown_mean), "n": found.shown_n},
        "not_shown": {"mean": rounded(found.other_mean), "n": found.other_n},
        "difference": difference(found.difference),
        "too_few_turns": found.too_few,
    }


def way_document(way: arms.WayArms) -> dict:
    return {
        "way": way.way,
        "exposure": dict(sorted(way.exposure.items())),
        "fires": way.fires,
        "shown_turns": len(way.shown),
        "not_shown_turns": len(way.other),
        "placed_by_time": way.placed_by_time,
        "pulls": way.pulls,
        "out_of_band": way.out_of_band,
        "injected_chars": way.injected_chars,
        "estimated_tokens": way.estimated_tokens,
        "less_trouble_when_shown": way.helps,
        "rates": {found.signal: rate_document(found) for found in way.rates},
        "means": {found.signal: mean_document(found) for found in way.means},
    }


def precision_document(found: relevance.Precision) -> dict:
    return {
        "relevant": found.relevant,
        "irrelevant": found.irrelevant,
        "unsure": found.unsure,
        "disputed": found.disputed,
        "precision": rounded(found.estimate),
    } | (interval(found.interval) if found.decided else {"low": None, "high": None})


def channel_document(found: relevance.ChannelAuc) -> dict:
    return {
        "channel": found.channel,
        "relevant": found.relevant,
        "irrelevant": found.irrelevant,
        "fire_score_auc": rounded(found.score_auc),
        "scored": found.scored,
        "p_yes_auc": rounded(found.p_yes_auc),
        "judged": found.judged,
    }


def relevance_document(found: relevance.Relevance | None) -> dict | None:
    """The labels' numbers; `labels` 0 says "no labels yet"."""
    if found is None:
        return None
    return {
        "labels": found.labels,
        "labellers": found.labellers,
        "overall": precision_document(found.overall),
        "channels": [channel_document(channel) for channel in found.channels],
        "ways": {
            way.way: precision_document(way.precision)
            | {"channels": [channel_document(c) for c in way.channels]}
            for way in found.ways
        },
        "agreement": [
            {
                "first": pair.first,
                "second": pair.second,
                "items": pair.items,
                "agreed": pair.agreed,
                "kappa": rounded(pair.kappa),
            }
            for pair in found.agreements
        ],
    }


def report_document(report) -> dict:
    frame = report.frame
    return {
        "frame": {
            "project": frame.project,
            "days": frame.days,
            "since": frame.since.isoformat() if frame.since else None,
            "way": frame.way,
            "minimum_turns": frame.minimum,
        },
        "note": NOTE,
        "sources": SOURCES,
        "turns": report.turns,
        "ways": [way_document(way) for way in report.ways],
        "relevance": relevance_document(report.relevance),
    }
