"""The committed sample HOME (sample/home) is reproducible and covers the formats it claims to."""

import gzip
import importlib.util
import json
import re
from datetime import datetime, timedelta
from pathlib import Path

import pytest
import yaml

from introspect.rules.decision_stats import RESULTS

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "sample"
HOME = SAMPLE / "home"
STATE = HOME / ".local/state/agent-ways"
ROOTS = [HOME / ".config/agent-ways/ways", HOME / ".claude/hooks/ways"]
UNKNOWN_WAY = "softwaredev/delivery/changelog"

EVENT_TYPES = {
    "session_start",
    "way_fired",
    "way_redisclosed",
    "way_suppressed",
    "way_nearmiss",
    "way_keyword_gated",
    "check_fired",
    "way_judged",
    "judge_call",
    "injection_suppressed",
    "gate_fallback",
    "gate_capped",
    "scan_candidates",
    "way_pulled",
    "event_log_dropped",
    "way_capped",
}
CHANNELS = {
    "keyword",
    "semantic:embedding:en",
    "semantic:embedding:multi",
    "semantic:late-interaction:en",
    "semantic:bash:en",
    "semantic:bash:multi",
    "bash",
    "file",
    "state",
    "task",
    "prompt",
    "check-pull",
    "postcheck",
    "unknown",
}


