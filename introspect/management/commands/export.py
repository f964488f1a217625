"""`manage.py export SESSION --format html|md|json [-o PATH]`: a session as a file, or on stdout.

SESSION is a session id or a prefix of exactly one. The document is the one the session page's
Export menu downloads (introspect/documents/export_formats.py), written as it is built.
"""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from introspect.documents import export_formats
from introspect.queries import export as queries


class Command(BaseCommand):
    help = "Export a session as self-contained HTML, Markdown or JSON (stdout unless -o is given)."

    def add_arguments(self, parser):
        parser.add_argument("session", help="a session id, or a prefix that names exactly one")
        parser.add_argument("--format", choices=sorted(export_formats.FORMATS), default="html")
        parser.add_argument("-o", "--output", metavar="PATH", help="write here instead of stdout")

    def handle(self, *args, **options):
        session = self.find(options["session"])
        parts = export_formats.export_parts(
            options["format"], session, queries.export_chunks(session), queries.subagent_runs(session)
        )
        path = options["output"]
        if path:
            try:
                with open(path, "wb") as out:
                    for part in parts:
                        out.write(part)
            except OSError as exc:
                raise CommandError(f"cannot write {path}: {exc.strerror or exc}") from exc
            self.stderr.write(f"wrote {path}")
            return
        for part in parts:
            self.stdout.write(part.decode("utf-8"), ending="")
        self.stdout.flush()

    def find(self, prefix: str):
        found = queries.sessions_by_prefix(prefix)
        if not found:
            raise CommandError(f"no session matches {prefix!r}")
        if len(found) > 1:
            names = ", ".join(s.sid for s in found[: queries.PREFIX_MATCHES_SHOWN])
            more = " …" if len(found) > queries.PREFIX_MATCHES_SHOWN else ""
            raise CommandError(f"{prefix!r} is ambiguous, it matches {names}{more}: give more of the id")
        return found[0]
