"""Applying a proposal (decisions-and-effectiveness.md §8.5): one line written into a way file
(`refire:`) or into `<project>/.claude/ways.yaml` (a project toggle), only on a reviewer's POST.

As rulings are written (ledger/services/records.py): the file read again and compared with the hash
the page was drawn from (a change since is `Stale`, a 409); the new text checked to differ by
exactly one line; written atomically through real directories inside its root, keeping the file's
mode (lib/safefs.py: a link leaving the root, or a non-regular file, is refused and nothing is
written); then one audit row (`ProposalApplied`). A way file is written only under a way root
agent-ways reads (catalog.way_roots), a toggle only inside a project agent-ways recorded.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import yaml
from django.conf import settings
from django.db import transaction

from introspect.importer import catalog
from introspect.models import DecisionRecord, Project, ProposalApplied, RelevanceLabel, Way
from introspect.rules import proposals_labels as labels
from introspect.rules import proposals_refire, proposals_toggle
from introspect.rules.proposals_diff import changed_lines
from lib import safefs
from lib.hashing import sha256

READ_CAP = 1 << 20  # a way file or an overlay larger than this is not one (wayfiles.MAX_WAY_FILE_BYTES)
NO_FILE = "absent"  # the hash a form carries for an overlay that did not exist when the page was drawn


class Stale(Exception):
    """The file (or the proposal) changed since the page was drawn: nothing written, look again."""


class Refused(ValueError):
    """Not applicable as asked (outside the roots, a link out, no such proposal): nothing written."""


@dataclass(frozen=True)
class FileText:
    root: Path
    path: Path
    text: str
    sha256: str  # NO_FILE when there is no file


def out_of_band_reads(way_id: str):
    """The way's stamped pulls inside its refire window (§1.6 `out_of_band`) since a reviewer last
    shortened its `refire:` here: a read made under the old window is no evidence against the new one,
    so the same reads never propose a second, shorter step."""
    reads = DecisionRecord.objects.filter(kind=DecisionRecord.Kind.PULL, way=way_id, out_of_band=True)
    last = last_refire_applied(way_id)
    return reads.filter(ts__gt=last) if last else reads


def last_refire_applied(way_id: str):
    """When a reviewer last applied a `refire:` proposal to the way (None: never)."""
    kind = ProposalApplied.Kind.REFIRE
    return ProposalApplied.objects.filter(kind=kind, way_id=way_id).values_list("at", flat=True).first()


def way_root(way: Way) -> Path:
    """The way's root, when it is one agent-ways reads today; else Refused."""
    for root in catalog.way_roots(settings.WAYSWEB_LOCATIONS):
        if str(root.path) == way.root:
            return root.path
    raise Refused(f"{way.root} is not a way root agent-ways reads; waysweb writes only there")


def untouched(path: Path, refused: safefs.Refused) -> Refused:
    problem = refused.problem
    return Refused(
        f"waysweb did not touch {path}: {problem.label}" + (f" ({problem.detail})" if problem.detail else "")
    )


def read(root: Path, path: Path, *, missing_ok: bool = False) -> FileText:
    """The file as it is now, read confined to `root` (a link out is refused)."""
    try:
        raw = safefs.read_for_edit(root, path, READ_CAP)
    except FileNotFoundError:
        if missing_ok:
            return FileText(root, path, "", NO_FILE)
        raise Refused(f"{path} is gone") from None
    except safefs.Refused as exc:
        raise untouched(path, exc) from None
    if len(raw) > READ_CAP:
        raise Refused(f"{path} is larger than {READ_CAP >> 20} MiB")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise Refused(f"{path} is not UTF-8 text; waysweb does not rewrite it") from None
    return FileText(root, path, text, sha256(raw))


def presets_layer(path: Path) -> object:
    """A config file's `refire_presets` value (None when the file is absent, unreadable or not YAML: as
    agent-ways, a file that does not parse sets nothing here)."""
    try:
        doc = yaml.safe_load(path.read_text(encoding="utf-8", errors="replace"))
    except (OSError, yaml.YAMLError):
        return None
    return doc.get("refire_presets") if isinstance(doc, dict) else None


def refire_presets(project_path: str | None) -> dict[str, float]:
    """agent-ways' merged `refire_presets` where a way resolves its `refire:` (config.rs
    `load_sections`): the defaults, the user `$XDG_CONFIG_HOME/agent-ways/config.yaml`, then the
    project's `.claude/ways.yaml` when the way is read in one project (a project's own way)."""
    user = settings.WAYSWEB_LOCATIONS.user_ways.parent / "config.yaml"
    layers = [presets_layer(user)]
    if project_path and Path(project_path).is_absolute():
        layers.append(presets_layer(Path(project_path).joinpath(*proposals_toggle.OVERLAY_PARTS)))
    return proposals_refire.merge_presets(*layers)


def way_presets(way: Way) -> dict[str, float]:
    """The presets a way's `refire:` is read against: its project's too when it is a project way."""
    project = way.project.path if way.root_kind == Way.RootKind.PROJECT and way.project_id else None
    return refire_presets(project)