def load_builder():
    spec = importlib.util.spec_from_file_location("sample_build", SAMPLE / "build.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def events() -> list[dict]:
    """Every event line of the archives, the live log and the legacy log (the hand-made copy is skipped)."""
    blobs = [gzip.decompress(p.read_bytes()) for p in sorted(STATE.glob("events-2*.jsonl.gz"))]
    blobs += [(STATE / "events.jsonl").read_bytes(), (HOME / ".claude/stats/events.jsonl").read_bytes()]
    return [json.loads(line) for blob in blobs for line in blob.split(b"\n") if line]


def test_it_rebuilds_the_committed_sample_byte_for_byte(tmp_path):
    out = tmp_path / "home"
    load_builder().build(out)
    expected, got = tree(HOME), tree(out)
    assert sorted(got) == sorted(expected)
    assert [rel for rel in expected if got[rel] != expected[rel]] == []


def test_it_covers_every_event_type_and_trigger_channel():
    rows = events()
    assert {r["event"] for r in rows} >= EVENT_TYPES
    channels = {r["trigger"] for r in rows if r["event"] == "way_fired"}
    assert channels >= CHANNELS
    assert any(c.startswith("attend:") for c in channels)
    nearmiss = [r for r in rows if r["event"] == "way_nearmiss"]
    assert any("prob_en" in r for r in nearmiss) and any("score_en" in r for r in nearmiss)
    gated = [r for r in rows if r["event"] == "way_keyword_gated"]
    assert any("floor" in r for r in gated) and any("floor_en" in r for r in gated)
    assert {r.get("verdict") for r in rows if r["event"] == "way_judged"} == {"pass", "would_block", "block"}
    assert {r["reason"] for r in rows if r["event"] == "way_suppressed"} == {"refire", "context_cap"}
    assert any(r["ts"].endswith("+00:00") for r in rows)
    assert any(isinstance(r.get("token_position"), int) for r in rows)


def test_it_has_a_way_file_for_every_fired_way_but_the_unknown_one():
    ids = set()
    for r in events():
        ids.update(r[k] for k in ("way", "check") if r.get(k))
        if r["event"] == "scan_candidates":
            ids.update(c["way"] for c in r["candidates"])
        if r["event"] == "gate_capped":
            ids.update(r["ways"].split(","))
    assert UNKNOWN_WAY in ids
    missing = []
    for way_id in sorted(ids - {UNKNOWN_WAY}):
        files = [
            p
            for root in ROOTS
            for p in sorted((root / way_id).glob("*.md"))
            if ".check." not in p.name and p.read_bytes().startswith(b"---\n")
        ]
        if not files or any(
            p.parent.relative_to(root).as_posix() != way_id
            for p in files
            for root in ROOTS
            if p.is_relative_to(root)
        ):
            missing.append(way_id)
    assert missing == []
    assert not any((root / UNKNOWN_WAY).exists() for root in ROOTS)


def test_it_writes_only_valid_json_transcript_lines():
    files = sorted((HOME / ".claude/projects").rglob("*.jsonl"))
    assert len(files) >= 10
    for path in files:
        for line in path.read_bytes().split(b"\n")[:-1]:
            assert isinstance(json.loads(line), dict), path
    for path in (HOME / ".claude/projects").rglob("*.meta.json"):
        assert json.loads(path.read_bytes())["toolUseId"].startswith("toolu_")


def test_it_ends_every_text_file_with_a_newline():
    for path in HOME.rglob("*"):
        if path.is_file() and not path.name.endswith(".gz"):
            assert path.read_bytes().endswith(b"\n"), path


# --- ADR-112 session ledger (knowledge-and-records.md §2) ------------------------------------------

LEDGER = HOME / ".claude/ledger"
ENTRY_KEYS = ["session", "transcript", "epoch", "context_pct", "timestamp", "phase"]
ENTRY_NAME = re.compile(r"^(\d{4}-\d{2}-\d{2})T(\d{2})(\d{2})Z_e(\d{3})\.md$")
MALFORMED = "-home-dev-src-web-ui/2026-11-08T1407Z_e003.md"  # unterminated quote in the front matter
DUPLICATE = ("-home-dev-src-api-server", 10)  # S11 and its team lead wrote at once
LONG_SESSION = "d9253f7d-53c6-40ee-932c-a3cba232d3a0"


def split_front(path: Path) -> tuple[str, str]:
    text = path.read_text()
    assert text.startswith("---\n"), path
    front, sep, body = text[4:].partition("\n---\n")
    assert sep, path
    return front, body


def ledger_entries() -> dict[str, tuple[dict, str]]:
    out = {}
    for path in sorted(LEDGER.glob("*/*.md")):
        rel = path.relative_to(LEDGER).as_posix()
        if rel == MALFORMED:
            continue
        front, body = split_front(path)
        out[rel] = (yaml.safe_load(front), body)
    return out


def transcript_range(project_slug: str, sid: str) -> tuple[datetime, datetime] | None:
    path = HOME / ".claude/projects" / project_slug / f"{sid}.jsonl"
    if not path.exists():
        return None
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    times = [datetime.fromisoformat(r["timestamp"]) for r in rows if "timestamp" in r]
    return min(times).replace(microsecond=0), max(times)


def test_ledger_entries_parse_and_match_their_file_names():
    entries = ledger_entries()
    assert 12 <= len(entries) + 1 <= 20
    assert {rel.split("/")[0] for rel in entries} == {
        "-home-dev-src-api-server",
        "-home-dev-src-web-ui",
        "-home-dev-src-infra",
    }
    assert len({fm["session"] for fm, _ in entries.values()}) >= 5
    for rel, (fm, body) in entries.items():
        project, name = rel.split("/")
        assert list(fm) == ENTRY_KEYS, rel
        m = ENTRY_NAME.match(name)
        assert m, rel
        ts = fm["timestamp"]  # YAML reads the unquoted timestamp as a datetime
        assert isinstance(ts, datetime) and ts.tzinfo is not None, rel
        assert (f"{ts:%Y-%m-%d}", f"{ts:%H}", f"{ts:%M}") == m.groups()[:3], rel
        assert fm["epoch"] == int(m.group(4)), rel
        assert fm["transcript"] == f"~/.claude/projects/{project}/{fm['session']}.jsonl", rel
        assert fm["phase"] in {"orientation", "progress", "consolidation", "handoff"}, rel
        assert isinstance(fm["context_pct"], int) and 0 < fm["context_pct"] < 100, rel
        lines = body.strip().splitlines()
        assert 3 <= len(lines) <= 14, rel
        assert any(line.startswith("Decision: ") for line in lines), rel
        assert any(line.startswith("Open threads: ") for line in lines), rel
        span = transcript_range(project, fm["session"])
        if span:
            assert span[0] <= ts <= span[1], rel


def test_ledger_epochs_are_monotonic_per_project_with_one_deliberate_duplicate():
    entries = ledger_entries()
    malformed = LEDGER / MALFORMED
    with pytest.raises(yaml.YAMLError):
        yaml.safe_load(split_front(malformed)[0])
    duplicates = []
    for project in sorted({rel.split("/")[0] for rel in entries}):
        names = sorted(p.name for p in (LEDGER / project).glob("*.md"))
        stream = sorted(
            (fm["timestamp"], fm["epoch"])
            for rel, (fm, _) in entries.items()
            if rel.startswith(project + "/")
        )
        epochs = [e for _, e in stream]
        assert epochs == sorted(epochs), project
        duplicates += [(project, e) for e in set(epochs) if epochs.count(e) > 1]
        # epoch = number of files already in the directory: the last entry's epoch < file count
        assert max(int(ENTRY_NAME.match(n).group(4)) for n in names) <= len(names) - 1
    assert duplicates == [DUPLICATE]


def test_the_long_session_has_every_phase_and_a_handoff_before_each_compaction():
    entries = [fm for fm, _ in ledger_entries().values() if fm["session"] == LONG_SESSION]
    assert {fm["phase"] for fm in entries} == {"orientation", "progress", "consolidation", "handoff"}
    path = HOME / ".claude/projects/-home-dev-src-api-server" / f"{LONG_SESSION}.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    boundaries = [
        datetime.fromisoformat(r["timestamp"]) for r in rows if r.get("subtype") == "compact_boundary"
    ]
    handoffs = sorted(fm["timestamp"] for fm in entries if fm["phase"] == "handoff")
    assert len(boundaries) == len(handoffs) == 2
    for handoff, boundary in zip(handoffs, boundaries, strict=True):
        assert timedelta(0) < boundary - handoff < timedelta(seconds=90)
    for fm, _ in ledger_entries().values():  # every handoff sits right before a compaction of its session
        if fm["phase"] == "handoff":
            path = next((HOME / ".claude/projects").glob(f"*/{fm['session']}.jsonl"))
            assert any('"compact_boundary"' in line for line in path.read_text().splitlines())


