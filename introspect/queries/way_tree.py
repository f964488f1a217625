"""The way list: the catalog as a domain tree of way ids, with fires and files counted per id.

Three aggregate queries whatever the number of sessions, turns or events.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from django.db.models import Count, Max, Q

from introspect.models import TurnWay, Way, WaysEvent
from introspect.queries.way_counts import FIRST_FIRE, INJECTED, REDISCLOSED, WITHHELD
from introspect.queries.way_files import ROOT_RANK


@dataclass
class WayLeaf:
    """One way id in the catalog, with what the events and the way roots say about it."""

    way_id: str
    fires: int = 0
    redisclosures: int = 0
    withheld: int = 0
    near_misses: int = 0
    events: int = 0
    last_fired: datetime | None = None
    root_kinds: list[str] = field(default_factory=list)  # present files, highest precedence first
    gone_kinds: list[str] = field(default_factory=list)  # files that were read once and vanished

    @property
    def root_kind(self) -> str:
        return self.root_kinds[0] if self.root_kinds else ""

    @property
    def no_file(self) -> bool:
        """In events only: no way file with this id was ever read (a rename, or another machine)."""
        return not self.root_kinds and not self.gone_kinds

    @property
    def file_gone(self) -> bool:
        """A file with this id was read once and is no longer under any root."""
        return not self.root_kinds and bool(self.gone_kinds)


@dataclass
class DomainNode:
    """One `/` segment of way ids; `way` is set when the prefix itself is a way id."""

    name: str
    path: str
    way: WayLeaf | None = None
    children: list[DomainNode] = field(default_factory=list)
    fires: int = 0
    way_count: int = 0

    @property
    def depth(self) -> int:
        return self.path.count("/")


def way_tree(*, q: str = "") -> list[DomainNode]:
    """Every way id with a file (present or gone) or in any event, nested by `/` segments.

    Three aggregate queries (turn rows, events, way files); `q` keeps ids containing it.
    """
    leaves: dict[str, WayLeaf] = {}

    def leaf(way_id: str) -> WayLeaf:
        return leaves.setdefault(way_id, WayLeaf(way_id))

    rows = TurnWay.objects.all()
    events = WaysEvent.objects.exclude(way__isnull=True).exclude(way="")
    files = Way.objects.all()
    if q:
        rows, events, files = (
            rows.filter(way_id__icontains=q),
            events.filter(way__icontains=q),
            files.filter(way_id__icontains=q),
        )

    for item in (
        rows.values("way_id")
        .annotate(
            fires=Count("pk", filter=FIRST_FIRE),
            redisclosures=Count("pk", filter=REDISCLOSED),
            withheld=Count("pk", filter=WITHHELD),
            last_fired=Max("event__ts", filter=INJECTED),
        )
        .order_by()
    ):
        way = leaf(item["way_id"])
        way.fires, way.redisclosures, way.withheld = item["fires"], item["redisclosures"], item["withheld"]
        way.last_fired = item["last_fired"]
    for item in (
        events.values("way")
        .annotate(
            n=Count("pk"),
            near=Count("pk", filter=Q(event="way_nearmiss")),
        )
        .order_by()
    ):
        way = leaf(item["way"])
        way.events, way.near_misses = item["n"], item["near"]
    for item in files.values("way_id", "root_kind", "present").order_by():
        way = leaf(item["way_id"])
        kinds = way.root_kinds if item["present"] else way.gone_kinds
        if item["root_kind"] not in kinds:
            kinds.append(item["root_kind"])
    for way in leaves.values():
        way.root_kinds.sort(key=lambda kind: ROOT_RANK.get(kind, 9))
        way.gone_kinds.sort(key=lambda kind: ROOT_RANK.get(kind, 9))
    return build_tree(leaves.values())


# Way ids are data: `w/w/w/…` 150 deep would nest the template 150 includes deep (a RecursionError
# for every reader of /ways/). Past this depth the rest of the id stays one node, `/`s and all.
MAX_TREE_DEPTH = 8


def build_tree(leaves) -> list[DomainNode]:
    """Nest leaves by `/` segments (at most MAX_TREE_DEPTH), children sorted by name, counts summed up."""
    root = DomainNode(name="", path="")
    index: dict[str, DomainNode] = {}
    for way in leaves:
        parent = root
        segments = way.way_id.split("/", MAX_TREE_DEPTH - 1)
        for depth in range(1, len(segments) + 1):
            path = "/".join(segments[:depth])
            node = index.get(path)
            if node is None:
                node = index[path] = DomainNode(name=segments[depth - 1], path=path)
                parent.children.append(node)
            parent = node
        parent.way = way

    def finish(node: DomainNode) -> None:
        node.children.sort(key=lambda child: child.name)
        for child in node.children:
            finish(child)
        node.fires = (node.way.fires if node.way else 0) + sum(child.fires for child in node.children)
        node.way_count = (1 if node.way else 0) + sum(child.way_count for child in node.children)

    finish(root)
    return root.children


# ── One way ─────────────────────────────────────────────────────────────────────────────────────
