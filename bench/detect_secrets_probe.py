"""Run Yelp's detect-secrets over texts, for bench/secrets_compare.py: not imported by the project.

    PYTHON_WITH_DETECT_SECRETS bench/detect_secrets_probe.py TEXTS.json OUT.json

Runs under a Python that has detect-secrets installed (a scratch venv: it is no dependency of
waysweb) and imports nothing of waysweb. TEXTS.json is a list of strings; each is written to a file of
its own and scanned as `detect-secrets scan` scans a file (its default plugins, entropy limits and
filters). OUT.json: {"seconds": the scans' wall time, "found": [[text index, type, value], ...]}.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

from detect_secrets import SecretsCollection
from detect_secrets.settings import default_settings


def main() -> None:
    texts = json.loads(Path(sys.argv[1]).read_text())
    found = []
    with tempfile.TemporaryDirectory() as folder:
        paths = []
        for n, text in enumerate(texts):
            path = Path(folder) / f"{n}.txt"
            path.write_text(text)
            paths.append(str(path))
        started = time.perf_counter()
        with default_settings():
            collection = SecretsCollection()
            for path in paths:
                collection.scan_file(path)
        seconds = time.perf_counter() - started
        for path, secrets in collection.data.items():
            n = int(Path(path).stem)
            found += [[n, secret.type, secret.secret_value or ""] for secret in secrets]
    Path(sys.argv[2]).write_text(json.dumps({"seconds": seconds, "found": found}))


if __name__ == "__main__":
    main()
