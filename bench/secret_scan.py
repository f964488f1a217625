"""How fast the secret rules read transcripts, and what they flag in texts that hold no secret.

    uv run python bench/secret_scan.py                       # the fixtures' transcripts and the sample HOME
    uv run python bench/secret_scan.py --extra /tmp/x        # and every file of a bench corpus (bench/corpus.py)

Each corpus is read in two forms, as the importer will meet them:
  lines    every line of every file as stored (a transcript's JSON line, escapes and all);
  strings  every string value inside each JSON line, decoded (the prompt, the tool output a page shows);
           a file that is no JSON lines (memory, ADRs, way files) is one text, the same in both forms.
Speed: `find_secrets` over all texts of a form, repeated until 2 s have passed; MB/s counts UTF-8 bytes.
Beside it, on the same texts: `str.lower` alone (the prefilter's fixed cost) and, for the lines form,
`orjson.loads` (what the importer already spends on each line), so a loaded machine's figures still
compare.
Flags: none of these texts holds a real secret (public fixtures, a made-up sample), so every flag is a
false positive; each is listed with its file, line, kind and the flagged characters.
Not part of the test suite.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

import orjson

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from introspect.rules.secrets import find_secrets  # noqa: E402 - the repository root first

CORPORA = {
    "fixtures": ROOT / "tests" / "fixtures" / "transcripts",
    "sample": ROOT / "sample" / "home",
}
SHOWN = 80  # characters of a flagged text the listing shows


def strings(value: object) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


def texts(root: Path, form: str) -> Iterator[tuple[str, int, str]]:
    """(file, line number, text) of every text below `root` in `form` ("lines" or "strings")."""
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        name = str(path.relative_to(root))
        raw = path.read_bytes()
        if path.suffix == ".gz" or b"\0" in raw:  # archives hold the same lines as the live log
            continue
        if path.suffix != ".jsonl":
            yield name, 0, raw.decode("utf-8", "replace")
            continue
        for number, line in enumerate(raw.decode("utf-8", "replace").splitlines(), 1):
            if form == "lines":
                yield name, number, line
                continue
            try:
                value = orjson.loads(line)
            except orjson.JSONDecodeError:
                yield name, number, line
                continue
            for text in strings(value):
                yield name, number, text


def parse(text: str) -> None:
    # A file that is no JSON lines (memory, ADRs) costs its failed parse.
    with contextlib.suppress(orjson.JSONDecodeError):
        orjson.loads(text)


def rate(all_texts: list[str], work: Callable[[str], object]) -> tuple[float, int]:
    """MB/s of `work` over the texts, repeated for at least 2 s; and the rounds run."""
    size = sum(len(text.encode()) for text in all_texts)
    rounds = 0
    started = time.perf_counter()
    while True:
        for text in all_texts:
            work(text)
        rounds += 1
        elapsed = time.perf_counter() - started
        if elapsed >= 2.0:
            return size * rounds / elapsed / 1e6, rounds


def run(name: str, root: Path) -> list[str]:
    out = []
    for form in ("lines", "strings"):
        found = list(texts(root, form))
        all_texts = [text for _, _, text in found]
        size = sum(len(text.encode()) for text in all_texts)
        speed, rounds = rate(all_texts, find_secrets)
        floor, _ = rate(all_texts, str.lower)
        parsed = f"  orjson.loads {rate(all_texts, parse)[0]:7.1f} MB/s" if form == "lines" else ""
        flags = [
            (file, number, span.kind, text[span.start : span.end])
            for file, number, text in found
            for span in find_secrets(text)
        ]
        out.append(
            f"{name:9} {form:8} {len(all_texts):7,} texts {size / 1e6:7.2f} MB  "
            f"find_secrets {speed:7.1f} MB/s ({rounds} rounds)  str.lower {floor:7.1f} MB/s{parsed}  "
            f"flags {len(flags)}"
        )
        kinds = Counter(kind for _, _, kind, _ in flags)
        if kinds:
            out.append("    by kind: " + ", ".join(f"{kind} {n}" for kind, n in kinds.most_common()))
        for file, number, kind, secret in flags:
            shown = secret if len(secret) <= SHOWN else secret[:SHOWN] + "…"
            out.append(f"    {file}:{number}  {kind}  {shown!r}")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--extra", type=Path, help="a further folder to read (a bench corpus HOME)")
    args = parser.parse_args()
    corpora = dict(CORPORA)
    if args.extra:
        corpora["extra"] = args.extra
    for name, root in corpora.items():
        for row in run(name, root):
            print(row, flush=True)


if __name__ == "__main__":
    main()
