"""An event spec (sample/specs.py) rendered into the row an agent-ways hook logs (formats-agent-ways.md
§6-§7): what each event type carries, what each writer generation added, and the matched span the way's
criteria find in the prompt, command or path."""

from __future__ import annotations

import re
from datetime import datetime

from sample.specs import AUTO, TP, A, P, S
from sample.timeline import domain, sec
from sample.transcript import Thread
from sample.ways import CRITERIA


def matched_span(sp: dict, ctx: dict, gen: str | None) -> str | None:
    """The matched span of a fire: given, none, or what the way's criteria find in the prompt, command or path."""
    if sp.get("span") is None or gen == "pre1":
        return None
    if sp["span"] != AUTO:
        return sp["span"]
    key = {"keyword": ("pattern", "prompt"), "bash": ("commands", "cmd"), "file": ("files", "path")}.get(
        sp["trigger"]
    )
    if not key:
        return None
    rx, field = CRITERIA[sp["way"]][key[0]], ctx.get(key[1], "")
    m = re.search(rx, field, re.I)
    assert m and m.group(0), (sp["way"], rx, field)
    return m.group(0)


def surface(ctx: dict) -> str:
    """The text a semantic fire scored, on one line, cut at 200 characters."""
    text = " ".join((ctx.get("cmd") or ctx.get("prompt") or "").split())
    return text if len(text) <= 200 else text[:200] + "…"


def render(
    sp: dict, dt: datetime, th: Thread, ctx: dict, *, project: str, session: str, gen: str | None
) -> dict:
    """The row a hook logs for `sp` at `dt` on thread `th`; `gen` is the writer's generation ("pre1", "old", "new")."""
    ev = sp["ev"]
    d: dict = {"ts": sec(dt), "event": ev}
    agent_id = th.agent or "main"
    scope = sp.get("scope") or ("subagent" if th.agent else "agent")
    if ev in ("way_fired", "way_redisclosed"):
        w, trig = sp["way"], sp["trigger"]
        d.update(way=w, domain=domain(w), trigger=trig, scope=scope, project=project, session=session)
        if sp.get("minimal"):  # state repeats, subagent dispatch, teammate rows
            for k in ("agent_id", "team"):
                if sp.get(k):
                    d[k] = agent_id if sp[k] is True else sp[k]
            return d
        if gen != "pre1":
            d["token_position"] = str(th.position)
        if gen == "new":
            d["model"] = th.model
            d["agent_id"] = agent_id
        if trig.startswith("semantic:"):
            sc = sp["score"]
            d["fire_score"] = sc if isinstance(sc, str) else f"{sc:.4f}"
            d["surface"] = surface(ctx)
        if ev == "way_fired":
            span = matched_span(sp, ctx, gen)
            if span:
                d["matched_span"] = span
        for k in ("parent", "tree_depth", "epoch_distance", "team"):
            if k in sp:
                d[k] = sp[k]
        if sp.get("numeric"):  # a writer that emitted JSON numbers
            d["token_position"] = int(d["token_position"])
            if "fire_score" in d:
                d["fire_score"] = float(d["fire_score"])
        return d
    if ev == "way_suppressed":
        w = sp["way"]
        d.update(
            kind=sp["kind"],
            way=w,
            domain=domain(w),
            trigger=sp["trigger"],
            reason=sp["reason"],
            scope=scope,
            project=project,
            session=session,
            agent_id=agent_id,
        )
        return d
    if ev in ("way_nearmiss", "way_keyword_gated"):
        w, pr = sp["way"], sp["probs"]
        d.update(way=w, corpus_id=w, domain=domain(w))
        if ev == "way_keyword_gated":
            d["matched_span"] = matched_span(dict(way=w, trigger="keyword", span=AUTO), ctx, gen)
        d.update(pr)
        if ev == "way_nearmiss":
            if "tau_s" in pr:
                best = max(float(v) for k, v in pr.items() if k.startswith("prob_") and v)
                d["margin"] = f"{float(pr['tau_s']) - best:.4f}"
            else:
                d["margin"] = f"{float(pr['thr_en']) - float(pr['score_en']):.4f}"
        d.update(trigger="prompt", scope="agent", project=project, session=session)
        if ev == "way_nearmiss":
            d["query_tokens"] = str(round(len(ctx.get("prompt", "").split()) * 1.3))
        elif not sp["old"]:
            d["token_position"] = str(th.position)
        return d
    subst = {P: project, S: session, A: agent_id, TP: str(th.position)}
    for k, v in sp["fields"].items():
        d[k] = subst.get(v, v) if isinstance(v, str) else v
    return d
