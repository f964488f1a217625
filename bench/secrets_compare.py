"""waysweb's own secret rules beside Yelp's detect-secrets: what each finds, what each flags wrongly, how fast.

    uv run python bench/secrets_compare.py --detect-secrets-python /tmp/ds-venv/bin/python

detect-secrets is no dependency of waysweb: install it in a scratch venv (`uv venv /tmp/ds-venv &&
uv pip install --python /tmp/ds-venv/bin/python detect-secrets==1.5.0`) and name its Python; it runs
there (bench/detect_secrets_probe.py, as `detect-secrets scan` scans a file: default plugins, entropy
limits and filters). Without the option only waysweb's rules run.

Three measures:
  detection  the real-shaped secrets of tests/introspect/rules/test_secrets.py (one text each, made up when
             this runs, seeded), as written and as a transcript's JSON line holds them: found if a finding
             covers the secret's characters (or, for detect-secrets, reports a value inside it or holding it)
  flags      every finding on texts that hold no real secret: the fixtures' transcripts (/work/shared or
             tests/fixtures) and every file of the sample HOME, whose only secrets are S13's three made-up
             ones (listed apart). Every other flag is printed, for a person to read and count.
  speed      MB/s over the fixture transcripts, whole files (detect-secrets' time includes writing and
             reading its temporary files, a small share).
Not part of the test suite.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from introspect.rules.secrets import find_secrets  # noqa: E402 - the repository root first
from sample.story.s13_unknown_channel import PRINTENV  # noqa: E402
from tests.introspect.rules.test_secrets import CASES, KIND_OF  # noqa: E402

FIXTURES = (Path("/work/shared/fixtures/transcripts"), ROOT / "tests" / "fixtures" / "transcripts")
SAMPLE = ROOT / "sample" / "home"
S13 = [line.partition("=")[2].rpartition(":")[0].partition(":")[2].partition("@")[0] or line.partition("=")[2]
       for line in PRINTENV.splitlines()[2:]]  # fmt: skip


def ours(texts: list[str]) -> tuple[float, list[tuple[int, str, str]]]:
    started = time.perf_counter()
    spans = [find_secrets(text) for text in texts]
    seconds = time.perf_counter() - started
    return seconds, [(n, s.kind, texts[n][s.start : s.end]) for n, found in enumerate(spans) for s in found]


def theirs(python: str | None, texts: list[str]) -> tuple[float, list[tuple[int, str, str]]] | None:
    if not python:
        return None
    with tempfile.TemporaryDirectory() as folder:
        given, out = Path(folder) / "texts.json", Path(folder) / "out.json"
        given.write_text(json.dumps(texts))
        subprocess.run(
            [python, str(ROOT / "bench" / "detect_secrets_probe.py"), str(given), str(out)], check=True
        )
        answer = json.loads(out.read_text())
    return answer["seconds"], [tuple(item) for item in answer["found"]]


def covers(value: str, secret: str) -> bool:
    """A reported value that is the secret, part of it (3 characters at least: detect-secrets' GitHub
    plugin reports `ghp` of a `ghp_…` token) or holds it."""
    value = value.strip()
    return bool(value) and (secret in value or (len(value) >= 3 and value in secret))


def shape(value: str) -> str:
    """What a flagged value looks like, to count them by: its prefix up to `_`, or its length class."""
    head, sep, _ = value.partition("_")
    if sep and head.isalpha() and len(head) <= 6:
        return f"{head}_… id"
    return f"{len(value) // 20 * 20}-{len(value) // 20 * 20 + 19} chars"


def detection(python: str | None) -> None:
    cases = list(CASES.items())
    for form in ("plain", "json"):
        texts, secrets = [], []
        for _, (around, secret) in cases:
            text = around.format(secret)
            if form == "json":
                text = orjson.dumps({"type": "tool_result", "content": text}).decode()
                secret = orjson.dumps(secret).decode()[1:-1]
            texts.append(text)
            secrets.append(secret)
        for name, result in (("waysweb", ours(texts)), ("detect-secrets", theirs(python, texts))):
            if result is None:
                continue
            _, found = result
            hit = {n for n, _, value in found if covers(value, secrets[n]) or covers(secrets[n], value)}
            missed = sorted({KIND_OF[cases[n][0]] for n in range(len(cases)) if n not in hit})
            kinds = {KIND_OF[case] for case, _ in cases}
            hit_kinds = kinds - {KIND_OF[cases[n][0]] for n in range(len(cases)) if n not in hit}
            print(
                f"detection {form:5} {name:14} {len(hit)}/{len(cases)} secrets, "
                f"{len(hit_kinds)}/{len(kinds)} kinds all found; missed: {', '.join(missed) or 'none'}"
            )


def files(folder: Path) -> list[Path]:
    return sorted(path for path in folder.rglob("*") if path.is_file() and not path.name.endswith(".gz"))


def flags(python: str | None) -> None:
    fixtures = next(folder for folder in FIXTURES if folder.is_dir())
    for label, folder in (("fixtures", fixtures), ("sample", SAMPLE)):
        paths = files(folder)
        texts = [path.read_bytes().decode("utf-8", "replace") for path in paths]
        mb = sum(len(text.encode()) for text in texts) / 1e6
        for name, result in (("waysweb", ours(texts)), ("detect-secrets", theirs(python, texts))):
            if result is None:
                continue
            seconds, found = result
            true = [f for f in found if any(covers(f[2], s) or covers(s, f[2]) for s in S13)]
            false = [f for f in found if f not in true]
            print(
                f"flags {label:8} {name:14} {len(paths)} files {mb:.2f} MB  {seconds:6.2f} s "
                f"({mb / seconds:5.1f} MB/s)  flags {len(found)}: "
                f"S13's made-up secrets {len(true)}, others {len(false)}"
            )
            if false:
                print("    others by type: " + counted(kind for _, kind, _ in false))
                print("    others by shape: " + counted(shape(value) for _, _, value in false))
            for n, kind, value in [f for f in false if not shape(f[2]).endswith(" id")][:SHOWN]:
                print(f"    {paths[n].relative_to(folder)}  {kind}  {value[:60]!r}")


SHOWN = 40


def counted(names) -> str:
    """`a 3, b 1`: each name and how often, most first."""
    counts: dict[str, int] = {}
    for name in names:
        counts[name] = counts.get(name, 0) + 1
    return ", ".join(f"{name} {n}" for name, n in sorted(counts.items(), key=lambda item: -item[1]))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--detect-secrets-python", help="a Python with detect-secrets installed")
    args = parser.parse_args()
    detection(args.detect_secrets_python)
    flags(args.detect_secrets_python)


if __name__ == "__main__":
    main()
