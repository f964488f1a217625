"""Many-row `INSERT … ON CONFLICT DO NOTHING` without the ORM's per-value compilation.

The importer writes tens of thousands of rows per second; Django's `bulk_create` spends most of
that time compiling SQL value by value (measured: 21 s of a 40 s import, against 1.6 s in
SQLite itself). This prepares each column with the field's own conversion only where the database
needs one (dates, JSON, bytes) and hands whole batches to `executemany`. Same semantics as
`bulk_create(ignore_conflicts=True)`: no primary keys are returned, no signals fire.
`insert_rows` takes the rows as plain tuples (`Rows`), never model instances, and on PostgreSQL
loads a large batch with COPY through a staging table.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC
from functools import cache
from itertools import batched

from django.db import IntegrityError, connections, models, router, transaction

PLAIN = (
    models.CharField,
    models.TextField,
    models.IntegerField,
    models.BigIntegerField,
    models.FloatField,
    models.BooleanField,
    models.PositiveIntegerField,
    models.SmallIntegerField,
)


def converters(model: type[models.Model], connection) -> list[tuple[models.Field, Callable]]:
    fields = [f for f in model._meta.concrete_fields if not isinstance(f, models.AutoField)]
    out = []
    for field in fields:
        # A plain field that packs its values (introspect's packed text) says so: converted as the ORM would.
        own = getattr(field, "packs_values", False)
        if isinstance(field, models.ForeignKey) or (
            isinstance(field, PLAIN) and not isinstance(field, models.DateTimeField) and not own
        ):
            out.append((field, None))  # the database driver adapts these as they are
        else:
            out.append((field, lambda value, f=field: f.get_db_prep_save(value, connection)))
    return out


def insert_ignore(objs: Sequence[models.Model], *, batch_size: int = 500) -> None:
    """Insert model instances, skipping any that collide with a unique constraint."""
    _insert_instances(objs, ignore=True, batch_size=batch_size)


def insert_all(objs: Sequence[models.Model], *, key: Sequence[str], batch_size: int = 500) -> None:
    """`bulk_create(objs)` of new instances, in their order (the ids one by one would give them),
    without the ORM's compiling of every value (9,000 knowledge records took 12 s profiled to
    compile): a collision raises IntegrityError as bulk_create does. Each gets its primary key back
    by `key`, fields unique together (the last one varies: looked up in chunks), as saved rows."""
    if not objs:
        return
    model, alias = _insert_instances(objs, ignore=False, batch_size=batch_size)
    by_key = {tuple(getattr(obj, name) for name in key): obj for obj in objs}
    groups: dict[tuple, list] = {}
    for values in by_key:
        groups.setdefault(values[:-1], []).append(values[-1])
    for head, lasts in groups.items():
        rows = model._base_manager.using(alias).filter(**dict(zip(key[:-1], head, strict=True)))
        for last, pk in chunked_in(rows.values_list(key[-1], "pk"), key[-1], lasts):
            obj = by_key[(*head, last)]
            obj.pk = pk
            obj._state.adding, obj._state.db = False, alias


def _insert_instances(objs: Sequence[models.Model], *, ignore: bool, batch_size: int):
    if not objs:
        return None, None
    model = type(objs[0])
    alias = router.db_for_write(model)
    connection = connections[alias]
    columns = converters(model, connection)
    quote = connection.ops.quote_name
    sql = (
        f"INSERT INTO {quote(model._meta.db_table)} ({', '.join(quote(f.column) for f, _ in columns)}) "
        f"VALUES ({', '.join(['%s'] * len(columns))})" + (" ON CONFLICT DO NOTHING" if ignore else "")
    )
    rows = []
    for obj in objs:
        row = []
        for field, convert in columns:
            if getattr(field, "auto_now", False) or getattr(field, "auto_now_add", False):
                value = field.pre_save(obj, add=True)
            else:
                value = getattr(obj, field.attname)
                if value is None and field.has_default() and not field.null:
                    value = field.get_default()
            row.append(value if convert is None or value is None else convert(value))
        rows.append(row)
    with connection.cursor() as cursor:
        for start in range(0, len(rows), batch_size):
            cursor.executemany(sql, rows[start : start + batch_size])
    return model, alias


@dataclass
class Rows:
    """Rows of one table as plain tuples, in the order of `names` (`attname`s): what the importer's
    hot path builds instead of model instances (importer-reliability.md §15: `__init__` and the
    ORM's per-value work are the cost, not the database)."""

    model: type[models.Model]
    names: tuple[str, ...]
    values: list[tuple]
    # Columns whose values are given as the database stores them (packed already, where a field packs
    # its values): written as they are, never converted again.
    ready: frozenset[str] = frozenset()

    def __len__(self) -> int:
        return len(self.values)


@cache
def _insert_plan(
    model: type[models.Model],
    names: tuple[str, ...],
    alias: str,
    ignore: bool,
    ready: frozenset[str] = frozenset(),
):
    connection = connections[alias]
    by_name = {field.attname: (field, convert) for field, convert in converters(model, connection)}
    columns = [by_name[name] for name in names]
    quote = connection.ops.quote_name
    sql = (
        f"INSERT INTO {quote(model._meta.db_table)} ({', '.join(quote(f.column) for f, _ in columns)}) "
        f"VALUES ({', '.join(['%s'] * len(columns))})" + (" ON CONFLICT DO NOTHING" if ignore else "")
    )
    # bytes go to both drivers as they are (BLOB, bytea): only dates and JSON need the field.
    converted = []
    for i, (field, convert) in enumerate(columns):
        if convert is None or isinstance(field, models.BinaryField) or field.attname in ready:
            continue
        if isinstance(field, models.JSONField):
            convert = _json_converter(convert)
        elif isinstance(field, models.DateTimeField) and connection.vendor == "sqlite":
            convert = _sqlite_utc_converter(convert, connection)
        converted.append((i, convert))
    return sql, converted


def _sqlite_utc_converter(convert: Callable, connection) -> Callable:
    """SQLite stores an aware datetime as its naive UTC text (Django's adapt_datetimefield_value);
    a value already in UTC, as every imported stamp is, needs only that text."""
    if connection.timezone != UTC:
        return convert

    def datetime_value(value):
        return str(value.replace(tzinfo=None)) if value.tzinfo is UTC else convert(value)

    return datetime_value


def stores_utc_text(model: type[models.Model]) -> bool:
    """Whether `model`'s rows go to SQLite in UTC, which stores an aware UTC datetime as its naive
    text (`str(value.replace(tzinfo=None))`, as `_sqlite_utc_converter` gives it) and a JSON value
    as `json.dumps`' text: a caller may build those texts itself and name the columns `ready`."""
    connection = connections[router.db_for_write(model)]
    return connection.vendor == "sqlite" and connection.timezone == UTC


def _json_converter(convert: Callable) -> Callable:
    """The field's JSON conversion, with the empty list (most rows' flags) converted once."""
    empty = convert([])

    def json_value(value):
        return empty if value == [] else convert(value)

    return json_value


def insert_rows(rows: Rows, *, ignore_conflicts: bool = True) -> int:
    """Write `rows` with one `executemany` (`ON CONFLICT DO NOTHING` unless told otherwise): table
    and column names come from the model's `_meta`, each value is converted only where its field
    needs it (dates, JSON), so SQLite and PostgreSQL get what the ORM would have sent. Returns how
    many rows went in (fewer than given: conflicts ignored)."""
    if not rows.values:
        return 0
    alias = router.db_for_write(rows.model)
    sql, converted = _insert_plan(rows.model, rows.names, alias, ignore_conflicts, rows.ready)
    values = rows.values
    if converted:
        values = []
        for row in rows.values:
            row = list(row)
            for i, convert in converted:
                if row[i] is not None:
                    row[i] = convert(row[i])
            values.append(row)
    connection = connections[alias]
    if connection.vendor == "postgresql" and connection.in_atomic_block and len(values) >= COPY_FROM:
        return copy_rows(connection, rows.model, rows.names, values, ignore_conflicts=ignore_conflicts)
    with connection.cursor() as cursor:
        cursor.executemany(sql, values)
        return cursor.rowcount  # both drivers: the sum over the rows


# PostgreSQL: a batch this large goes through COPY (importer-reliability.md §11; measured on the
# small bench corpus, executemany took 7.8 s of an 11 s import pass there).
COPY_FROM = 100


def copy_rows(connection, model, names, values, *, ignore_conflicts: bool) -> int:
    """psycopg 3 `COPY … FROM STDIN` into a temporary staging table, then one
    `INSERT … SELECT … ON CONFLICT DO NOTHING` into the table: idempotent like the plain insert.

    Only inside a transaction (the caller checks): the staging rows go at its commit (ON COMMIT
    DELETE ROWS) or with its rollback, so a batch never sees another batch's rows.
    """
    quote = connection.ops.quote_name
    fields = {field.attname: field for field in model._meta.concrete_fields}
    columns = ", ".join(quote(fields[name].column) for name in names)
    table = quote(model._meta.db_table)
    stage = quote(f"stage_{model._meta.db_table}")
    with connection.cursor() as cursor:
        cursor.execute(
            f"CREATE TEMP TABLE IF NOT EXISTS {stage} ON COMMIT DELETE ROWS "
            f"AS SELECT {columns} FROM {table} WITH NO DATA"
        )
        cursor.execute(f"TRUNCATE {stage}")
        # The driver's own cursor: its errors (a full disk) become Django's, as every other
        # statement's do, so the importer reports them as it does those.
        with (
            connection.wrap_database_errors,
            cursor.cursor.copy(f"COPY {stage} ({columns}) FROM STDIN") as copy,
        ):
            for row in values:
                copy.write_row(row)
        # A freshly filled temporary table is read back in the order it was written (never in
        # parallel), so ids keep the batch's order as executemany gave them.
        cursor.execute(
            f"INSERT INTO {table} ({columns}) SELECT {columns} FROM {stage}"
            + (" ON CONFLICT DO NOTHING" if ignore_conflicts else "")
        )
        inserted = cursor.rowcount
        cursor.execute(f"TRUNCATE {stage}")
    return inserted


def chunked_in(queryset, field: str, values, *, size: int = 500) -> list:
    """`queryset.filter(<field>__in=values)` in chunks: a gzip member can hold far more lines than
    SQLite allows bound parameters in one statement."""
    values = list(values)
    out = []
    for start in range(0, len(values), size):
        out.extend(queryset.filter(**{f"{field}__in": values[start : start + size]}))
    return out


def quoted(model: type[models.Model], connection) -> tuple[str, Callable[[str], str]]:
    """`model`'s table name quoted for `connection`, and its column of an `attname` ("pk": the
    primary key's), quoted."""
    quote = connection.ops.quote_name
    columns = {f.attname: f.column for f in model._meta.concrete_fields} | {"pk": model._meta.pk.column}
    return quote(model._meta.db_table), lambda name: quote(columns[name])


def select_in(
    model: type[models.Model],
    names: Sequence[str],
    field: str,
    values,
    *,
    size: int = 500,
    stored: Sequence[str] = (),
) -> list[tuple]:
    """The `names` columns (`attname`s, plain fields only: no conversion) of `model`'s rows whose
    `field` is one of `values`, as tuples, in chunks of `size` bound parameters: `chunked_in` with a
    `values_list`, without compiling a queryset per chunk. The importer looks up every line of a batch
    by its hash, and the ORM's lookup compiled each of the 500 values of each chunk (issue 29).
    `stored`: DateTimeFields of `names` read as lib/stamps.py's `column` reads them (SQLite's stored
    text, for `stamps.reader()`), not through the driver's converter."""
    values = list(values)
    if not values:
        return []
    connection = connections[router.db_for_read(model)]
    table, column = quoted(model, connection)
    texts = stored if connection.vendor == "sqlite" else ()
    selected = [f"CAST({column(name)} AS TEXT)" if name in texts else column(name) for name in names]
    head = f"SELECT {', '.join(selected)} FROM {table} WHERE {column(field)} IN "
    out: list[tuple] = []
    with connection.cursor() as cursor:
        for chunk in batched(values, size):
            cursor.execute(f"{head}({', '.join(['%s'] * len(chunk))})", chunk)
            out.extend(map(tuple, cursor.fetchall()))
    return out


def insert_values(
    model: type[models.Model], names: Sequence[str], rows: Iterable[Sequence], *, batch_size: int = 500
) -> None:
    """Insert rows given as plain values of the named fields (`attname`s), without building model
    instances: for derived rows written by the ten thousand, where `__init__` is the cost."""
    connection = connections[router.db_for_write(model)]
    by_name = {field.attname: (field, convert) for field, convert in converters(model, connection)}
    columns = [by_name[name] for name in names]
    quote = connection.ops.quote_name
    sql = (
        f"INSERT INTO {quote(model._meta.db_table)} ({', '.join(quote(f.column) for f, _ in columns)}) "
        f"VALUES ({', '.join(['%s'] * len(columns))})"
    )
    converted = (
        [
            value if convert is None or value is None else convert(value)
            for (_, convert), value in zip(columns, row, strict=True)
        ]
        for row in rows
    )
    with connection.cursor() as cursor:
        for batch in batched(converted, batch_size):
            cursor.executemany(sql, batch)


def update_all(objs: Sequence[models.Model]) -> None:
    """`obj.save()` of many rows that exist, in one `executemany` of `UPDATE … WHERE pk`: every
    concrete field written, `auto_now` stamped, no signals. A rebuild saved its sessions one by one,
    and a session's `save()` cost more than deriving it (issue 29)."""
    if not objs:
        return
    model = type(objs[0])
    connection = connections[router.db_for_write(model)]
    columns = converters(model, connection)
    quote = connection.ops.quote_name
    pk = model._meta.pk
    sql = (
        f"UPDATE {quote(model._meta.db_table)} SET "
        f"{', '.join(f'{quote(field.column)} = %s' for field, _ in columns)} WHERE {quote(pk.column)} = %s"
    )
    # The attribute, or what the field's own pre_save gives (now, for `auto_now`): a field that
    # keeps Field.pre_save is read by its attname (pre_save's call, ten thousand sessions × forty
    # fields, was most of a cold derive's save; issue 29).
    reads = [
        (field.attname, None if type(field).pre_save is models.Field.pre_save else field.pre_save, convert)
        for field, convert in columns
    ]
    rows = []
    for obj in objs:
        row = []
        for attname, pre_save, convert in reads:
            value = getattr(obj, attname) if pre_save is None else pre_save(obj, add=False)
            row.append(value if convert is None or value is None else convert(value))
        row.append(obj.pk)
        rows.append(row)
    with connection.cursor() as cursor:
        cursor.executemany(sql, rows)


def fetch_rows(queryset) -> list[tuple]:
    """A `values_list` queryset's rows as the driver gives them, in one `fetchall`: without the
    ORM's chunked iterator and per-row hooks (a third of reading a million events; issue 29). Only
    for columns no converter changes (plain fields, a SQLite stamp read as text: lib/stamps.py)."""
    sql, params = queryset.query.get_compiler(using=queryset.db).as_sql()
    with connections[queryset.db].cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


def update_values(model: type[models.Model], names: Sequence[str], rows: Iterable[Sequence]) -> None:
    """`UPDATE … SET` the named fields (`attname`s, plain values: no conversion) of rows by primary
    key, in one `executemany`: each row its values in `names` order, then its pk. A cold load moved
    or counted again thousands of events, each with a queryset's update of its own (issue 29)."""
    rows = list(rows)
    if not rows:
        return
    connection = connections[router.db_for_write(model)]
    table, column = quoted(model, connection)
    sql = (
        f"UPDATE {table} SET {', '.join(f'{column(name)} = %s' for name in names)} WHERE {column('pk')} = %s"
    )
    with connection.cursor() as cursor:
        cursor.executemany(sql, rows)


def save_racing(obj: models.Model, **lookup) -> None:
    """Save `obj`; when it is new and another importer (another host on one PostgreSQL database)
    inserted the same natural key meanwhile, adopt that row's primary key and update it instead of
    failing the pass on the unique constraint."""
    if obj.pk is not None:
        obj.save()
        return
    try:
        with transaction.atomic():  # a savepoint: the failed insert must not poison the outer transaction
            obj.save()
    except IntegrityError:
        obj.pk = type(obj).objects.filter(**lookup).values_list("pk", flat=True).get()
        obj._state.adding = False
        obj.save()