# --- majordomus repository (knowledge-and-records.md §3-§8) ----------------------------------------

REPO_AI = HOME / "repos/api-server/.ai"
RECORD_KEYS = [
    "schema",
    "id",
    "kind",
    "class",
    "title",
    "description",
    "status",
    "epistemics",
    "date",
    "tags",
    "superseded_by",
    "provenance",
    "relations",
    "about",
    "route",
]
REQUIRED_KEYS = {"schema", "id", "kind", "class", "title", "description", "status", "epistemics", "date"}
RECORD_ID = re.compile(r"^s-\d{14}-[0-9a-f]{4}-[0-9a-f]{12}$")
ENVELOPE = ["ts", "event", "head", "branch", "by"]


def knowledge_records() -> dict[str, tuple[str, dict, str]]:
    out = {}
    for where in ("candidates", "curated"):
        for path in sorted((REPO_AI / "repo/knowledge" / where).glob("*.md")):
            if path.name == "README.md":
                continue
            front, body = split_front(path)
            out[path.stem] = (where, yaml.safe_load(front), body)
    return out


def test_knowledge_records_follow_the_closed_schema():
    records = knowledge_records()
    for stem, (where, fm, body) in records.items():
        assert REQUIRED_KEYS <= set(fm) <= set(RECORD_KEYS), stem
        assert list(fm) == [k for k in RECORD_KEYS if k in fm], stem  # §4.1 order
        assert fm["id"] == stem and RECORD_ID.match(stem), stem
        assert fm["schema"] == "knowledge/v1" and fm["kind"] == "knowledge"
        assert body.startswith(f"\n# {fm['title']}\n\n{fm['description']}\n"), stem
        if "provenance" in fm:
            assert list(fm["provenance"]) == [k for k in ("origin", "derived_from") if k in fm["provenance"]]
        assert ("about" in fm) == ("route" in fm), stem
        if where == "curated":
            assert fm["status"] == "verified", stem
            assert fm["provenance"]["origin"] in {"authored", "extracted"}, stem
            assert "\n# Evidence\n" in body, stem
        else:
            assert fm["status"] in {"candidate", "superseded"}, stem
            if fm["status"] == "superseded":
                assert "superseded_by" in fm or "\n# Rejected\n" in body, stem
    statuses = [fm["status"] for _, fm, _ in records.values()]
    assert sorted(statuses) == ["candidate"] * 3 + ["superseded"] + ["verified"] * 2
    assert {fm["class"] for _, fm, _ in records.values()} >= {"fact", "convention", "lesson"}
    assert {fm["epistemics"] for _, fm, _ in records.values()} == {"observed", "decided", "inferred"}
    assert any("about" in fm and fm["status"] == "candidate" for _, fm, _ in records.values())
    origins = {fm["provenance"]["origin"] for where, fm, _ in records.values() if where == "curated"}
    assert origins == {"authored", "extracted"}
    contract = yaml.safe_load(split_front(REPO_AI / "repo/knowledge/candidates/README.md")[0])
    assert contract["schema"] == "context/v1"
    policy = yaml.safe_load((REPO_AI / "repo/policy.yaml").read_text())
    assert policy == {
        "session": {"knowledge_on_end": True, "knowledge_on_compact": True},
        "knowledge": {"candidates_max_files": 40},
    }