def way_file(way: Way) -> FileText:
    root = way_root(way)
    return read(root, root / way.rel_path)


def overlay_file(project: Project) -> FileText:
    root = Path(project.path)
    if not root.is_absolute():
        raise Refused(f"{project.path} is not an absolute project path; agent-ways never resolves it")
    return read(root, root.joinpath(*proposals_toggle.OVERLAY_PARTS), missing_ok=True)


def one_line(before: str, after: str) -> tuple[str, str]:
    """The line replaced or added (before, after); Refused unless exactly one line differs."""
    if changed_lines(before, after) != 1:
        raise Refused("the change is not exactly one line; copy the diff by hand")
    old, new = before.splitlines(), after.splitlines()
    for n, line in enumerate(new):
        if n >= len(old) or old[n] != line:
            return (old[n] if len(old) == len(new) else ""), line
    raise Refused("nothing to change")


def write(current: FileText, after: str) -> str:
    data = after.encode("utf-8")
    try:
        safefs.write_atomic(current.root, current.path, data)
    except safefs.Refused as exc:
        raise untouched(current.path, exc) from None
    return sha256(data)


def apply_refire(*, way: Way, loaded_sha256: str, proposed: str, user) -> ProposalApplied:
    """Write the refire proposal the page showed for `way`'s file, if it still stands."""
    current = way_file(way)
    if current.sha256 != loaded_sha256:
        raise Stale(f"{way.path} changed since this page was drawn; here is the proposal for it as it is now")
    reads = out_of_band_reads(way.way_id).count()
    proposal, why = proposals_refire.propose(current.text, reads, way_presets(way))
    if proposal is None:
        raise Refused(f"no refire: proposal stands: {why}")
    if proposal.proposed.text != proposed:
        raise Stale(f"the proposal is now refire: {proposal.proposed.text}, not {proposed}; look at it again")
    line_before, line_after = one_line(current.text, proposal.after)
    sha_after = write(current, proposal.after)
    with transaction.atomic():
        done = ProposalApplied.objects.create(
            kind=ProposalApplied.Kind.REFIRE,
            way_id=way.way_id,
            path=str(current.path),
            line_before=line_before,
            line_after=line_after,
            sha_before=current.sha256,
            sha_after=sha_after,
            evidence=f"{reads} out-of-band read{'s' if reads != 1 else ''} of {way.way_id}",
            reviewer=user,
            reviewer_name=user.get_username(),
        )
    reread(way.root)
    return done


def toggle_evidence(way_id: str, project: Project) -> str:
    """The evidence for switching `way_id` off in `project`, from people's labels as they are now
    (rules/proposals_labels.project_toggles); Stale when they no longer argue for it. Never the text
    a form posted: a label changed since the page was drawn may have withdrawn the proposal."""
    fires = [
        labels.LabelledFire(way=way_id, project=project.path, channel=channel, prompt="", verdict=verdict)
        for channel, verdict in RelevanceLabel.objects.filter(way=way_id, project=project.path)
        .order_by("ts", "fire", "labeller_name")
        .values_list("channel", "verdict")
    ]
    toggle = next((t for t in labels.project_toggles(fires) if t.project == project.path), None)
    if toggle is None:
        raise Stale(
            f"people's labels no longer show {way_id} irrelevant in {project.path} (and never relevant)"
        )
    return f"{len(toggle.irrelevant)} fires labelled irrelevant in {project.path}, none relevant"


def apply_toggle(*, project: Project, way_id: str, loaded_sha256: str, user) -> ProposalApplied:
    """Disable `way_id` in `project` by one line of its `.claude/ways.yaml`, its evidence recomputed
    from the labels at the moment of writing."""
    evidence = toggle_evidence(way_id, project)
    current = overlay_file(project)
    if current.sha256 != loaded_sha256:
        raise Stale(f"{current.path} changed since this page was drawn; here it is as it is now")
    try:
        toggle = proposals_toggle.toggle_off(current.text, way_id)
    except proposals_toggle.CannotToggle as exc:
        raise Refused(str(exc)) from None
    if toggle.already:
        raise Stale(f"{way_id} is already disabled in {project.path}")
    line_before, line_after = one_line(current.text, toggle.after)
    sha_after = write(current, toggle.after)
    return ProposalApplied.objects.create(
        kind=ProposalApplied.Kind.TOGGLE,
        way_id=way_id,
        project=project.path,
        path=str(current.path),
        line_before=line_before,
        line_after=line_after,
        sha_before="" if current.sha256 == NO_FILE else current.sha256,
        sha_after=sha_after,
        evidence=evidence,
        reviewer=user,
        reviewer_name=user.get_username(),
    )


def reread(root: str) -> None:
    """The way rows of the root read again, so the page shows the file as written."""
    for found in catalog.way_roots(settings.WAYSWEB_LOCATIONS):
        if str(found.path) == root:
            catalog.import_root(found, catalog.CatalogResult())
