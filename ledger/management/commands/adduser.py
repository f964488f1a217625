"""`manage.py adduser NAME [--reviewer] [--demo]`: an account that may log in; reviewers may decide on knowledge.

Made in the database `serve` uses (introspect/served_database.py): the sample's own when `serve` shows
the sample, so the account logs in to what is on the screen, and it says which database that was.
"""

from __future__ import annotations

import getpass
import os

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError

from introspect import served_database


class Command(BaseCommand):
    help = "Create (or update) a user; --reviewer lets them promote, reject, edit and merge knowledge."

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("--reviewer", action="store_true", help="may promote, reject, edit and merge")
        parser.add_argument(
            "--password-env",
            metavar="VAR",
            help="read the password from this environment variable instead of prompting",
        )
        parser.add_argument(
            "--demo",
            action="store_true",
            help="in the bundled sample's database (the one `serve --demo` uses)",
        )

    def handle(
        self, *args, username: str, reviewer: bool, password_env: str | None, demo: bool, **options
    ) -> None:
        why = served_database.why_the_sample(demo, settings.WAYSWEB_LOCATIONS)
        if why:
            self.stdout.write(f"Using the bundled sample's database, as `serve` would: {why}.")
            served_database.restart_on_sample()
        if password_env:
            password = os.environ.get(password_env, "")
            if not password:
                raise CommandError(f"{password_env} is empty or unset")
        else:
            password = ask(f"Password for {username}: ", username)
            if password != ask("Again: ", username):
                raise CommandError("the passwords differ")
        if len(password) < 8:
            raise CommandError("use a password of at least 8 characters")
        # Before the first `serve` the database has no tables yet; serve migrates it the same way.
        call_command("migrate", interactive=False, verbosity=0)
        user, created = get_user_model().objects.get_or_create(username=username)
        user.set_password(password)
        user.save()
        if reviewer:
            user.user_permissions.add(Permission.objects.get(codename="review_knowledge"))
        role = "reviewer" if reviewer or user.has_perm("ledger.review_knowledge") else "viewer"
        self.stdout.write(
            self.style.SUCCESS(
                f"{'Created' if created else 'Updated'} {username} ({role}) in {served_database.described()}."
            )
        )
        if settings.WAYSWEB_DEMO:
            # The sample's accounts are its own: the user's database needs them made again.
            self.stdout.write(
                "It logs in to the sample only: once `serve` shows your own data, run adduser for it again."
            )


def no_terminal(username: str) -> CommandError:
    return CommandError(
        "there is no terminal to ask for the password on (a script, a pipe, a service): put it in an "
        f"environment variable and name it, as in `NEW_PASSWORD=… uv run manage.py adduser {username} "
        "--password-env NEW_PASSWORD`"
    )


def ask(prompt: str, username: str) -> str:
    """A password typed at the terminal, never echoed. Without a terminal getpass would read stdin
    (echoing it, or an EOFError traceback when it is closed): refused with the way round it."""
    try:
        os.close(os.open("/dev/tty", os.O_RDWR | os.O_NOCTTY))
    except OSError:
        raise no_terminal(username) from None
    try:
        return getpass.getpass(prompt)
    except EOFError:  # Ctrl-D at the prompt
        raise CommandError("no password given") from None