def ledger_lines(name: str) -> list[tuple[str, list[tuple[str, object]]]]:
    text = (REPO_AI / "local/state" / name).read_text()
    return [(line, json.loads(line, object_pairs_hook=list)) for line in text.splitlines()]


def test_majordomus_ledger_lines_have_the_envelope_and_duplicate_event_keys():
    archived = ledger_lines("ledger.20261105T000000Z.jsonl.archived")
    live = ledger_lines("ledger.jsonl")
    assert 3 <= len(archived) < len(live)
    assert max(dict(p)["ts"] for _, p in archived) < min(dict(p)["ts"] for _, p in live)
    sessions = {p.stem for p in (HOME / ".claude/projects").glob("*/*.jsonl")}
    names = []
    for raw, pairs in archived + live:
        keys = [k for k, _ in pairs]
        assert keys[:5] == ENVELOPE, raw
        name = pairs[1][1]
        names.append(name)
        events = [v for k, v in pairs if k == "event"]
        if name.startswith("provider.event."):
            assert len(events) == 2 and events[0] == name and events[1] != name, raw
            assert raw.index('"event":"provider.event.') < raw.rindex('"event":"'), raw
            assert json.loads(raw)["event"] == events[1]  # a plain parser keeps the wrong (last) one
            if name == "provider.event.received":
                assert dict(pairs)["provider_session"] in sessions, raw
        else:
            assert len(events) == 1, raw
            assert len(keys) == len(set(keys)), raw
    required = {
        "session.started",
        "provider.event.received",
        "decision.recorded",
        "task.finished",
        "knowledge.derived",
        "knowledge.promoted",
        "knowledge.rejected",
        "session.closed",
        "provider.event.failed",
    }
    assert required <= set(names)
    unknown = set(names) - required - {"task.started", "observation.recorded"}
    assert unknown == {"briefing.rendered"}  # not in majordomus' share/events.yaml
    failed = [dict(p[1:]) for _, p in live if p[1][1] == "provider.event.failed"]
    assert failed == [
        {
            "event": "end",
            "head": failed[0]["head"],
            "branch": failed[0]["branch"],
            "by": failed[0]["by"],
            "provider": "claude",
            "reason": "knowledge: candidates dir not writable",
        }
    ]


def test_majordomus_ledger_references_resolve_to_knowledge_records():
    records = knowledge_records()
    for raw, pairs in ledger_lines("ledger.20261105T000000Z.jsonl.archived") + ledger_lines("ledger.jsonl"):
        d = dict(pairs)
        if d["event"] == "knowledge.derived":
            for path in filter(None, d["paths"].split(" ")):
                assert path.startswith(".ai/repo/knowledge/candidates/") and Path(path).stem in records, raw
        if d["event"] == "knowledge.promoted":
            assert records[d["id"]][0] == "curated" and (HOME / "repos/api-server" / d["path"]).exists(), raw
        if d["event"] == "knowledge.rejected":
            assert records[d["id"]][1]["status"] == "superseded", raw


