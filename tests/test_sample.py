"""The committed sample HOME (sample/home) is reproducible and covers the formats it claims to."""

import gzip
import importlib.util
import json
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SAMPLE = REPO / "sample"
HOME = SAMPLE / "home"
STATE = HOME / ".local/state/agent-ways"
ROOTS = [HOME / ".config/agent-ways/ways", HOME / ".claude/hooks/ways"]
UNKNOWN_WAY = "softwaredev/delivery/changelog"

EVENT_TYPES = {
    "session_start", "way_fired", "way_redisclosed", "way_suppressed", "way_nearmiss", "way_keyword_gated",
    "check_fired", "way_judged", "judge_call", "injection_suppressed", "gate_fallback", "gate_capped",
    "scan_candidates", "way_pulled", "event_log_dropped", "way_capped",
}
CHANNELS = {
    "keyword", "semantic:embedding:en", "semantic:embedding:multi", "semantic:late-interaction:en",
    "semantic:bash:en", "semantic:bash:multi", "bash", "file", "state", "task", "prompt", "check-pull",
    "postcheck", "unknown",
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
    blobs = [gzip.open(p).read() for p in sorted(STATE.glob("events-2*.jsonl.gz"))]
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
    assert EVENT_TYPES <= {r["event"] for r in rows}
    channels = {r["trigger"] for r in rows if r["event"] == "way_fired"}
    assert CHANNELS <= channels
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
        files = [p for root in ROOTS for p in sorted((root / way_id).glob("*.md"))
                 if ".check." not in p.name and p.read_bytes().startswith(b"---\n")]
        if not files or any(p.parent.relative_to(root).as_posix() != way_id
                            for p in files for root in ROOTS if p.is_relative_to(root)):
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
