"""Session S05: notes in German; its later lines sit in both the newest archive and the live log."""

from __future__ import annotations

from sample.sessions import Session
from sample.specs import RD, F
from sample.state import Home
from sample.timeline import SONNET, T


def play(h: Home) -> None:
    s = Session(
        h,
        "S05",
        "notes",
        T(4, 17, 25),
        gen="old",
        model=SONNET,
        version="2.1.112",
        branch="",
        note="notes in German; its later lines sit in both the newest archive and the live log",
    )
    s.start()
    s.prompt(
        "Kannst du meine Notizen der Woche 45 zu einem Wochenrückblick zusammenfassen?",
        fires=[F("writing/notes", "semantic:embedding:multi", "0.6842")],
        steps=[("read", "2026/11/week-45.md", {})],
        gap=40,
        answer="Drei Themen: Umzug, Onboarding mit Jana, ADR zu Rate Limiting.",
    )
    s.prompt(
        "Schreib den Rückblick in 2026/11/review-45.md",
        steps=[("edit", "2026/11/review-45.md", "", "# Rückblick Woche 45\n\n- Umzug: Kartons bestellt", {})],
        gap=600,
        answer="Geschrieben.",
    )
    s.prompt(
        "move the open inbox items to next week",
        steps=[("read", "inbox.md", {}), ("edit", "inbox.md", "- [ ] Umzugskartons bestellen", "", {})],
        gap=700,
        answer="Moved two items to week 46.",
    )
    s.prompt(
        "verlinke die Notiz zum Onboarding mit Janas Profil",
        fires=[RD("writing/notes", "semantic:embedding:multi", "0.5521")],
        steps=[("edit", "people/jana.md", "## Notizen", "## Notizen\n- [[2026/11/week-45#Onboarding]]", {})],
        gap=800,
        answer="Verlinkt.",
    )
    s.prompt(
        "list the books I marked as unread",
        steps=[("grep", "\\[ \\]", ["reading/list.md"], {})],
        gap=900,
        answer="Four unread books.",
    )
    s.prompt(
        "add 'Thinking in Systems' to the list",
        steps=[("edit", "reading/list.md", "## Unread", "## Unread\n- [ ] Thinking in Systems", {})],
        gap=700,
        answer="Added.",
    )
    s.prompt("danke, das war's", gap=300, answer="Gern!")
    s.finish()