# --- ADR collections (knowledge-and-records.md §10-§13) -------------------------------------------

API = HOME / "repos/api-server"
WEB = HOME / "repos/web-ui"
ADR_TOOLS = API / "docs/adr"
MJ_ADRS = API / ".ai/repo/adrs"
MADR = WEB / "docs/decisions"
AW_ADRS = WEB / "docs/architecture"
ADR_FILES = {
    ADR_TOOLS: [
        "0001-record-architecture-decisions.md",
        "0002-use-postgresql-with-alembic-migrations.md",
        "0003-authenticate-api-clients-with-server-side-session-cookies.md",
        "0004-version-the-public-api-in-the-url-path.md",
        "0005-log-structured-json-to-stdout.md",
        "0005-store-api-keys-as-sha-256-hashes.md",
        "0006-run-one-uvicorn-worker-per-container.md",
        "0007-use-short-lived-jwt-access-tokens-with-refresh-tokens.md",
        "0008-refresh-token-rotation.md",
        "0009-rate-limiting.md",
        "0010-audit-log.md",
        "0014-audit-retention-and-redaction.md",
    ],
    MJ_ADRS: [
        "0011-rate-limit-burst-defaults-to-the-per-minute-limit.md",
        "0012-burst-size-is-set-per-api-key-tier.md",
        "0013-audit-events-are-kept-for-13-months.md",
    ],
    MADR: [
        "0000-use-markdown-architectural-decision-records.md",
        "0001-use-jest-with-react-testing-library.md",
        "0002-use-vitest-and-mock-the-api-client.md",
        "0003-map-server-validation-errors-in-the-form.md",
        "0004-import-date-fns-per-function.md",
    ],
    AW_ADRS: [
        "archive/frontend/ADR-101-keep-the-session-in-localstorage.md",
        "frontend/ADR-102-poll-the-session-endpoint-every-60-seconds.md",
        "frontend/ADR-103-session-state-lives-in-memory-and-starts-unknown.md",
        "frontend/ADR-105-forms-keep-their-input-across-a-session-expiry.md",
    ],
}
ADR_TOOLS_LINK = re.compile(r"^(Supercedes|Superceded by) \[(\d+)\. ([^\]]+)\]\(([^)]+)\)$", re.M)


def adr_front(path: Path) -> tuple[dict, str]:
    if not path.read_text().startswith("---\n"):
        return {}, path.read_text()
    front, body = split_front(path)
    return yaml.safe_load(front), body


def adr_number(path: Path) -> int:
    fm, body = adr_front(path)
    if "id" in fm:
        return int(fm["id"].removeprefix("adr-"))
    m = re.search(r"^# (?:ADR-)?(\d+)[.:] ", body, re.M)
    return int(m.group(1)) if m else int(re.match(r"(?:ADR-)?(\d+)-", path.name).group(1))


