"""Say what is wrong with this installation and how to fix it (see waysweb/doctor.py).

It checks what `serve` would use (introspect/served_database.py): the bundled sample's data and
database with `--demo`, or when `serve` would show the sample for want of the user's own.
"""

from __future__ import annotations

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from introspect import served_database
from waysweb import doctor

MARK = {doctor.OK: "ok  ", doctor.WARN: "warn", doctor.FAIL: "FAIL"}


class Command(BaseCommand):
    help = "Check sources, permissions, the database, migrations, importer lag and quarantined lines."
    requires_system_checks = []
    requires_migrations_checks = False

    def add_arguments(self, parser):
        parser.add_argument(
            "--demo",
            action="store_true",
            help="check the bundled sample's data and database (`serve --demo`)",
        )

    def handle(self, *args, demo: bool, **options) -> None:
        why = served_database.why_the_sample(demo, settings.WAYSWEB_LOCATIONS)
        if why and not demo:
            self.stdout.write(
                self.style.WARNING(
                    f"`serve` would show the bundled sample ({why}), so its data and database are "
                    "checked. Run agent-ways and Claude Code, or point WAYSWEB_STATE_DIR / CLAUDE_CONFIG_DIR "
                    "at where they write, to see your own."
                )
            )
        if why:
            served_database.restart_on_sample()
        self.stdout.write(f"Checking the database `serve` uses: {served_database.described()}.")
        findings = doctor.run(settings.WAYSWEB_LOCATIONS, settings.DATA_DIR)
        style = {
            doctor.OK: self.style.SUCCESS,
            doctor.WARN: self.style.WARNING,
            doctor.FAIL: self.style.ERROR,
        }
        for finding in findings:
            self.stdout.write(
                style[finding.level](f"{MARK[finding.level]}  {finding.topic:12s} {finding.message}")
            )
            if finding.fix:
                self.stdout.write(f"      {'':12s} → {finding.fix}")
        failed = sum(1 for f in findings if f.level == doctor.FAIL)
        warned = sum(1 for f in findings if f.level == doctor.WARN)
        if failed:
            raise CommandError(f"{failed} problem(s) to fix, {warned} warning(s)", returncode=1)
        self.stdout.write(f"No problems found{f', {warned} warning(s)' if warned else ''}.")
