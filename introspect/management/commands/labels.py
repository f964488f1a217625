"""`manage.py labels export|import`: people's relevance labels as JSONL (documents/labels.py).

Export writes every label (or a frame's) to stdout or a file. Import reads such a file whole first:
one bad line and nothing is written, each bad line named; a good file is written in one transaction,
each label audited as an import by the person running it, and importing it again changes nothing.
"""

from __future__ import annotations

import getpass
import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from introspect.documents.labels import BadLines, label_line, read_lines
from introspect.queries.relevance import LabelFrame, export_rows
from introspect.services import relevance_labels_import


class Command(BaseCommand):
    help = "Export or import relevance labels as JSONL."

    def add_arguments(self, parser):
        actions = parser.add_subparsers(dest="action", required=True, metavar="{export,import}")
        export = actions.add_parser("export", help="write labels as JSONL (stdout unless --out)")
        export.add_argument("--out", type=Path, help="write to this file instead of stdout")
        export.add_argument("--project", help="fires of this project (or under it)")
        export.add_argument("--days", type=int, help="fires from the first of the last N UTC days on")
        export.add_argument("--way", help="only this way id")
        export.add_argument("--channel", help="only this channel family (semantic, keyword…)")
        imported = actions.add_parser("import", help="read labels from a JSONL file ('-': stdin)")
        imported.add_argument("file", help="the JSONL file")
        imported.add_argument("--by", help="who is importing, for the audit (default: the login name)")

    def handle(self, *args, action: str, **options) -> None:
        if action == "export":
            self.export(options)
        else:
            self.import_file(options["file"], options["by"] or getpass.getuser())

    def export(self, options: dict) -> None:
        if options["days"] is not None and options["days"] < 1:
            raise CommandError("--days must be 1 or more")
        frame = LabelFrame(
            project=options["project"], days=options["days"], way=options["way"], channel=options["channel"]
        )
        lines = b"".join(label_line(row) for row in export_rows(frame))
        if options["out"]:
            options["out"].write_bytes(lines)
            self.stderr.write(f"wrote {lines.count(b'\n')} labels to {options['out']}")
        else:
            self.stdout.write(lines.decode(), ending="")

    def import_file(self, name: str, by: str) -> None:
        try:
            data = sys.stdin.buffer.read() if name == "-" else Path(name).read_bytes()
        except OSError as exc:
            raise CommandError(f"cannot read {name}: {exc.strerror}") from None
        try:
            rows = read_lines(data.split(b"\n"))
        except BadLines as exc:
            raise CommandError(f"{name}: {exc}") from None
        done = relevance_labels_import(rows=rows, by=by)
        self.stdout.write(
            self.style.SUCCESS(f"{done.added} added, {done.changed} changed, {done.unchanged} unchanged")
        )
