"""Event specs (formats-agent-ways.md §6): what a hook logs at a moment of a session, before the session
fills in its project, session id, agent and token position (sample/sessions.py `render`)."""

from __future__ import annotations

import math

from sample.timeline import JUDGE_MODEL, domain

AUTO = "auto"  # matched_span computed from the way's criteria
P, S, A, TP = "$project", "$session", "$agent", "$position"  # placeholders in EV() fields


def F(way_id, trigger, score=None, *, span=AUTO, dt=0, inject=True, **extra):
    return dict(
        ev="way_fired", way=way_id, trigger=trigger, score=score, span=span, dt=dt, inject=inject, **extra
    )


def RD(way_id, trigger, score=None, *, dt=0, **extra):
    return dict(
        ev="way_redisclosed", way=way_id, trigger=trigger, score=score, span=None, dt=dt, inject=True, **extra
    )


def SUP(way_id, trigger, reason, kind="way", dt=0):
    return dict(ev="way_suppressed", way=way_id, trigger=trigger, reason=reason, kind=kind, dt=dt)


def GATED(way_id, *, dt=0, old=None, **probs):
    return dict(ev="way_keyword_gated", way=way_id, dt=dt, old=old, probs=probs)


def NEAR(way_id, *, dt=0, old=None, **probs):
    return dict(ev="way_nearmiss", way=way_id, dt=dt, old=old, probs=probs)


def MISS(way_id, prob_en, *, dt=0):
    """A near-miss of the English lane alone (a new-generation row: no multilingual score, τ_s 0.5)."""
    return NEAR(way_id, dt=dt, prob_en=prob_en, prob_multi="", tau_s="0.5000")


def EV(event, *, dt=0, **fields):
    return dict(ev=event, fields=fields, dt=dt)


def CHECK(check, trigger, epoch, way_epoch, distance, fire_count, match, anchored, dt=0):
    eff = match * (math.log(distance + 1) + 1) / (fire_count + 1)
    return EV(
        "check_fired",
        dt=dt,
        check=check,
        domain=domain(check),
        trigger=trigger,
        epoch=str(epoch),
        way_epoch=str(way_epoch),
        distance=str(distance),
        fire_count=str(fire_count),
        match_score=f"{match:.2f}",
        effective_score=f"{eff:.2f}",
        anchored=anchored,
        scope="agent",
        project=P,
        session=S,
    )


def JUDGED(way_id, p_yes, verdict, *, mode="enforce", judge_ms="412", gate_ms="430", candidates="3", dt=0):
    return EV(
        "way_judged",
        dt=dt,
        way=way_id,
        p_yes=p_yes,
        threshold="0.30",
        verdict=verdict,
        mode=mode,
        engine="anthropic",
        model=JUDGE_MODEL,
        judge_ms=judge_ms,
        gate_ms=gate_ms,
        candidates=candidates,
        hook="UserPromptSubmit",
        scope="agent",
        project=P,
        session=S,
        agent_id=A,
    )


def JUDGE_CALL(
    *,
    cost=None,
    outcome="judged",
    reason=None,
    candidates="3",
    tokens=(612, 38, 0, 0),
    dt=0,
    source=None,
    numeric=False,
):
    f = {"outcome": outcome}
    if reason:
        f["reason"] = reason
    f.update(
        engine="anthropic",
        provider="anthropic",
        model=JUDGE_MODEL,
        candidates=candidates,
        cost_source=source or ("provider" if cost else "unknown"),
    )
    if tokens:
        conv = int if numeric else str
        f.update(
            input_tokens=conv(tokens[0]),
            output_tokens=conv(tokens[1]),
            cache_read_tokens=conv(tokens[2]),
            cache_write_tokens=conv(tokens[3]),
        )
    if cost:
        f["cost_usd"] = cost
    f.update(hook="UserPromptSubmit", scope="agent", project=P, session=S)
    return EV("judge_call", dt=dt, **f)
