"""The way page's links to other pages: its domain's ways in the way list, its effectiveness and
the labelling of its fires.
Built here so the template prints them, as the session page's are (queries/session_links.py)."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import quote

from django.urls import reverse


@dataclass(frozen=True)
class WayLinks:
    domain_ways: str  # the way list filtered to the way's domain
    effectiveness: str  # the effectiveness page of this one way
    labelling: str  # the labelling page, its sample drawn from this way's fires


def way_links(way_id: str, domain: str) -> WayLinks:
    # quote, not urlencode: a way id's "/" stays itself, so the address reads as the id does.
    return WayLinks(
        domain_ways=f"{reverse('introspect:way-list')}?q={quote(domain)}",
        effectiveness=f"{reverse('introspect:way-effectiveness')}?way={quote(way_id)}",
        labelling=f"{reverse('introspect:way-labels')}?way={quote(way_id)}",
    )
