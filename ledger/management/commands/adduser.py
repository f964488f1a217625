"""`manage.py adduser NAME [--reviewer]`: an account that may log in; reviewers may decide on knowledge."""

from __future__ import annotations

import getpass
import os

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.core.management.base import BaseCommand, CommandError


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

    def handle(self, *args, username: str, reviewer: bool, password_env: str | None, **options) -> None:
        if password_env:
            password = os.environ.get(password_env, "")
            if not password:
                raise CommandError(f"{password_env} is empty or unset")
        else:
            password = getpass.getpass(f"Password for {username}: ")
            if password != getpass.getpass("Again: "):
                raise CommandError("the passwords differ")
        if len(password) < 8:
            raise CommandError("use a password of at least 8 characters")
        user, created = get_user_model().objects.get_or_create(username=username)
        user.set_password(password)
        user.save()
        if reviewer:
            user.user_permissions.add(Permission.objects.get(codename="review_knowledge"))
        role = "reviewer" if reviewer or user.has_perm("ledger.review_knowledge") else "viewer"
        self.stdout.write(self.style.SUCCESS(f"{'Created' if created else 'Updated'} {username} ({role})."))