def test_adr_collections_hold_exactly_the_listed_files_with_plausible_bodies():
    assert (API / ".adr-dir").read_text() == "docs/adr\n"
    for root, names in ADR_FILES.items():
        assert sorted(p.relative_to(root).as_posix() for p in root.rglob("*.md")) == sorted(names), root
        for name in names:
            fm, body = adr_front(root / name)
            prose = [line for line in body.splitlines() if line.strip() and not line.startswith("#")]
            assert 6 <= len(prose) <= 20, name
            dates = [str(fm.get("date", "")), *re.findall(r"^(?:\* )?Date: (\S+)$", body, re.M)]
            assert any(d.startswith("2026-") for d in dates), name
    for name in ADR_FILES[ADR_TOOLS]:  # adr-tools layout (Nygard)
        text = (ADR_TOOLS / name).read_text()
        n = int(name[:4])
        assert text.startswith(f"# {n}. ") and re.search(r"^Date: 2026-\d\d-\d\d$", text, re.M), name
        headings = re.findall(r"^## (.+)$", text, re.M)
        assert headings[:4] == ["Status", "Context", "Decision", "Consequences"], name
    # the ids and files the sessions, the ADR-112 ledger and the knowledge records cite
    assert (
        (ADR_TOOLS / "0009-rate-limiting.md")
        .read_text()
        .startswith("# 9. Rate-limit per API key with a Redis token bucket\n")
    )
    assert (
        (ADR_TOOLS / "0008-refresh-token-rotation.md").read_text().startswith("# 8. Refresh token rotation")
    )
    assert "\n## Status\n\nProposed\n" in (ADR_TOOLS / "0010-audit-log.md").read_text()
    cited = {
        m
        for p in (REPO_AI / "repo/knowledge").rglob("*.md")
        for m in re.findall(r"docs/adr/[\w.-]+\.md", p.read_text())
    }
    assert cited and all((API / rel).exists() for rel in cited)
    for name in ADR_FILES[MJ_ADRS]:
        fm, _ = adr_front(MJ_ADRS / name)
        assert (fm["schema"], fm["kind"], fm["id"]) == ("adr/v1", "adr", f"adr-{name[:4]}"), name
        assert fm["status"] in {"proposed", "accepted", "superseded", "rejected"}
        assert fm["provenance"]["origin"] in {"authored", "extracted"}
    assert "contract" not in str(adr_front(AW_ADRS / ADR_FILES[AW_ADRS][0])[0])
    madr2 = (MADR / ADR_FILES[MADR][0]).read_text()
    assert (
        "\n* Status: accepted\n" in madr2
        and "\n* Date: 2026-02-16\n" in madr2
        and not madr2.startswith("---")
    )
    assert (
        adr_front(MADR / "0001-use-jest-with-react-testing-library.md")[0]["status"]
        == "superseded by ADR-0002"
    )
    # apart from the deliberate 0005 pair, no two records of a repository claim one number
    for repo, roots in ((API, (ADR_TOOLS, MJ_ADRS)), (WEB, (MADR, AW_ADRS))):
        numbers = [adr_number(root / name) for root in roots for name in ADR_FILES[root]]
        dupes = sorted({n for n in numbers if numbers.count(n) > 1})
        assert dupes == ([5] if repo == API else []), repo


def test_adr_tools_supersession_is_reciprocal_in_upstream_spelling():
    links = {name: ADR_TOOLS_LINK.findall((ADR_TOOLS / name).read_text()) for name in ADR_FILES[ADR_TOOLS]}
    assert {name: found for name, found in links.items() if found} == {
        "0003-authenticate-api-clients-with-server-side-session-cookies.md": [
            (
                "Superceded by",
                "7",
                "Use short-lived JWT access tokens with refresh tokens",
                "0007-use-short-lived-jwt-access-tokens-with-refresh-tokens.md",
            )
        ],
        "0007-use-short-lived-jwt-access-tokens-with-refresh-tokens.md": [
            (
                "Supercedes",
                "3",
                "Authenticate API clients with server-side session cookies",
                "0003-authenticate-api-clients-with-server-side-session-cookies.md",
            )
        ],
    }
    for found in links.values():
        for _, n, title, target in found:
            assert (ADR_TOOLS / target).read_text().startswith(f"# {n}. {title}\n")


