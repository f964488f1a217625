"""The part of a schema editor a migration's RunPython functions use, on the test database: to run
them forward and back without the migration executor."""

from __future__ import annotations

from django.db import connection


class Editor:
    def __init__(self) -> None:
        self.connection = connection

    def execute(self, sql: str) -> None:
        with connection.cursor() as cursor:
            cursor.execute(sql)

    quote_name = staticmethod(connection.ops.quote_name)
