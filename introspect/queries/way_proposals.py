"""Proposals for one way's page and their summary on the effectiveness page (§8.5).

A proposal names its evidence and shows its diff. The `refire:` proposal comes from the decision
log's out-of-band reads and the way file as it is on disk now (its hash goes into the apply form,
so a file changed since is a 409). The label-driven ones (vocabulary review, narrower pattern,
project toggle, calibration probes) are built from people's relevance labels of the way's fires
(queries/relevance.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from introspect.models import Project, ProposalApplied, Way
from introspect.queries import relevance
from introspect.rules import proposals_labels as labels
from introspect.rules import proposals_refire, proposals_toggle
from introspect.rules.proposals_diff import unified
from introspect.services import proposals as service

CAVEAT = (
    "A suggestion from correlations in the logs (who read what, who labelled what), not a measured "
    "effect: nothing shows that the change would make the way help more."
)
APPLIED_LIMIT = 10


@dataclass(frozen=True)
class RefireCard:
    reads: int
    why_none: str = ""  # the honest empty state when there is no proposal
    current: str = ""
    proposed: str = ""
    path: str = ""
    diff: str = ""
    way_pk: int | None = None
    sha256: str = ""


@dataclass(frozen=True)
class ToggleCard:
    project: str
    project_pk: int | None
    irrelevant: tuple[labels.LabelledFire, ...]
    path: str
    diff: str
    sha256: str
    why_none: str = ""  # why it cannot be applied from the page (the diff is still there to copy)


@dataclass(frozen=True)
class WayProposals:
    refire: RefireCard
    labelled: int = 0
    vocabulary: labels.VocabularyReview | None = None
    vocabulary_diff: str = ""
    pattern: labels.PatternNarrowing | None = None
    pattern_diff: str = ""
    toggles: list[ToggleCard] = field(default_factory=list)
    probes: str = ""
    applied: list[ProposalApplied] = field(default_factory=list)
    caveat: str = CAVEAT


def labelled_fires_of(way_id: str) -> list[labels.LabelledFire]:
    """People's labels of the way's fires (queries/relevance.py, two queries) as the proposal rules read them."""
    return [
        labels.LabelledFire(
            way=fire.way,
            project=fire.project,
            channel=fire.channel,
            prompt=fire.prompt,
            verdict=fire.verdict,
            matched=fire.matched,
            session=fire.session,
            turn=fire.turn,
        )
        for fire in relevance.labelled_fires(way=way_id)
    ]


def refire_card(primary: Way | None, reads: int, *, log_present: bool, shortened: bool = False) -> RefireCard:
    """`reads`: the way's out-of-band reads (queries/way_decisions.py counts them with its pulls), only
    those since a reviewer last shortened its `refire:` when `shortened`."""
    if not log_present:
        return RefireCard(0, "no decision log imported: out-of-band reads come from decisions.jsonl")
    if not reads and shortened:
        return RefireCard(0, "no out-of-band read of this way since its refire: was last shortened here")
    if not reads:
        return RefireCard(0, "no out-of-band reads of this way in the decision log")
    if primary is None or not primary.present:
        return RefireCard(reads, "no way file under a way root today to change")
    try:
        current = service.way_file(primary)
    except service.Refused as exc:
        return RefireCard(reads, str(exc))
    proposal, why = proposals_refire.propose(current.text, reads, service.way_presets(primary))
    if proposal is None:
        return RefireCard(reads, why)
    return RefireCard(
        reads,
        current=proposal.current.text,
        proposed=proposal.proposed.text,
        path=str(current.path),
        diff=unified(current.text, proposal.after, str(current.path)),
        way_pk=primary.pk,
        sha256=current.sha256,
    )


def field_diff(primary: Way | None, key: str, value: str) -> str:
    """The diff of one front-matter line `key: …` set to `value`, against the file as imported."""
    if primary is None or not value:
        return ""
    lines = primary.versions.order_by("-first_seen").values_list("content", flat=True)[:1]
    text = next(iter(lines), "")
    out = text.split("\n")
    for n, line in enumerate(out):
        if line.startswith(f"{key}:"):
            out[n] = f"{key}: {value}"
            return unified(text, "\n".join(out), primary.path)
    return ""


def toggle_card(project_path: str, way_id: str, toggle: labels.ProjectToggle) -> ToggleCard:
    project = Project.objects.filter(path=project_path).first()
    base = {"project": project_path, "project_pk": project.pk if project else None}
    if project is None:
        return ToggleCard(
            **base, irrelevant=toggle.irrelevant, path="", diff="", sha256="", why_none="no such project"
        )
    try:
        current = service.overlay_file(project)
        done = proposals_toggle.toggle_off(current.text, way_id)
    except (service.Refused, proposals_toggle.CannotToggle) as exc:
        return ToggleCard(
            **base, irrelevant=toggle.irrelevant, path="", diff="", sha256="", why_none=str(exc)
        )
    why = "already disabled there" if done.already else ""
    return ToggleCard(
        **base,
        irrelevant=toggle.irrelevant,
        path=str(current.path),
        diff="" if done.already else unified(done.before, done.after, str(current.path)),
        sha256=current.sha256,
        why_none=why,
    )


def way_proposals(
    way_id: str,
    primary: Way | None,
    *,
    out_of_band: int,
    log_present: bool,
    labelled: list[labels.LabelledFire] | None = None,
) -> WayProposals:
    """Every proposal for the way; `labelled` is the way's labelled fires (people's labels when None)."""
    if labelled is None:
        labelled = labelled_fires_of(way_id)
    fires = [fire for fire in labelled if fire.way == way_id]
    applied = list(ProposalApplied.objects.filter(way_id=way_id)[:APPLIED_LIMIT])
    shortened = any(row.kind == ProposalApplied.Kind.REFIRE for row in applied)
    if shortened:
        # Reads since the last shortening only (one more query, only for a way a reviewer changed).
        out_of_band = service.out_of_band_reads(way_id).count()
    card = refire_card(primary, out_of_band, log_present=log_present, shortened=shortened)
    if not fires:
        return WayProposals(refire=card, labelled=0, applied=applied)
    criteria = primary.frontmatter if primary is not None else {}
    vocabulary = labels.vocabulary_review(fires, str(criteria.get("vocabulary") or ""))
    pattern = labels.pattern_narrowing(fires, str(criteria.get("pattern") or ""))
    return WayProposals(
        refire=card,
        labelled=len(fires),
        vocabulary=vocabulary,
        vocabulary_diff=field_diff(primary, "vocabulary", vocabulary.vocabulary_after) if vocabulary else "",
        pattern=pattern,
        pattern_diff=field_diff(primary, "pattern", pattern.pattern_after) if pattern else "",
        toggles=[toggle_card(t.project, way_id, t) for t in labels.project_toggles(fires)],
        probes=labels.calibration_probes(fires),
        applied=applied,
    )


@dataclass(frozen=True)
class SummaryRow:
    way: str
    reads: int
    current: str
    proposed: str
    why_none: str


def refire_summary(unspent: dict[str, int]) -> list[SummaryRow]:
    """The effectiveness page's list: each way with unspent out-of-band reads in its frame (those made
    after a reviewer last shortened its `refire:`, queries/effectiveness.py counts each read once),
    and the refire proposal its file's imported front matter gives (the way page reads the file
    itself). One query."""
    ways = {w: n for w, n in unspent.items() if n}
    if not ways:
        return []
    # The file the way page would change: user over core (way_files), a project's only when alone.
    prefer = {Way.RootKind.USER: 0, Way.RootKind.CORE: 1}
    best: dict[str, tuple[int, str, str | None]] = {}
    rows = Way.objects.filter(way_id__in=ways, present=True).values_list(
        "way_id", "root_kind", "frontmatter", "project__path"
    )
    for way_id, kind, front, project in rows:
        rank = prefer.get(kind, 2)
        if way_id not in best or rank < best[way_id][0]:
            home = project if kind == Way.RootKind.PROJECT else None
            best[way_id] = (rank, str((front or {}).get("refire", "")), home)
    presets = {home: service.refire_presets(home) for _, _, home in best.values()}  # a file read each
    out = []
    for way_id, reads in sorted(ways.items(), key=lambda item: (-item[1], item[0])):
        _, text, home = best.get(way_id, (0, "", None))
        value = proposals_refire.parse_value(text, presets.get(home, proposals_refire.PRESETS))
        shorter = proposals_refire.shorter(value, presets[home]) if value else None
        why = "" if shorter else ("no way file or no refire: it reads" if not value else "cannot get shorter")
        out.append(
            SummaryRow(way_id, reads, value.text if value else "", shorter.text if shorter else "", why)
        )
    return out
