"""drf-spectacular hooks: document the one error shape on every operation, and that
strict input serializers refuse properties they do not declare."""

from typing import Any

from drf_spectacular.extensions import OpenApiSerializerExtension

ERROR_COMPONENT = {
    "type": "object",
    "description": "Every error response: see docs/errors.md for the stable codes.",
    "properties": {
        "code": {"type": "string", "description": "Stable snake_case error code."},
        "message": {"type": "string", "description": "Human-readable explanation."},
        "details": {
            "type": "object",
            "additionalProperties": True,
            "description": "Machine-readable specifics, such as field errors.",
        },
        "request_id": {
            "type": "string",
            "description": "The request's id, also in the X-Request-ID header: quote it "
            "when reporting the error.",
        },
    },
    "required": ["code", "message", "details", "request_id"],
}


def add_error_responses(result: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """Add the Error component and a ``default`` error response to every operation."""
    result.setdefault("components", {}).setdefault("schemas", {})["Error"] = ERROR_COMPONENT
    response = {
        "description": "Error (see the code)",
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
    }
    for path_item in result.get("paths", {}).values():
        for operation in path_item.values():
            operation.setdefault("responses", {}).setdefault("default", response)
    return result


# drf-spectacular's extension registry hook (__init_subclass__) is untyped.
class StrictInputSchema(OpenApiSerializerExtension):  # type: ignore[no-untyped-call]
    """cya_site.serializers.StrictInputSerializer: unknown fields get 400 ``unknown_field``."""

    target_class = "cya_site.serializers.StrictInputSerializer"
    match_subclasses = True

    def map_serializer(self, auto_schema: Any, direction: Any) -> dict[str, Any]:
        """The usual schema, closed with ``additionalProperties: false``.

        A serializer without a docstring of its own has no description, rather than the
        base class's, which said how validation works to every input of the schema.
        """
        schema: dict[str, Any] = auto_schema._map_serializer(
            self.target, direction, bypass_extensions=True
        )
        schema["additionalProperties"] = False
        serializer = self.target if isinstance(self.target, type) else type(self.target)
        if "__doc__" not in vars(serializer) or serializer.__doc__ is None:
            schema.pop("description", None)
        return schema
