"""The secret scan as it is against another version of it: the same findings on every text, or the first
text where they differ.

    git show OLD:introspect/rules/secrets.py > /tmp/secrets_old.py
    uv run python bench/secrets_same.py --old /tmp/secrets_old.py [--corpus HOME]

Texts: every line of the corpus HOME's transcripts (bench/corpus.py), the fixture transcripts, every
file of the sample HOME, the real-shaped secrets of tests/introspect/rules/test_secrets.py as written
and as a JSON line holds them, and seeded mixtures of those secrets with words, non-ASCII characters
(ones whose lower case is longer, `İ`, the Kelvin sign) and undecodable bytes (lone surrogates), each
mixture cut at random places. Used to show a faster scan finds exactly what the slower one found.
Not part of the test suite.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from introspect.rules import secrets  # noqa: E402 - the repository root first
from tests.introspect.rules.test_secrets import CASES  # noqa: E402

FIXTURES = (Path("/work/shared/fixtures/transcripts"), ROOT / "tests" / "fixtures" / "transcripts")
SAMPLE = ROOT / "sample" / "home"
WORDS = ["key", "token", "pass", "password=", "secret:", "sk", "gh", "://", "İ", "\u212aey", "é", "→",
         "\udcff", "\\n", "\\\"", " ", "=", "AKIA", "eyJ", "Authorization: ", "\x1b[32m", "ſecret"]  # fmt: skip


def texts(corpus: Path | None) -> list[str]:
    out: list[str] = []
    folders = [*FIXTURES, SAMPLE] + ([corpus / ".claude" / "projects"] if corpus else [])
    for folder in folders:
        for path in sorted(folder.rglob("*")) if folder.is_dir() else []:
            if path.is_file():
                data = path.read_bytes().decode("utf-8", "surrogateescape")
                out.append(data[:200_000])
                out.extend(data.splitlines())
    secrets_ = [template.format(secret) for template, secret in CASES.values()]
    out.extend(secrets_)
    out.extend(json.dumps(s)[1:-1] for s in secrets_)
    rng = random.Random(29)
    for _ in range(20_000):
        parts = [rng.choice(WORDS + secrets_) for _ in range(rng.randint(1, 12))]
        text = "".join(parts)
        out.append(text)
        cut = rng.randint(0, len(text))
        out.append(text[cut:])
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", type=Path, required=True, help="the other version's secrets.py")
    parser.add_argument("--corpus", type=Path, help="a corpus HOME (bench/corpus.py --out)")
    args = parser.parse_args()
    spec = importlib.util.spec_from_file_location("secrets_old", args.old)
    old = importlib.util.module_from_spec(spec)
    sys.modules["secrets_old"] = old
    spec.loader.exec_module(old)
    given = texts(args.corpus)
    size = sum(len(t) for t in given)
    timed = {}
    results = {}
    for name, module in (("old", old), ("new", secrets)):
        started = time.process_time()
        results[name] = [
            [(s.start, s.end, s.kind, s.fingerprint) for s in module.find_secrets(text)] for text in given
        ]
        timed[name] = time.process_time() - started
    findings = 0
    for n, (a, b) in enumerate(zip(results["old"], results["new"], strict=True)):
        if a != b:
            sys.exit(f"text {n} differs:\n{given[n][:500]!r}\nold {a}\nnew {b}")
        findings += len(a)
    print(f"{len(given):,} texts, {size / 1e6:,.1f} M characters, {findings:,} findings: the same")
    print(f"CPU: old {timed['old']:.2f} s, new {timed['new']:.2f} s ({timed['old'] / timed['new']:.1f}×)")


if __name__ == "__main__":
    main()
