"""Session S10: scan_candidates and way_pulled (native JSON types), multilingual fires."""

from __future__ import annotations

from sample.sessions import Session
from sample.specs import EV, NEAR, TP, A, F, P, S
from sample.state import Home
from sample.timeline import SONNET, T


def play(h: Home) -> None:
    s = Session(
        h,
        "S10",
        "notes",
        T(7, 9, 10, 44),
        gen="new",
        model=SONNET,
        version="2.1.184",
        branch="",
        note="scan_candidates and way_pulled (native JSON types), multilingual fires",
    )
    s.start()
    cands = [
        {"way": "writing/notes", "cosine": 0.6123, "share": 0.4411, "margin": 0.0932},
        {"way": "softwaredev/docs/adr", "cosine": 0.5191, "share": 0.2102, "margin": 0.0412},
        {"way": "collaboration/teams", "cosine": 0.4779, "share": 0.1260, "margin": 0.0305},
        {"way": "softwaredev/architecture/design", "cosine": 0.4474, "share": 0.0921, "margin": 0.0218},
        {"way": "meta/context", "cosine": 0.4256, "share": 0.0764, "margin": None},
    ]
    s.prompt(
        "Leg eine neue Notiz zum Thema Zettelkasten-Verlinkung an und verknüpfe sie mit dem Wochenrückblick",
        fires=[
            EV(
                "scan_candidates",
                lane="multi",
                basis="single",
                session=S,
                project=P,
                sidecar=False,
                candidates=cands,
            ),
            EV(
                "scan_candidates",
                lane="en",
                basis="single",
                session=S,
                project=P,
                sidecar=True,
                candidates=[dict(c, cosine=round(c["cosine"] - 0.05, 4)) for c in cands[:2]],
            ),
            F("writing/notes", "semantic:embedding:multi", 0.7215),
            NEAR("softwaredev/docs/adr", prob_en="", prob_multi="0.4630", tau_s="0.5000"),
        ],
        steps=[
            (
                "edit",
                "zettel/verlinkung.md",
                "",
                "# Zettelkasten-Verlinkung\n\nSiehe [[2026/11/review-45]].",
                {},
            )
        ],
        answer="Notiz angelegt und verlinkt.",
    )
    s.prompt(
        "show me the notes way again",
        fires=[
            EV(
                "way_pulled",
                dt=1,
                way="writing/notes",
                domain="writing",
                window="refire",
                scope="agent",
                project=P,
                session=S,
                agent_id=A,
                token_position=TP,
                out_of_band=False,
                stamped=True,
            )
        ],
        answer="Here it is: one idea per note, link instead of nesting, weekly inbox processing.",
    )
    s.prompt(
        "and the ADR way, just to read it",
        fires=[
            EV(
                "way_pulled",
                dt=1,
                way="softwaredev/docs/adr",
                domain="softwaredev",
                window="first_fire",
                scope="agent",
                project=P,
                session=S,
                agent_id=A,
                out_of_band=True,
                stamped=True,
                epoch_distance=2,
            )
        ],
        answer="Shown.",
    )
    s.prompt("Danke!", answer="Gern.")
    s.finish()
