"""`manage.py introspect dump|list|fires|replay|stats|decisions|effectiveness`: agent-ways' `ways session
… --json` (and `ways tune stats --json`'s decisions section), from the database; `effectiveness` is
waysweb's own (the effectiveness page's numbers, documents/effectiveness.py).

stdout carries exactly one JSON document; error documents are printed the same way and the
command exits 0, as upstream does (introspection.md §10.3). Scripts test for the `error` key.
"""

from __future__ import annotations

import orjson
from django.core.management.base import BaseCommand, CommandError

from introspect.documents import build as documents
from introspect.documents import decisions
from introspect.documents.effectiveness import report_document
from introspect.queries.effectiveness import effectiveness
from introspect.rules import secrets


class Command(BaseCommand):
    help = "Print the introspection documents agent-ways prints (dump, list, fires, replay, stats, decisions) as JSON."

    def add_arguments(self, parser):
        actions = parser.add_subparsers(
            dest="action", required=True, metavar="{dump,list,fires,replay,stats,decisions,effectiveness}"
        )
        dump = actions.add_parser("dump", help="the SessionIntrospection model of a session")
        self.session_arguments(dump)
        listing = actions.add_parser("list", help="sessions with a session_start, newest first")
        listing.add_argument("--json", action="store_true", help="accepted; the output is always JSON")
        listing.add_argument("--project", help="only sessions whose recorded project is this path")
        listing.add_argument("--all", action="store_true", help="every project (the default)")
        listing.add_argument(
            "--with-transcripts",
            action="store_true",
            help="also list sessions that have a transcript but no agent-ways events",
        )
        fires = actions.add_parser("fires", help="semantic fires, lowest score first")
        self.session_arguments(fires)
        fires.add_argument("--max-score", type=float, help="keep fires scoring at most this")
        fires.add_argument("--limit", type=int, help="print at most this many fires")
        replay = actions.add_parser("replay", help="the SessionDump: frames, windows, gate summary")
        self.session_arguments(replay)
        stats = actions.add_parser("stats", help="the decision log's statistics, as `ways tune stats --json`")
        stats.add_argument("--json", action="store_true", help="accepted; the output is always JSON")
        stats.add_argument("--project", help="turns opened in this project (or under it)")
        stats.add_argument("--days", type=int, help="records from the first of the last N UTC days on")
        logged = actions.add_parser("decisions", help="a session's decision turns and pulls with their class")
        logged.add_argument("session", help="session id")
        logged.add_argument("--json", action="store_true", help="accepted; the output is always JSON")
        effect = actions.add_parser(
            "effectiveness", help="per way, shown vs matched-not-shown turns' signals"
        )
        effect.add_argument("--json", action="store_true", help="accepted; the output is always JSON")
        effect.add_argument("--project", help="sessions of this project (or under it)")
        effect.add_argument("--days", type=int, help="turns from the first of the last N UTC days on")
        effect.add_argument("--way", help="only this way id")

    def session_arguments(self, parser) -> None:
        parser.add_argument("session", nargs="?", help="session id (default: the newest session)")
        parser.add_argument("--session", dest="session_option", help="session id, as an option")
        parser.add_argument("--json", action="store_true", help="accepted; the output is always JSON")
        parser.add_argument("--matched", action="store_true", help="include judged-out and held rows")

    def handle(self, *args, action: str, **options) -> None:
        if action in ("stats", "effectiveness") and options["days"] is not None and options["days"] < 0:
            raise CommandError("--days must not be negative")
        if action == "stats":
            document = decisions.stats_document(project=options["project"], days=options["days"])
        elif action == "effectiveness":
            report = effectiveness(project=options["project"], days=options["days"], way=options["way"])
            document = report_document(report)
        elif action == "decisions":
            document = decisions.decisions_document(options["session"])
        elif action == "list":
            if options["project"] and options["all"]:
                raise CommandError("--project and --all exclude each other")
            document = documents.list_document(
                project=options["project"], with_transcripts=options["with_transcripts"]
            )
        else:
            session = options["session_option"] or options["session"]
            if action == "dump":
                document = documents.dump_document(session, matched=options["matched"])
            elif action == "fires":
                if options["limit"] is not None and options["limit"] < 0:
                    raise CommandError("--limit must not be negative")
                document = documents.fires_document(
                    session,
                    matched=options["matched"],
                    max_score=options["max_score"],
                    limit=options["limit"],
                )
            else:
                document = documents.replay_document(session, matched=options["matched"])
        # Masked as a whole (rules/secrets.py reads JSON-escaped text): events and prompts may hold secrets.
        self.stdout.write(secrets.mask_text(orjson.dumps(document, option=orjson.OPT_INDENT_2).decode()))
