"""The effectiveness corpus (tests/introspect/effectiveness_corpus.py) with people's labels: its fires
(12 of `w/often`, 3 of `w/rare`, all keyword) by event, and a helper that labels them as a user."""

from __future__ import annotations

from django.contrib.auth import get_user_model

from introspect import services
from introspect.models import TurnWay


def fires_of(way: str) -> list[str]:
    """The way's fires, by event sha256, in turn order."""
    rows = TurnWay.objects.filter(way_id=way).order_by("turn__epoch")
    return list(rows.values_list("event__sha256", flat=True))


def user(name: str):
    found, _ = get_user_model().objects.get_or_create(username=name)
    return found


def label(name: str, verdicts: dict[str, str], note: str = "") -> None:
    """`name` labels each fire (sha256 → verdict)."""
    person = user(name)
    for fire, verdict in verdicts.items():
        services.relevance_label_set(fire=fire, verdict=verdict, note=note, user=person)
