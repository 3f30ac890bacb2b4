"""Base serializers shared by every app's API."""

from collections.abc import Mapping
from typing import Any

from rest_framework import serializers
from rest_framework.exceptions import ErrorDetail, ValidationError

from cya_site.routes import MAX_ID


class StrictInputSerializer(serializers.Serializer[Any]):
    """An input serializer that rejects fields it does not declare.

    A misspelt optional field would otherwise be dropped silently and the request
    would run with the default; instead each unknown field gets ``unknown_field``.
    """

    def to_internal_value(self, data: Any) -> dict[str, Any]:
        """Validate the declared fields, and refuse any undeclared ones."""
        unknown: dict[str, Any] = {}
        if isinstance(data, Mapping):
            unknown = {
                name: [ErrorDetail("Unknown field.", code="unknown_field")]
                for name in sorted(set(data) - set(self.fields))
            }
        try:
            value: dict[str, Any] = super().to_internal_value(data)
        except ValidationError as error:
            if unknown and isinstance(error.detail, dict):
                raise ValidationError({**error.detail, **unknown}) from None
            raise
        if unknown:
            raise ValidationError(unknown)
        return value


class IdField(serializers.IntegerField):
    """A row's id in a body or a query: an integer from 0 to ``MAX_ID``.

    Past that range it is no row's id, and refused (``max_value``, ``min_value``) before a
    query the database driver cannot bind (SQLite raises OverflowError on it).
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(min_value=0, max_value=MAX_ID, **kwargs)
