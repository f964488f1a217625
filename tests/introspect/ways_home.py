"""A HOME whose events and way files exercise every kind of row a way can have: the way queries'
tests and the way pages' read it, and a way file made in place."""

from __future__ import annotations

from io import StringIO

from django.core.management import call_command
from django.utils import timezone

from introspect.models import Way
from introspect.queries.way_tree import WayLeaf
from tests.conftest import append, line

S1, S2 = "sess-one-0000-aaaa", "sess-two-0000-bbbb"


def imported(home) -> None:
    """Two sessions a week apart that exercise every kind of row a way can have."""
    append(
        home.live,
        # Session 1, ISO week 2026-W45: a semantic fire, a re-disclosure, a refire hold, then a
        # compaction, a keyword fire and a re-disclosure whose token position was not recorded.
        line(ts="2026-11-02T10:00:00Z", event="session_start", project="/src/alpha", session=S1),
        line(
            ts="2026-11-02T10:00:05Z",
            event="way_fired",
            way="d/a",
            trigger="semantic:embedding:en",
            fire_score="0.6220",
            surface="commit this",
            token_position="1000",
            session=S1,
        ),
        line(
            ts="2026-11-02T10:00:06Z",
            event="way_nearmiss",
            way="d/a",
            prob_en="0.4791",
            prob_multi="",
            tau_s="0.5000",
            margin="0.0209",
            trigger="prompt",
            session=S1,
        ),
        line(
            ts="2026-11-02T10:05:00Z",
            event="way_redisclosed",
            way="d/a",
            trigger="semantic:embedding:en",
            fire_score="0.5500",
            token_position="31000",
            session=S1,
        ),
        line(
            ts="2026-11-02T10:10:00Z",
            event="way_suppressed",
            way="d/a",
            trigger="semantic:embedding:en",
            reason="refire",
            session=S1,
        ),
        line(
            ts="2026-11-02T10:15:00Z",
            event="way_fired",
            way="ghost/only-events",
            trigger="bash",
            matched_span="git push",
            session=S1,
        ),
        line(ts="2026-11-02T10:20:00Z", event="session_start", project="/src/alpha", session=S1),
        line(
            ts="2026-11-02T10:20:30Z",
            event="way_fired",
            way="d/a",
            trigger="keyword",
            matched_span="commit",
            token_position="2000",
            session=S1,
        ),
        line(ts="2026-11-02T10:30:00Z", event="way_redisclosed", way="d/a", trigger="keyword", session=S1),
        # Session 2, ISO week 2026-W46: a keyword fire, a gated row, a judge block, and a near-miss
        # from before ADR-156 (raw score against a per-model threshold).
        line(ts="2026-11-10T09:00:00Z", event="session_start", project="/src/beta", session=S2),
        line(
            ts="2026-11-10T09:00:05Z",
            event="way_fired",
            way="d/a",
            trigger="keyword",
            matched_span="commit",
            token_position="500",
            session=S2,
        ),
        line(
            ts="2026-11-10T09:05:00Z",
            event="way_keyword_gated",
            way="d/a",
            matched_span="remember",
            prob_en="0.0759",
            prob_multi="",
            floor="0.1500",
            trigger="prompt",
            session=S2,
        ),
        line(
            ts="2026-11-10T09:10:00Z",
            event="way_judged",
            way="d/a",
            p_yes="0.050",
            threshold="0.30",
            verdict="block",
            session=S2,
        ),
        line(
            ts="2026-11-10T09:15:00Z",
            event="way_nearmiss",
            way="d/a",
            score_en="0.4410",
            score_multi="",
            thr_en="0.4600",
            thr_multi="",
            margin="0.0190",
            trigger="prompt",
            session=S2,
        ),
    )
    home.way(
        home.core_ways, "d/a", "description: commits\npattern: commit\nembed_threshold: 0.4\nrefire: 0.2"
    )
    home.way(home.user_ways, "d/a", "description: commits, user copy\npattern: \\bcommit\\b\nrefire: 0.3")
    home.way(home.core_ways, "d/quiet", "pattern: never")
    call_command("ingest", stdout=StringIO())


def leaves(nodes) -> dict[str, WayLeaf]:
    out = {}
    for node in nodes:
        if node.way:
            out[node.way.way_id] = node.way
        out |= leaves(node.children)
    return out


def way_file(way_id: str, kind: str, root: str, *, present: bool = True, project=None, **fields) -> Way:
    now = timezone.now()
    return Way.objects.create(
        way_id=way_id,
        domain=way_id.split("/")[0],
        root_kind=kind,
        root=root,
        project=project,
        rel_path=f"{way_id}/{way_id.rsplit('/', 1)[-1]}.md",
        sha256="0" * 64,
        present=present,
        read_at=now,
        changed_at=now,
        **fields,
    )
