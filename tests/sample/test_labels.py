"""The sample's relevance labels (sample/labels.py): a pass over the bundled sample imports them, each
names a fire of the sample, and a new user sees precision with its interval and the two people's κ."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command

from introspect.models import RelevanceLabel, TurnWay
from introspect.queries.relevance import relevance
from lib import locations

pytestmark = pytest.mark.django_db


@pytest.fixture
def demo(settings):
    settings.WAYSWEB_LOCATIONS = locations.resolve({"WAYSWEB_DATA_DIR": str(settings.DATA_DIR)}, demo=True)
    call_command("ingest", stdout=StringIO())


def test_a_pass_over_the_sample_brings_two_peoples_labels_of_its_fires(demo, client):
    labels = RelevanceLabel.objects.all()
    assert labels.count() == 12 + 8
    assert set(labels.values_list("labeller_name", flat=True)) == {"ann", "bob"}
    fires = set(labels.values_list("fire", flat=True))
    assert TurnWay.objects.filter(event__sha256__in=fires, gated=False, suppressed="").count() == 12
    found = relevance()
    # By hand (sample/labels.py): 3 of the 9 decided fires relevant, 2 disputed, 1 unsure; κ 0.5.
    assert (found.overall.relevant, found.overall.decided, found.overall.disputed) == (3, 9, 2)
    [pair] = found.agreements
    assert (pair.items, pair.agreed, pair.kappa) == (8, 6, pytest.approx(0.5))
    body = client.get("/ways/effectiveness/").content.decode()
    assert "3 of 9 relevant · 33 % (12 %–65 %)" in body
    assert "ann and bob: 8 fires both labelled, 6 agreed, κ 0.50" in body
    call_command("ingest", stdout=StringIO())  # a second pass finds nothing new: nothing changes
    assert RelevanceLabel.objects.count() == 20
