"""The secret scan as it is against another version of it: the same findings on every text, or the first
text where they differ.

    git show OLD:introspect/rules/secrets.py > /tmp/secrets_old.py
    git show OLD:introspect/rules/secret_kinds.py > /tmp/secret_kinds_old.py
    uv run python bench/secrets_same.py --old /tmp/secrets_old.py [--old-kinds /tmp/secret_kinds_old.py] [--corpus HOME]

`--old-kinds`: the other version's kinds (their anchors, patterns), which its scanner is then run with;
without it both versions read the kinds of this checkout.

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
         "\udcff", "\\n", "\\\"", " ", "=", "AKIA", "eyJ", "Authorization: ", "\x1b[32m", "ſecret",
         # What may follow a name, and what may not (the anchors end in it: secret_kinds.followed).
         "s", "ſ", "S", "_", "base", "_Value", "\t", ":", "?=", "'", "`", "ı", "passphrase", "PassWd", "tokenizer",
         "Secret_Access_", "secretKey", "aws", "api_", "API-", "credential", "SK", "sk-", "rk_", "glpat-", "xoxb-",
         "dop_v1_", "_v1_", "pypi-", "sk_live_", "ghp_", "x"]  # fmt: skip


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


def load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", type=Path, required=True, help="the other version's secrets.py")
    parser.add_argument("--corpus", type=Path, help="a corpus HOME (bench/corpus.py --out)")
    parser.add_argument("--old-kinds", type=Path, help="the other version's secret_kinds.py")
    args = parser.parse_args()
    kinds = sys.modules["introspect.rules.secret_kinds"]
    if args.old_kinds:
        # The old scanner imports the kinds by their module's name: the old ones stand there meanwhile.
        sys.modules["introspect.rules.secret_kinds"] = load("secret_kinds_old", args.old_kinds)
    old = load("secrets_old", args.old)
    sys.modules["introspect.rules.secret_kinds"] = kinds
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
