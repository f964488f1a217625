"""An entry's text packed on SQLite: a long text is stored as a zstd BLOB in its TEXT column.

The ORM reads and writes it as a str (PackedTextField). SQL that reads the text itself goes through
`entry_text(column)`, a function every SQLite connection gets (`register`): the full-text index's
content view and triggers (migration 0034), the field's pattern lookups (`text__icontains=…`), and
`Unpacked` where a query cuts or selects the text in SQL.
Equal texts pack to equal bytes, so grouping and equality on the stored value stay exact. PostgreSQL
stores the text as it is: its TOAST already compresses a long value, and its tsvector index reads it.
"""

from __future__ import annotations

from django.db import models
from django.db.backends.signals import connection_created
from django.db.models import lookups

from lib import linepack

SQL_FUNCTION = "entry_text"


class PackedTextField(models.TextField):
    packs_values = True  # lib/bulk.py converts its values as the ORM would

    def from_db_value(self, value, expression, connection):
        return linepack.unpack_text(value)

    def get_db_prep_value(self, value, connection, prepared=False):
        value = super().get_db_prep_value(value, connection, prepared)
        if connection.vendor == "sqlite" and isinstance(value, str):
            return linepack.pack_text(value)
        return value


def unpacked_sql(column: str) -> str:
    """SQL for the text `column` holds: only a packed value costs a call into Python."""
    return f"CASE WHEN typeof({column}) = 'blob' THEN {SQL_FUNCTION}({column}) ELSE {column} END"


class UnpackedLhs:
    """A lookup that matches the text a packed column holds, not its stored bytes."""

    def process_lhs(self, compiler, connection, lhs=None):
        sql, params = super().process_lhs(compiler, connection, lhs)
        if connection.vendor == "sqlite":
            return unpacked_sql(sql), params * 3  # the column is named three times
        return sql, params


for _lookup in (
    lookups.IExact,
    lookups.Contains,
    lookups.IContains,
    lookups.StartsWith,
    lookups.IStartsWith,
    lookups.EndsWith,
    lookups.IEndsWith,
    lookups.Regex,
    lookups.IRegex,
):
    PackedTextField.register_lookup(type(_lookup.__name__, (UnpackedLhs, _lookup), {}))


class Unpacked(models.Func):
    """The text a PackedTextField column holds, in SQL (the column itself outside SQLite)."""

    function = SQL_FUNCTION
    output_field = models.TextField()

    def as_sql(self, compiler, connection, **extra_context):
        sql, params = compiler.compile(self.source_expressions[0])
        if connection.vendor != "sqlite":
            return sql, params
        return unpacked_sql(sql), params * 3


def unpack_sql(value):
    try:
        return linepack.unpack_text(value)
    except linepack.CorruptLine:
        return ""  # a damaged row is not found by search, rather than failing every query that reads it


def add_function(sender, connection, **kwargs) -> None:
    if connection.vendor == "sqlite":
        connection.connection.create_function(SQL_FUNCTION, 1, unpack_sql, deterministic=True)


def register() -> None:
    connection_created.connect(add_function, dispatch_uid="lib.packed_text")
