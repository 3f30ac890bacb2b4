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
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cache
from typing import Any, TypeVar

from django.db import connection
from django.db.models import Field, Model

M = TypeVar("M", bound=Model)
Converter = Callable[[Any, Any, Any], Any]


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
        converted = [
            _convert(value, converters)
            for value, converters in zip(values, self._converters(), strict=True)
        ]
        return self.model.from_db(connection.alias, self.attnames, converted)

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


def _convert(value: Any, converters: list[tuple[Converter, Any]]) -> Any:
    for converter, column in converters:
        value = converter(value, column, connection)
    return value


def fetch_one(sql: str, params: Sequence[Any], columns: Sequence[Columns]) -> list[Any] | None:
    """Run a SELECT of ``columns`` (in that order) and load the first row's instances."""
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        row = cursor.fetchone()
    if row is None:
        return None
    out, start = [], 0
    for part in columns:
        out.append(part.load(row[start : start + len(part)]))
        start += len(part)
    return out


def insert(instance: Model) -> None:
    """INSERT a new instance and set its primary key, as ``save()`` would."""
    with connection.cursor() as cursor:
        cursor.execute(_insert_sql(type(instance)), _insert_values(instance))
        pk = cursor.fetchone()[0] if connection.features.can_return_columns_from_insert else None
        if pk is None:
            pk = cursor.lastrowid
    _inserted(instance, pk)


def update(instance: Model, field_names: Sequence[str]) -> int:
    """UPDATE the named fields of a saved instance; the number of rows changed (0 or 1)."""
    values = _update_values(instance, field_names)
    with connection.cursor() as cursor:
        cursor.execute(_update_sql(type(instance), tuple(field_names)), [*values, instance.pk])
        return int(cursor.rowcount)


def prepared(instance: Model, field_names: Sequence[str]) -> list[Any]:
    """The named fields' values as ``update`` sends them, for a statement of one's own."""
    return _update_values(instance, field_names)


def _insert_values(instance: Model) -> list[Any]:
    fields = [f for f in type(instance)._meta.concrete_fields if not f.primary_key]
    return [f.get_db_prep_save(f.pre_save(instance, True), connection) for f in fields]


def _update_values(instance: Model, field_names: Sequence[str]) -> list[Any]:
    fields = [_field(type(instance), name) for name in field_names]
    return [f.get_db_prep_save(f.pre_save(instance, False), connection) for f in fields]


def _inserted(instance: Model, pk: Any) -> None:
    instance.pk = pk
    instance._state.adding = False
    instance._state.db = connection.alias


def write(
    inserts: Sequence[Model] = (), updates: Sequence[tuple[Model, Sequence[str]]] = ()
) -> None:
    """INSERT new instances and UPDATE the named fields of saved ones, as ``insert`` and
    ``update`` do one by one. On PostgreSQL they go as one statement (each a data-modifying
    WITH clause): one round trip and one parse instead of one per row. They run on the
    same snapshot, so none may depend on another's effect (rows of different tables)."""
    if connection.vendor != "postgresql":
        for instance in inserts:
            insert(instance)
        for instance, names in updates:
            update(instance, names)
        return
    params: list[Any] = []
    for instance in inserts:
        params += _insert_values(instance)
    for instance, names in updates:
        params += [*_update_values(instance, names), instance.pk]
    shape = (
        tuple(type(instance) for instance in inserts),
        tuple((type(instance), tuple(names)) for instance, names in updates),
    )
    with connection.cursor() as cursor:
        cursor.execute(_write_sql(*shape), params)
        pks = cursor.fetchone()
    for instance, pk in zip(inserts, pks, strict=False):
        _inserted(instance, pk)


@cache
def _write_sql(
    inserts: tuple[type[Model], ...], updates: tuple[tuple[type[Model], tuple[str, ...]], ...]
) -> str:
    clauses = [f"i{n} AS ({_insert_sql(model)})" for n, model in enumerate(inserts)]
    clauses += [f"u{n} AS ({_update_sql(*update)})" for n, update in enumerate(updates)]
    pks = [f"(SELECT * FROM i{n})" for n in range(len(inserts))]
    return f"WITH {', '.join(clauses)} SELECT {', '.join(pks) or 'NULL'}"


@cache
def _insert_sql(model: type[Model]) -> str:
    fields = [f for f in model._meta.concrete_fields if not f.primary_key]
    columns = ", ".join(quote(f.column) for f in fields)
    marks = ", ".join(["%s"] * len(fields))
    sql = f"INSERT INTO {quote(model._meta.db_table)} ({columns}) VALUES ({marks})"
    if connection.features.can_return_columns_from_insert:
        sql += f" RETURNING {quote(model._meta.pk.column)}"
    return sql


def assignments(model: type[Model], field_names: Sequence[str]) -> str:
    """``"column" = %s, ...`` for the named fields: the SET list ``prepared`` fills."""
    return ", ".join(f"{quote(_field(model, name).column)} = %s" for name in field_names)


@cache
def _update_sql(model: type[Model], field_names: tuple[str, ...]) -> str:
    sets = assignments(model, field_names)
    pk = quote(model._meta.pk.column)
    return f"UPDATE {quote(model._meta.db_table)} SET {sets} WHERE {pk} = %s"


def _field(model: type[Model], name: str) -> Field[Any, Any]:
    field = model._meta.get_field(name)
    if not isinstance(field, Field) or not field.concrete:
        raise TypeError(f"{model.__name__}.{name} is not a column")
    return field
