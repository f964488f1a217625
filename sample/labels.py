"""The sample's relevance labels (decisions-and-effectiveness.md §8.6): two people, ann and bob, labelled
a handful of the sample's prompt-lane fires with the labelling page, and exported them as waysweb's JSONL
(`manage.py labels export`). The file sits in the sample HOME's waysweb data directory, and a pass over
the bundled sample (`serve --demo`, waysweb/passes.py) imports it, so a new user sees precision, its
interval and the two people's κ on the effectiveness page before labelling anything.

Twelve fires: the first six, in time, of `softwaredev/delivery/commits` (keyword) and of
`softwaredev/architecture/design` (semantic) in sessions with a transcript. ann labelled all twelve,
bob the first four of each way, blind. By hand: ann and bob agree on 6 of their 8 common fires, each
says relevant to 4 and irrelevant to 4, so chance is 1/2 and κ = (3/4 − 1/2)/(1/2) = 0.5; the two they
disagree on are disputed, ann's one unsure is left out, and 3 of the 9 fires decided are relevant
(33 %, Wilson 12–65 %). Derived from the built events without drawing from the random generator, so
adding it changes no other file.
"""

from __future__ import annotations

import hashlib
from datetime import datetime, timedelta

from sample import formats
from sample.state import Home

DATA = ".local/share/waysweb"
WAYS = ("softwaredev/delivery/commits", "softwaredev/architecture/design")
CHANNELS = ("keyword", "semantic:")
PER_WAY = 6
YES, NO, UNSURE = "relevant", "irrelevant", "unsure"
ANN = {WAYS[0]: (YES, YES, NO, YES, NO, UNSURE), WAYS[1]: (NO, NO, YES, NO, NO, NO)}
BOB = {WAYS[0]: (YES, NO, NO, YES), WAYS[1]: (NO, NO, YES, YES)}
NOTES = {("ann", WAYS[0], 2): "the prompt asks for a test run; nothing is committed",
         ("bob", WAYS[1], 3): "the reply weighs two designs; the way fits"}  # fmt: skip
LABELLED_FROM = datetime(2026, 11, 21, 9, 0, 0)  # when ann started; bob a day later
FRAME = "seed=1&size=12"


def stamp(at: datetime) -> str:
    return at.strftime("%Y-%m-%dT%H:%M:%SZ")


def fires(h: Home) -> dict[str, list[dict]]:
    """Each way's first PER_WAY prompt-lane fires in sessions with a transcript, in time order."""
    with_transcript = {s.sid: s for s in h.sessions if s.write_transcript}
    found: dict[str, list[dict]] = {way: [] for way in WAYS}
    for e in sorted(h.events, key=lambda e: (e["dt"], e["seq"])):
        d = e["d"]
        way, trigger = d.get("way"), str(d.get("trigger", ""))
        if d.get("event") != "way_fired" or way not in found or d.get("session") not in with_transcript:
            continue
        prompt_lane = trigger == CHANNELS[0] or trigger.startswith(CHANNELS[1])
        if prompt_lane and len(found[way]) < PER_WAY:
            found[way].append(e)
    return found


def judged(h: Home, fire: dict) -> float | None:
    """The judge's P(yes) for the fire's way in its turn (a way_judged line within 3 s), if judged."""
    d = fire["d"]
    for e in h.events:
        j = e["d"]
        same = j.get("event") == "way_judged" and (j.get("session"), j.get("way")) == (
            d.get("session"),
            d["way"],
        )
        if same and abs((e["dt"] - fire["dt"]).total_seconds()) <= 3 and j.get("p_yes") is not None:
            return float(j["p_yes"])
    return None


def number(value: object) -> float | None:
    try:
        return float(value) if value is not None else None
    except (TypeError, ValueError):
        return None


def sample_labels(h: Home) -> None:
    """Write the labels as `labels export` would: one line per (fire, labeller), oldest label first."""
    projects = {s.sid: s.project for s in h.sessions}
    lines = []
    for labeller, verdicts, start in (
        ("ann", ANN, LABELLED_FROM),
        ("bob", BOB, LABELLED_FROM + timedelta(days=1)),
    ):
        at = start
        for way, events in fires(h).items():
            for n, (fire, verdict) in enumerate(zip(events, verdicts[way], strict=False), start=1):
                d = fire["d"]
                row = {
                    "fire": hashlib.sha256(fire["line"].encode()).hexdigest(),
                    "session": d["session"],
                    "turn": None,  # a turn number is the database's (derived); the fire is the key
                    "way": way,
                    "project": projects[d["session"]],
                    "channel": d["trigger"],
                    "ts": d["ts"],
                    "fire_score": number(d.get("fire_score")),
                    "p_yes": judged(h, fire),
                    "label": verdict,
                    "note": NOTES.get((labeller, way, n), ""),
                    "labeller": labeller,
                    "labelled_at": stamp(at),
                    "frame": FRAME,
                }
                lines.append(formats.dumps(row))
                at += timedelta(seconds=40)
    h.put_text(f"{DATA}/labels.jsonl", formats.jsonl(lines))
