"""Statements for the hottest paths, built once per process instead of on every call.

Submitting an action runs the same handful of statements thousands of times a minute, and
the ORM spends several times more CPU building each one (resolving lookups, compiling
joins and ordering) than the database spends running it. This module keeps the ORM's
meaning and drops that cost: column lists come from the models' ``_meta``, values are
prepared by the fields themselves (``get_db_prep_save``) and read back through the same
converters the ORM applies, so these rows are exactly what the ORM would read and write.
Only the SQL text is written by hand, and built once.

Use it where a profile shows the ORM's overhead matters; everything else uses the ORM.
Writes here send no model signals (the platform connects none to these models).

On PostgreSQL these statements also skip what the ORM's cursors cost on every run
(``cursor``): their parameters are bound by the server, so a snapshot's kilobytes travel
as they are instead of being escaped into the SQL text, and each statement is prepared
once per connection, so the server parses and plans it once, not on every action.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import cache
from typing import Any, TypeVar, cast

from django.db import DEFAULT_DB_ALIAS, connection, connections
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.backends.utils import CursorDebugWrapper, CursorWrapper
from django.db.models import Field, Model

M = TypeVar("M", bound=Model)
Converter = Callable[[Any, Any, Any], Any]


def _db() -> BaseDatabaseWrapper:
    """This thread's connection itself. ``connection`` is a proxy that looks the thread's
    connection up again at every attribute read (a couple of microseconds each), and an
    action read it some fifty times: these functions look it up once, and hand the
    connection itself to the fields, converters and cursors they call."""
    return connections[DEFAULT_DB_ALIAS]


def quote(name: str) -> str:
    """A table or column name, quoted for the database."""
    return str(connection.ops.quote_name(name))


class Columns:
    """Every concrete column of a model as ``alias.column`` in a SELECT, and the way back
    from the selected values to a model instance."""

    def __init__(self, model: type[Model], alias: str) -> None:
        self.model = model
        self.alias = alias
        self.fields: list[Field[Any, Any]] = list(model._meta.concrete_fields)
        self.attnames = [f.attname for f in self.fields]
        self.pk_index = self.attnames.index(model._meta.pk.attname)

    def __len__(self) -> int:
        return len(self.fields)

    @property
    def sql(self) -> str:
        """The select list: ``alias."column", ...``."""
        return ", ".join(f"{self.alias}.{quote(f.column)}" for f in self.fields)

    @property
    def table(self) -> str:
        """``"table" alias`` for a FROM or JOIN clause."""
        return f"{quote(self.model._meta.db_table)} {self.alias}"

    def load(self, values: Sequence[Any]) -> Model | None:
        """The instance these values describe; None for a LEFT JOIN that found no row."""
        if values[self.pk_index] is None:
            return None
        db = _db()
        converted = [
            _convert(value, converters, db)
            for value, converters in zip(values, self._converters(), strict=True)
        ]
        return self.model.from_db(db.alias, self.attnames, converted)

    def _converters(self) -> list[list[tuple[Converter, Any]]]:
        return _converters_of(self.model, self.alias)


@cache
def _converters_of(model: type[Model], alias: str) -> list[list[tuple[Converter, Any]]]:
    """What the ORM's compiler applies to each column's raw value (backend, then field)."""
    out = []
    for field in model._meta.concrete_fields:
        column = field.get_col(alias)
        found = connection.ops.get_db_converters(column) + column.get_db_converters(connection)
        out.append([(converter, column) for converter in found])
    return out


def _convert(value: Any, converters: list[tuple[Converter, Any]], db: BaseDatabaseWrapper) -> Any:
    for converter, column in converters:
        value = converter(value, column, db)
    return value


@contextmanager
def cursor() -> Iterator[CursorWrapper]:
    """A cursor for statements run again and again with new values (this module's).

    On PostgreSQL it binds parameters on the server and prepares each statement the first
    time a connection runs it (psycopg's ``prepare=True``): the server keeps the plan for
    the connection's life, and Django keeps connections (``CONN_MAX_AGE``). Parameters
    bound by the server are typed by psycopg, so a value whose type the statement cannot
    infer (an INSERT ... SELECT list, say) needs a cast in the SQL. Everywhere else it is
    Django's own cursor. Like ``connection.cursor()``, it runs the connection health
    check, joins the current transaction and is logged in tests' query captures.
    """
    db = _db()
    if db.vendor != "postgresql":
        with db.cursor() as plain:
            yield plain
        return
    db.close_if_health_check_failed()
    db.ensure_connection()
    with db.wrap_database_errors:
        raw = _prepared_cursor_class()(db.connection)
    db.validate_thread_sharing()
    wrapper = _LoggedCursor if db.queries_logged else CursorWrapper
    with wrapper(raw, db) as wrapped:
        yield wrapped


class _LoggedCursor(CursorDebugWrapper):
    """Django's query log (DEBUG, tests' query captures) for a server-binding cursor, whose
    statement Django cannot read back: the logged SQL has the values filled in."""

    def execute(self, sql: Any, params: Any = None) -> Any:
        shown = self.db.ops.compose_sql(sql, params)
        with self.debug_sql(shown, params, use_last_executed_query=False):
            return CursorWrapper.execute(self, sql, params)


@cache
def _prepared_cursor_class() -> type[Any]:
    """Django's server-binding psycopg cursor, preparing every statement it runs."""
    from django.db.backends.postgresql import base  # psycopg 3 only: imported here

    class PreparedCursor(base.ServerBindingCursor):  # type: ignore[name-defined, misc]
        def execute(self, query: Any, params: Any = None, **options: Any) -> Any:
            return super().execute(query, params, prepare=True, **options)

    return PreparedCursor


@contextmanager
def pipeline() -> Iterator[None]:
    """Send the statements run in the block without waiting for each one's result; the
    block's end waits for them all: one round trip for the lot (psycopg's pipeline mode).

    Read results after the block (a fetch inside it waits for everything sent so far). In
    autocommit mode the block's statements run as one implicit transaction: all or none.
    PostgreSQL only; elsewhere the statements run one by one, as they would without it.
    """
    db = _db()
    if db.vendor != "postgresql":
        yield
        return
    db.close_if_health_check_failed()  # its SELECT 1 must not ride in the batch
    db.ensure_connection()
    with db.wrap_database_errors, db.connection.pipeline():
        yield


def fetch_one(sql: str, params: Sequence[Any], columns: Sequence[Columns]) -> list[Any] | None:
    """Run a SELECT of ``columns`` (in that order) and load the first row's instances."""
    with cursor() as c:
        c.execute(sql, params)
        row = c.fetchone()
    return None if row is None else _load(row, columns)


def fetch_all(sql: str, params: Sequence[Any], columns: Sequence[Columns]) -> list[list[Any]]:
    """Run a SELECT of ``columns`` (in that order) and load every row's instances."""
    with cursor() as c:
        c.execute(sql, params)
        found = c.fetchall()
    return [_load(row, columns) for row in found]


def _load(row: Sequence[Any], columns: Sequence[Columns]) -> list[Any]:
    out, start = [], 0
    for part in columns:
        out.append(part.load(row[start : start + len(part)]))
        start += len(part)
    return out


def insert(instance: Model) -> None:
    """INSERT a new instance and set its primary key, as ``save()`` would."""
    with cursor() as c:
        c.execute(_insert_sql(type(instance)), insert_values(instance))
        pk = c.fetchone()[0] if connection.features.can_return_columns_from_insert else None
        if pk is None:
            pk = c.lastrowid
    inserted(instance, pk)


def update(instance: Model, field_names: Sequence[str]) -> int:
    """UPDATE the named fields of a saved instance; the number of rows changed (0 or 1)."""
    values = prepared(instance, field_names)
    with cursor() as c:
        c.execute(_update_sql(type(instance), tuple(field_names)), [*values, instance.pk])
        return int(c.rowcount)


def prepared(instance: Model, field_names: Sequence[str]) -> list[Any]:
    """The named fields' values as ``update`` sends them, for a statement of one's own."""
    fields, db = _fields(type(instance), tuple(field_names)), _db()
    return [f.get_db_prep_save(f.pre_save(instance, False), db) for f in fields]


def insert_values(instance: Model) -> list[Any]:
    """A new instance's values as ``insert`` sends them (every column but the key), for a
    statement of one's own (``insert_from``)."""
    fields, db = _insert_fields(type(instance)), _db()
    return [f.get_db_prep_save(f.pre_save(instance, True), db) for f in fields]


def inserted(instance: Model, pk: Any) -> None:
    """Mark an instance written by a statement of one's own as saved, with its key."""
    instance.pk = pk
    instance._state.adding = False
    instance._state.db = DEFAULT_DB_ALIAS  # the alias every statement here runs on


@cache
def _insert_fields(model: type[Model]) -> list[Field[Any, Any]]:
    return [f for f in model._meta.concrete_fields if not f.primary_key]


@cache
def _insert_sql(model: type[Model]) -> str:
    fields = _insert_fields(model)
    columns = ", ".join(quote(f.column) for f in fields)
    marks = ", ".join(["%s"] * len(fields))
    sql = f"INSERT INTO {quote(model._meta.db_table)} ({columns}) VALUES ({marks})"
    if connection.features.can_return_columns_from_insert:
        sql += f" RETURNING {quote(model._meta.pk.column)}"
    return sql


@cache
def insert_from(model: type[Model], source: str) -> str:
    """``INSERT INTO <model> (...) SELECT %s, ... FROM <source> RETURNING <pk>``: a row
    written once for each row of ``source`` (a WITH clause), that is, only if it has one.
    The values are ``insert_values``; each is cast to its column's type, which a SELECT
    list cannot infer (PostgreSQL)."""
    fields = _insert_fields(model)
    columns = ", ".join(quote(f.column) for f in fields)
    values = ", ".join(f"%s::{cast(Any, f).cast_db_type(connection)}" for f in fields)
    return (
        f"INSERT INTO {quote(model._meta.db_table)} ({columns}) SELECT {values} FROM {source}"
        f" RETURNING {quote(model._meta.pk.column)}"
    )


def assignments(model: type[Model], field_names: Sequence[str]) -> str:
    """``"column" = %s, ...`` for the named fields: the SET list ``prepared`` fills."""
    return ", ".join(f"{quote(_field(model, name).column)} = %s" for name in field_names)


@cache
def _update_sql(model: type[Model], field_names: tuple[str, ...]) -> str:
    sets = assignments(model, field_names)
    pk = quote(model._meta.pk.column)
    return f"UPDATE {quote(model._meta.db_table)} SET {sets} WHERE {pk} = %s"


@cache
def _fields(model: type[Model], names: tuple[str, ...]) -> list[Field[Any, Any]]:
    return [_field(model, name) for name in names]


def _field(model: type[Model], name: str) -> Field[Any, Any]:
    field = model._meta.get_field(name)
    if not isinstance(field, Field) or not field.concrete:
        raise TypeError(f"{model.__name__}.{name} is not a column")
    return field


def table(model: type[Model]) -> str:
    """A model's table name, quoted: for the target of an UPDATE or INSERT."""
    return quote(model._meta.db_table)


def column(model: type[Model], field_name: str) -> str:
    """A field's column name, quoted and unqualified: for a SET list or an INSERT's columns
    (``"game"`` gives ``"game_id"``; ``"pk"`` the primary key's column)."""
    if field_name == "pk":
        return quote(model._meta.pk.column)
    return quote(_field(model, field_name).column)


class Table:
    """A model's table under an alias, for a statement written by hand with names from
    ``_meta``: ``str()`` is ``"table" alias`` (for FROM, JOIN, UPDATE) and each field is an
    attribute giving its qualified column, ``alias."column"`` (a foreign key's ``_id``
    column under the field's name). A renamed table or column follows the model."""

    def __init__(self, model: type[Model], alias: str) -> None:
        self._model = model
        self._alias = alias

    def __str__(self) -> str:
        return f"{table(self._model)} {self._alias}"

    def __getattr__(self, field_name: str) -> str:
        if field_name.startswith("_"):
            raise AttributeError(field_name)
        return f"{self._alias}.{column(self._model, field_name)}"
