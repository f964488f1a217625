"""Say what is wrong with this installation and how to fix it (see waysweb/doctor.py)."""

from __future__ import annotations

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from waysweb import doctor

MARK = {doctor.OK: "ok  ", doctor.WARN: "warn", doctor.FAIL: "FAIL"}


class Command(BaseCommand):
    help = "Check sources, permissions, the database, migrations, importer lag and quarantined lines."
    requires_system_checks = []
    requires_migrations_checks = False

    def handle(self, *args, **options) -> None:
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
