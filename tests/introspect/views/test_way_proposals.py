"""Proposals on a way's page and their apply (§8.5): the sample's out-of-band read of
softwaredev/architecture/design gives a shorter `refire:` (0.25 → normal); a reviewer's POST writes
that one line, atomically, keeping the file's mode, with an audit row; a viewer is refused; a file
changed since the page was drawn answers 409 and the page says why; nothing outside a way root or a
project is written; a project toggle is one line of `<project>/.claude/ways.yaml`."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from django.contrib.auth.models import Permission, User
from django.urls import reverse
from django.utils import timezone

from introspect.models import DecisionRecord, Project, ProposalApplied, RelevanceLabel, Way
from introspect.queries.effectiveness import effectiveness
from introspect.rules import proposals_refire as refire
from introspect.rules.proposals_diff import changed_lines
from introspect.services import proposals as service
from lib.hashing import sha256

pytestmark = pytest.mark.django_db

DESIGN = "softwaredev/architecture/design"


def reviewer(client) -> User:
    user = User.objects.create_user("rev", password="x")
    user.user_permissions.add(Permission.objects.get(codename="review_knowledge"))
    client.force_login(user)
    return user


def design_file() -> Path:
    way = Way.objects.get(way_id=DESIGN, present=True)
    return Path(way.root) / way.rel_path


def form_of(html: str, action: str) -> dict:
    """The hidden fields of the form posting to `action`, as the browser would send them."""
    # The action ends in #way-proposals: the page answered (a 409 too) opens at the proposals.
    form = re.search(rf'<form method="post" action="{re.escape(action)}#way-proposals".*?</form>', html, re.S)
    form = form.group(0)
    return dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)"', form))


def page(client, way_id: str = DESIGN) -> str:
    response = client.get(reverse("introspect:way-detail", args=[way_id]))
    assert response.status_code == 200
    return response.content.decode()


def test_the_sample_yields_a_refire_proposal_with_its_evidence_and_diff(sample, client):
    reads = DecisionRecord.objects.filter(kind="pull", way=DESIGN, out_of_band=True).count()
    assert reads == 1  # S11's read inside the refire window (sample/decision_log.py)
    html = page(client)
    assert "1 out-of-band read</strong>" in html
    assert "<code>refire: 0.25</code> → <code>refire: normal</code>" in html
    assert "-refire: 0.25\n+refire: normal" in html
    assert "not a measured" in html  # the caveat
    assert "A reviewer may apply it from here" in html  # not a reviewer: no form
    assert 'action="/ways/softwaredev/architecture/design/apply/refire/#way-proposals"' not in html


def test_the_user_config_and_a_project_ways_yaml_set_the_presets(sample, client, settings, tmp_path):
    # The user config.yaml (beside the user ways) redefines normal and adds a shorter preset; the
    # proposal for 0.25 is then the user's normal, as agent-ways would resolve it.
    config = settings.WAYSWEB_LOCATIONS.user_ways.parent / "config.yaml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text("refire_presets:\n  normal: 0.2\n  brisk: 0.1\n")
    assert "<code>refire: 0.25</code> → <code>refire: normal</code>" in page(client)
    config.write_text("refire_presets:\n  normal: 0.3\n  brisk: 0.1\n")
    assert "<code>refire: 0.25</code> → <code>refire: brisk</code>" in page(client)
    # A project's ways.yaml layers over the user's for that project's own way.
    way = Way.objects.get(way_id=DESIGN, present=True)
    project = Project.objects.create(path=str(tmp_path / "proj"), name="proj")
    (tmp_path / "proj" / ".claude").mkdir(parents=True)
    (tmp_path / "proj" / ".claude" / "ways.yaml").write_text("refire_presets:\n  brisk: 0.2\n")
    assert service.way_presets(way)["brisk"] == 0.1  # a core way: the user layer only
    way.root_kind, way.project = Way.RootKind.PROJECT, project
    assert service.way_presets(way) == refire.merge_presets({"normal": 0.3, "brisk": 0.1}, {"brisk": 0.2})


def test_a_way_without_out_of_band_reads_says_so(sample, client):
    html = page(client, "softwaredev/code/navigation")
    assert "No <code>refire:</code> proposal: no out-of-band reads of this way in the decision log." in html
    assert "No fire of this way has a relevance label yet" in html


def test_a_reviewer_applies_it_one_line_mode_kept_and_audited(sample, client):
    path = design_file()
    os.chmod(path, 0o640)
    before = path.read_text()
    user = reviewer(client)
    url = reverse("introspect:way-apply-refire", args=[DESIGN])
    fields = form_of(page(client), url)
    response = client.post(url, fields)
    assert response.status_code == 302
    assert response["Location"].endswith("#way-proposals") and "?applied=" in response["Location"]
    after = path.read_text()
    assert changed_lines(before, after) == 1
    assert after == before.replace("refire: 0.25\n", "refire: normal\n", 1)
    assert os.stat(path).st_mode & 0o777 == 0o640
    row = ProposalApplied.objects.get()
    assert (row.kind, row.way_id, row.path, row.line_before, row.line_after) == (
        "refire",
        DESIGN,
        str(path),
        "refire: 0.25",
        "refire: normal",
    )
    assert (row.reviewer, row.reviewer_name, row.evidence) == (user, "rev", f"1 out-of-band read of {DESIGN}")
    shown = client.get(response["Location"]).content.decode()
    assert "Written by rev: <code>refire: normal</code>" in shown
    # The read that argued for it is spent: the same read never proposes a second, shorter step.
    assert "no out-of-band read of this way since its refire: was last shortened here" in shown
    assert "refire: frequent" not in shown


def test_a_viewer_is_refused_and_nothing_is_written(sample, client):
    path = design_file()
    before = path.read_text()
    url = reverse("introspect:way-apply-refire", args=[DESIGN])
    viewer = User.objects.create_user("viewer", password="x")
    client.force_login(viewer)
    way = Way.objects.get(way_id=DESIGN, present=True)
    fields = {"way_pk": way.pk, "loaded_sha256": way.sha256, "proposed": "normal"}
    assert client.post(url, fields).status_code == 403
    client.logout()
    assert client.post(url, fields).status_code == 302  # to the login page
    assert path.read_text() == before and not ProposalApplied.objects.exists()


def test_a_file_changed_since_the_page_was_drawn_answers_409_and_the_page_says_why(sample, client):
    path = design_file()
    reviewer(client)
    url = reverse("introspect:way-apply-refire", args=[DESIGN])
    fields = form_of(page(client), url)
    path.write_text(path.read_text() + "\nA line someone added.\n")
    edited = path.read_text()
    response = client.post(url, fields)
    assert response.status_code == 409
    html = response.content.decode()
    assert "Nothing was written:" in html and "changed since this page was drawn" in html
    assert path.read_text() == edited and not ProposalApplied.objects.exists()
    # The page answered is drawn from the file as it is now: its form applies.
    assert client.post(url, form_of(html, url)).status_code == 302
    assert path.read_text() == edited.replace("refire: 0.25\n", "refire: normal\n", 1)


def test_a_way_file_outside_the_way_roots_or_behind_a_link_is_refused(sample, client, tmp_path):
    path = design_file()
    reviewer(client)
    url = reverse("introspect:way-apply-refire", args=[DESIGN])
    fields = form_of(page(client), url)
    # The way's file replaced by a link to a file outside its root: never followed, never written.
    outside = tmp_path / "elsewhere.md"
    outside.write_text(path.read_text())
    path.unlink()
    path.symlink_to(outside)
    response = client.post(url, fields)
    assert (
        response.status_code == 400
        and "Nothing was written: waysweb did not touch" in response.content.decode()
    )
    assert outside.read_text().count("refire: 0.25") == 1 and path.is_symlink()
    # A row naming a root agent-ways does not read (a stale catalog, a forged pk): refused too.
    way = Way.objects.get(pk=fields["way_pk"])
    Way.objects.filter(pk=way.pk).update(root=str(tmp_path))
    (tmp_path / way.rel_path).parent.mkdir(parents=True)
    (tmp_path / way.rel_path).write_text(outside.read_text())
    response = client.post(url, fields)
    assert response.status_code == 400 and "is not a way root agent-ways reads" in response.content.decode()
    assert not ProposalApplied.objects.exists()


def test_a_project_toggle_is_one_line_of_the_projects_ways_yaml(sample, client, tmp_path):
    project = Project.objects.create(path=str(tmp_path / "proj"), name="proj")
    (tmp_path / "proj" / ".claude").mkdir(parents=True)
    overlay = tmp_path / "proj" / ".claude" / "ways.yaml"
    overlay.write_text("# overlay\nways:\n  meta/intro: false\n")
    os.chmod(overlay, 0o600)
    loaded = sha256(overlay.read_bytes())
    reviewer(client)
    url = reverse("introspect:way-apply-toggle", args=[DESIGN])
    fields = {"project_pk": project.pk, "loaded_sha256": loaded, "evidence": "posted text is not evidence"}
    # Without labels that say so, nothing is written whatever the form claims.
    assert client.post(url, fields).status_code == 409 and overlay.read_text().endswith("intro: false\n")
    labelled_irrelevant(DESIGN, project.path, count=3)
    assert client.post(url, fields).status_code == 302
    assert (
        overlay.read_text()
        == "# overlay\nways:\n  meta/intro: false\n  softwaredev/architecture/design: false\n"
    )
    assert os.stat(overlay).st_mode & 0o777 == 0o600
    row = ProposalApplied.objects.get()
    assert row.evidence == f"3 fires labelled irrelevant in {project.path}, none relevant"
    assert (row.kind, row.project, row.line_before, row.line_after) == (
        "toggle",
        project.path,
        "",
        "  softwaredev/architecture/design: false",
    )
    # The same form again: the file changed since (it was written), a 409.
    response = client.post(url, fields)
    assert response.status_code == 409 and ProposalApplied.objects.count() == 1


def test_the_toggles_evidence_is_recomputed_from_the_labels_when_it_is_applied(sample, client, tmp_path):
    # The service reads the labels at the moment of writing: a fire relabelled relevant after the
    # page was drawn withdraws the proposal (409, nothing written); the count is the labels' own.
    project = Project.objects.create(path=str(tmp_path / "proj"), name="proj")
    (tmp_path / "proj" / ".claude").mkdir(parents=True)
    labelled_irrelevant(DESIGN, project.path, count=4)
    user = reviewer(client)
    assert (
        service.toggle_evidence(DESIGN, project)
        == f"4 fires labelled irrelevant in {project.path}, none relevant"
    )
    RelevanceLabel.objects.filter(fire=f"{0:064x}").update(verdict=RelevanceLabel.Verdict.RELEVANT)
    with pytest.raises(service.Stale):
        service.apply_toggle(project=project, way_id=DESIGN, loaded_sha256="absent", user=user)
    assert not (tmp_path / "proj" / ".claude" / "ways.yaml").exists() and not ProposalApplied.objects.exists()


def labelled_irrelevant(way: str, project: str, *, count: int) -> None:
    """`count` fires of `way` in `project` that a person labelled irrelevant."""
    for n in range(count):
        RelevanceLabel.objects.create(
            fire=f"{n:064x}",
            session_key="s",
            way=way,
            project=project,
            channel="keyword",
            verdict=RelevanceLabel.Verdict.IRRELEVANT,
            labeller_name="ann",
            labelled_at=timezone.now(),
        )


def test_a_toggle_never_follows_a_link_out_of_the_project(sample, client, tmp_path):
    project = Project.objects.create(path=str(tmp_path / "proj"), name="proj")
    labelled_irrelevant(DESIGN, project.path, count=3)
    (tmp_path / "proj").mkdir()
    (tmp_path / "outside").mkdir()
    (tmp_path / "proj" / ".claude").symlink_to(tmp_path / "outside")
    reviewer(client)
    url = reverse("introspect:way-apply-toggle", args=[DESIGN])
    response = client.post(url, {"project_pk": project.pk, "loaded_sha256": "absent", "evidence": ""})
    assert response.status_code == 400
    assert not (tmp_path / "outside" / "ways.yaml").exists() and not ProposalApplied.objects.exists()


def test_the_effectiveness_page_lists_the_refire_proposals_of_its_frame(sample, client):
    html = client.get(reverse("introspect:way-effectiveness")).content.decode()
    assert f'href="/ways/{DESIGN}/#way-proposals">{DESIGN}</a>: 1 out-of-band read →' in html
    assert "<code>refire: 0.25</code> → <code>refire: normal</code>" in html
    # The sample's reads are months old: the last day holds none, and the page says so.
    html = client.get(reverse("introspect:way-effectiveness"), {"days": "1"}).content.decode()
    assert "No out-of-band reads in this window: no <code>refire:</code> proposal." in html


def test_the_effectiveness_summary_counts_a_read_once_and_not_after_it_was_spent(sample, client):
    # The sample's one out-of-band read of the design way argued for a shortening a reviewer then
    # applied (at = now, after the read): the summary no longer offers a step from it, while the
    # JSON's out_of_band still reports the read itself, once.
    url = reverse("introspect:way-effectiveness")
    assert f"{DESIGN}</a>: 1 out-of-band read →" in client.get(url).content.decode()
    ProposalApplied.objects.create(
        kind=ProposalApplied.Kind.REFIRE, way_id=DESIGN, path="design.md", line_before="refire: 0.25",
        line_after="refire: normal", sha_after="0" * 64, reviewer_name="rev",
    )  # fmt: skip
    assert f"{DESIGN}</a>: 1 out-of-band read" not in client.get(url).content.decode()
    design = next(w for w in effectiveness().ways if w.way == DESIGN)
    assert (design.out_of_band, design.unspent_out_of_band) == (1, 0)
