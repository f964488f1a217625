"""Why a way fired (or did not), per channel, in words a person tuning ways can act on.

introspection.md §5: show what was recorded at fire time and label everything else — criteria
are today's, a semantic fire has no matched term, a span placed in a heuristic turn is exact
even though the turn's placement is not.
"""

from __future__ import annotations

from dataclasses import dataclass

TAU_S = 0.5  # semantic_fire_probability default (ADR-156)


@dataclass(frozen=True)
class Evidence:
    label: str
    text: str
    mono: bool = False


def why_fired(
    *,
    channel: str,
    matched_span: str | None,
    fire_score: float | None,
    surface: str | None,
    criteria: dict[str, str],
    token_position: int,
    window_k: int,
    keyed: bool,
) -> list[Evidence]:
    """The evidence lines for one turn row, most specific first."""
    kind = channel.split(":", 1)[0]
    out: list[Evidence] = []
    if kind == "semantic":
        if fire_score is not None:
            side = "above" if fire_score >= TAU_S else "below"
            out.append(
                Evidence(
                    "Score",
                    f"calibrated probability {fire_score:.3f}, {side} τ {TAU_S} (the default firing line)",
                )
            )
        out.append(Evidence("Match", "semantic fire: matched by embedding; no recoverable term"))
        if surface:
            out.append(Evidence("Surface", surface, mono=True))
        if criteria.get("vocabulary"):
            out.append(Evidence("Vocabulary", criteria["vocabulary"], mono=True))
    elif channel in ("keyword", "bash", "file") or (matched_span and kind not in ("keyword:gated",)):
        where = {"keyword": "the prompt", "bash": "a shell command", "file": "a touched path"}.get(
            channel, "the input"
        )
        if matched_span:
            placement = "" if keyed else " (exact; only the turn's place in the conversation is by time)"
            out.append(Evidence("Matched", f"“{matched_span}” in {where}{placement}"))
        else:
            out.append(Evidence("Matched", "no span logged (spans are recorded on first fires only)"))
        regex = criteria.get({"keyword": "pattern", "bash": "commands", "file": "files"}.get(channel, ""), "")
        if regex:
            out.append(Evidence("Regex", regex, mono=True))
    elif channel == "state":
        trigger = criteria.get("trigger", "")
        out.append(Evidence("Trigger", trigger or "a state trigger (not in today's front matter)"))
        if token_position:
            share = round(100 * token_position / (window_k * 1000)) if window_k else 0
            out.append(
                Evidence("Context", f"{token_position:,} tokens of {window_k}K ({share}%) when it fired")
            )
    elif channel == "check-pull":
        out.append(Evidence("Why", "pulled in by one of its checks, which fired before the way itself had"))
    elif channel == "postcheck":
        out.append(Evidence("Why", "fired by the way's postcheck.sh"))
    elif channel == "task":
        out.append(Evidence("Why", "matched a subagent's task prompt (Task lane)"))
    elif kind == "attend":
        out.append(Evidence("Why", f"attend trigger on the signal “{channel.partition(':')[2]}”"))
    elif channel == "prompt":
        out.append(
            Evidence("Why", "dispatched with no recorded channel (subagent dispatch or a pre-1.0 fire)")
        )
    elif channel == "unknown":
        out.append(Evidence("Why", "shown by hand (`ways show`) without a trigger"))
    return out