def test_the_deliberate_adr_faults_are_there():
    # duplicate id: two live adr-tools files claim number 5, with different slugs and titles
    fives = sorted(ADR_TOOLS.glob("0005-*.md"))
    assert len(fives) == 2 and len({p.read_text().splitlines()[0] for p in fives}) == 2
    assert all(p.read_text().startswith("# 5. ") for p in fives)
    # one-sided supersession: adr-0012 supersedes adr-0011, which neither says superseded nor names it
    new, old = (adr_front(MJ_ADRS / name)[0] for name in ADR_FILES[MJ_ADRS][1::-1])
    assert new["id"] == "adr-0012" and new["supersedes"] == ["adr-0011"]
    assert old["id"] == "adr-0011" and old["status"] == "accepted" and "superseded_by" not in old
    # superseded without a successor: ADR-102 says Superseded, and nothing supersedes it
    aw = {adr_number(AW_ADRS / name): adr_front(AW_ADRS / name)[0] for name in ADR_FILES[AW_ADRS]}
    assert aw[102]["status"] == "Superseded" and "superseded_by" not in aw[102]
    assert not any(
        102 in [int(str(r).removeprefix("ADR-")) for r in fm.get("supersedes", [])] for fm in aw.values()
    )
    # the archived record and its successor agree (reciprocal), so it is not a fault
    assert aw[101]["superseded_by"] == ["ADR-103"] and aw[103]["supersedes"] == ["ADR-101"]
    # dangling reference: ADR-103 relates to ADR-104, which exists nowhere in web-ui
    assert "ADR-104" in aw[103]["related"]
    web_numbers = {adr_number(root / name) for root in (MADR, AW_ADRS) for name in ADR_FILES[root]}
    assert 104 not in web_numbers


def test_a_session_writes_the_notes_projects_auto_memory_with_its_own_tool_calls():
    memory = HOME / ".claude" / "projects" / "-home-dev-notes" / "memory"
    assert sorted(p.name for p in memory.iterdir()) == ["MEMORY.md", "reading.md", "style.md"]
    calls = []
    for path in (HOME / ".claude" / "projects" / "-home-dev-notes").glob("*.jsonl"):
        for raw in path.read_text().splitlines():
            line = json.loads(raw)
            content = line.get("message", {}).get("content") if line.get("type") == "assistant" else None
            for block in content if isinstance(content, list) else []:
                if block.get("type") == "tool_use" and "/memory/" in block["input"].get("file_path", ""):
                    calls.append((block["name"], block["input"]["file_path"].rsplit("/", 1)[-1]))
    assert calls == [("Write", "reading.md"), ("Write", "MEMORY.md"), ("Edit", "reading.md")]
    # style.md has no call: the demo's "changed outside a recorded session"
    assert "finished" in (memory / "reading.md").read_text()


def decision_records() -> list[dict]:
    """The decision log's records: its archive, then the live file (decisions-and-effectiveness.md §1.8)."""
    blobs = [gzip.decompress(p.read_bytes()) for p in sorted(STATE.glob("decisions-2*.jsonl.gz"))]
    blobs.append((STATE / "decisions.jsonl").read_bytes())
    return [json.loads(line) for blob in blobs for line in blob.split(b"\n") if line]


def test_the_decision_log_has_every_outcome_a_judge_fallback_dispatches_and_pulls():
    records = decision_records()
    scans = [r for r in records if r["kind"] == "scan"]
    results = {o["result"] for s in scans for o in s["outcomes"]}
    assert results >= set(RESULTS)  # every result upstream's stats name
    assert all(len(s["candidates"]) == 5 for s in scans if s["turn_start"])
    assert {s["judge"]["status"] for s in scans if "judge" in s} >= {"judged", "fallback", "idle"}
    assert any(s["judge"].get("capped") for s in scans if "judge" in s)
    assert any(s["surface"] == "task" and not s["turn_start"] and "judge" not in s for s in scans)
    pulls = [r for r in records if r["kind"] == "pull"]
    ids = {s["scan_id"] for s in scans}
    assert any(p["scan_id"] is None for p in pulls)
    assert any(p["scan_id"] and p["scan_id"] not in ids for p in pulls)  # names a scan no longer in the log
    assert any(p["out_of_band"] for p in pulls) and any(not p["stamped"] and p["reason"] for p in pulls)


def test_each_decision_turn_starts_at_a_prompt_its_events_logged():
    """A scan's fires are the rows its prompt hook logged, at the same second (nothing invented)."""
    fired = {(r["session"], r["way"], r["ts"]) for r in events() if r["event"] == "way_fired"}
    for scan in decision_records():
        if scan["kind"] != "scan":
            continue
        for outcome in scan["outcomes"]:
            if outcome["result"] == "fired":
                assert any(
                    (scan["session"], outcome["way"]) == (session, way) and ts[:16] == scan["ts"][:16]
                    for session, way, ts in fired
                ), (scan["scan_id"], outcome["way"])
