"""Base serializers shared by every app's API."""

import copy
from collections.abc import Mapping
from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.exceptions import ErrorDetail, ValidationError
from rest_framework.utils import html

from cya_site.routes import MAX_ID

# The JSON type each kind of field reads, and what a value of another type is told. The
# first match wins: BooleanField before IntegerField, since True is an int in Python.
_JSON_TYPES: tuple[
    tuple[type[serializers.Field[Any, Any, Any, Any]], type | tuple[type, ...], str], ...
] = (
    (serializers.BooleanField, bool, "Expected true or false."),
    (serializers.IntegerField, int, "Expected a whole number."),
    (serializers.FloatField, (int, float), "Expected a number."),
    (serializers.DecimalField, (int, float), "Expected a number."),
    (serializers.CharField, str, "Expected a string."),
    (serializers.ChoiceField, str, "Expected a string."),
    (serializers.DateField, str, "Expected a date as a string."),
    (serializers.DateTimeField, str, "Expected a date and time as a string."),
)


class StrictInputSerializer(serializers.Serializer[Any]):
    """An input serializer that rejects fields it does not declare, and values of another
    JSON type than the field's.

    A misspelt optional field would otherwise be dropped silently and the request
    would run with the default; instead each unknown field gets ``unknown_field``. DRF
    would also read ``"3"`` as 3, ``0`` as ``"0"`` and ``"yes"`` as true; a JSON body
    gets the types the schema documents, or ``invalid`` naming the field. (A query string
    has only strings: it is read the usual way.)

    Each instance gets its own fields as DRF's do, copied more cheaply (``_own_copy``):
    an action's body is validated on every move, and DRF's deep copy of three fields cost
    it more than the rest of its validation.
    """

    def get_fields(self) -> dict[str, serializers.Field[Any, Any, Any, Any]]:
        """The declared fields, each a copy of this instance's own (``_own_copy``)."""
        return {name: _own_copy(field) for name, field in self._declared_fields.items()}

    def to_internal_value(self, data: Any) -> dict[str, Any]:
        """Validate the declared fields, and refuse any undeclared or mistyped ones."""
        refused: dict[str, Any] = {}
        if isinstance(data, Mapping):
            refused = {
                name: [ErrorDetail("Unknown field.", code="unknown_field")]
                for name in sorted(set(data) - set(self.fields))
            }
            if not html.is_html_input(data):
                refused.update(_mistyped(self.fields, data))
        try:
            value: dict[str, Any] = super().to_internal_value(data)
        except ValidationError as error:
            if refused and isinstance(error.detail, dict):
                raise ValidationError({**error.detail, **refused}) from None
            raise
        if refused:
            raise ValidationError(refused)
        return value


def _own_copy(
    field: serializers.Field[Any, Any, Any, Any],
) -> serializers.Field[Any, Any, Any, Any]:
    """A copy of a declared field for one serializer instance to bind (``Field.bind`` sets
    its name, parent, label and source on the copy). A field that holds no other is copied
    shallowly: what it was built with is never changed after ``__init__``, and its list of
    validators is copied too. A field that holds others (a list's child, a nested
    serializer, bound to the field that holds them) gets DRF's deep copy."""
    state = vars(field)
    if (
        isinstance(field, serializers.BaseSerializer)
        or "child" in state
        or "child_relation" in state
    ):
        return copy.deepcopy(field)
    clone = type(field).__new__(type(field))  # copy.copy, without its generic machinery
    clone.__dict__.update(state)
    clone.validators = list(field.validators)
    return clone


class IdField(serializers.IntegerField):
    """A row's id in a body or a query: an integer from 0 to ``MAX_ID``.

    Past that range it is no row's id, and refused (``max_value``, ``min_value``) before a
    query the database driver cannot bind (SQLite raises OverflowError on it).
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(min_value=0, max_value=MAX_ID, **kwargs)


@extend_schema_field({"type": "string", "format": "uri", "maxLength": 500})
class WebhookUrlField(serializers.CharField):
    """A webhook's address: a URI of up to 500 characters, as far as the schema says.

    ``cya_site.outbound.url_check`` judges the rest (http or https, no user name, a host
    that can be read, resolves, and leads only to allowed addresses) and refuses with
    422, as a URI the ``uri`` format admits may still name a host no resolver knows.
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(max_length=500, **kwargs)


def _mistyped(
    fields: Mapping[str, serializers.Field[Any, Any, Any, Any]], data: Mapping[str, Any]
) -> dict[str, Any]:
    found = {}
    for name, field in fields.items():
        if name in data and not field.read_only:
            problem = _json_type_problem(field, data[name])
            if problem is not None:
                found[name] = problem
    return found


def _json_type_problem(field: serializers.Field[Any, Any, Any, Any], value: Any) -> Any:
    """What is wrong with ``value``'s JSON type for ``field``, or None."""
    if value is None:  # allow_null decides, as DRF does
        return None
    if isinstance(field, serializers.ListField):
        if not isinstance(value, list):
            return [ErrorDetail("Expected a list.", code="not_a_list")]
        items = {i: _json_type_problem(field.child, item) for i, item in enumerate(value)}
        return {i: problem for i, problem in items.items() if problem is not None} or None
    if isinstance(field, serializers.DictField):
        return (
            None
            if isinstance(value, dict)
            else [ErrorDetail("Expected an object.", code="not_a_dict")]
        )
    for kind, json_type, message in _JSON_TYPES:
        if isinstance(field, kind):
            wrong = not isinstance(value, json_type) or (
                isinstance(value, bool) and json_type is not bool
            )
            return [ErrorDetail(message, code="invalid")] if wrong else None
    return None  # JSONField and nested serializers check themselves
