"""The way page's proposals from hand-made labelled fires (the label model is wired by the lead):
each names its evidence and carries its diff; a project toggle's diff and hash are of the project's
`.claude/ways.yaml` as it is on disk."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command

from introspect.models import Project, Way
from introspect.queries.way_proposals import refire_summary, way_proposals
from introspect.rules.proposals_labels import LabelledFire
from lib.hashing import sha256

pytestmark = pytest.mark.django_db

WAY = "delivery/commits"
FRONT = "description: commits\nvocabulary: commit squash scope atomic\npattern: \\bcommit\\b|committee\nrefire: rare"


def fire(prompt, verdict, channel="keyword", project="/p/web"):
    return LabelledFire(way=WAY, project=project, channel=channel, prompt=prompt, verdict=verdict)


@pytest.fixture
def way(home) -> Way:
    home.way(home.user_ways, WAY, FRONT)
    call_command("ingest", stdout=StringIO())
    return Way.objects.get(way_id=WAY)


def test_label_proposals_name_their_evidence_and_carry_their_diff(way, tmp_path):
    project = tmp_path / "infra"
    (project / ".claude").mkdir(parents=True)
    (project / ".claude" / "ways.yaml").write_text("language: en\n")
    Project.objects.create(path=str(project), name="infra")
    fires = [
        fire("the committee meets friday", "irrelevant"),
        fire("commit this", "relevant"),
        fire("the scope of the atomic plan", "irrelevant", channel="semantic:embedding:en"),
        fire("squash it", "relevant", channel="semantic:embedding:en"),
        *[fire(f"commit to plan {n}", "irrelevant", project=str(project)) for n in range(3)],
        LabelledFire(way="other/way", project="/p", channel="keyword", prompt="x", verdict="irrelevant"),
    ]
    found = way_proposals(WAY, way, out_of_band=0, log_present=False, labelled=fires)
    assert found.labelled == 7  # the other way's label is not this way's evidence
    assert found.refire.why_none.startswith("no decision log imported")
    assert found.vocabulary.suspect_words == ("scope", "atomic")
    assert "-vocabulary: commit squash scope atomic\n+vocabulary: commit squash\n" in found.vocabulary_diff
    assert found.pattern.dropped == ("committee",)
    assert "-pattern: \\bcommit\\b|committee\n+pattern: \\bcommit\\b\n" in found.pattern_diff
    [toggle] = found.toggles
    overlay = project / ".claude" / "ways.yaml"
    assert (toggle.project, len(toggle.irrelevant), toggle.path) == (str(project), 3, str(overlay))
    assert toggle.sha256 == sha256(overlay.read_bytes()) and toggle.why_none == ""
    assert toggle.diff.endswith(" language: en\n+ways: {delivery/commits: false}\n")
    probes = [json.loads(line) for line in found.probes.splitlines()]
    assert {"prompt": "commit this", "way": WAY, "label": 1} in probes and len(probes) == 7


def test_without_labels_only_the_refire_card_and_it_says_why(way):
    found = way_proposals(WAY, way, out_of_band=0, log_present=True)
    assert (found.labelled, found.vocabulary, found.pattern, found.toggles, found.probes) == (
        0,
        None,
        None,
        [],
        "",
    )
    assert found.refire.why_none == "no out-of-band reads of this way in the decision log"
    found = way_proposals(WAY, way, out_of_band=3, log_present=True)
    assert (found.refire.current, found.refire.proposed, found.refire.reads) == ("rare", "normal", 3)
    assert found.refire.sha256 == way.sha256


def test_the_summary_reads_the_imported_refire_of_the_file_that_resolves(way, home):
    home.way(home.core_ways, WAY, "refire: once")  # shadowed by the user way (rare)
    call_command("ingest", stdout=StringIO())
    rows = refire_summary({WAY: 2, "gone/way": 1, "quiet/way": 0})
    assert [(r.way, r.reads, r.current, r.proposed, r.why_none) for r in rows] == [
        (WAY, 2, "rare", "normal", ""),
        ("gone/way", 1, "", "", "no way file or no refire: it reads"),
    ]
