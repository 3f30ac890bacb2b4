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


# Text without NUL characters: DRF and Django forms refuse them (PostgreSQL cannot store
# one), so every text the API reads says so.
NO_NUL = "^[^\\u0000]*$"


def text_input_rules(result: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """What every text input must be, said in the schema as the code refuses it.

    A text query parameter needs a value (``?status=`` is refused as ``blank`` by
    cya_site.viewsets.query_check: ``minLength: 1``), and no text the API reads, in a
    query or a body, holds a NUL character (``pattern``, unless the field has its own).
    """
    for path_item in result.get("paths", {}).values():
        for operation in path_item.values():
            for parameter in operation.get("parameters", []):
                schema = parameter.get("schema", {})
                if parameter.get("in") == "query" and schema.get("type") == "string":
                    schema.setdefault("minLength", 1)
                    _no_nul(schema)
    for name, schema in result.get("components", {}).get("schemas", {}).items():
        if name.endswith("Request"):  # an input (COMPONENT_SPLIT_REQUEST)
            _no_nul(schema)
    return result


def _no_nul(schema: dict[str, Any]) -> None:
    if schema.get("type") == "string" and not {"enum", "format", "pattern"} & schema.keys():
        schema["pattern"] = NO_NUL
    for child in schema.get("properties", {}).values():
        _no_nul(child)
    for key in ("items", "additionalProperties"):
        if isinstance(schema.get(key), dict):
            _no_nul(schema[key])
    for key in ("allOf", "oneOf", "anyOf"):
        for child in schema.get(key, []):
            _no_nul(child)


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
        exactly_one = getattr(serializer, "exactly_one_of", ())
        if exactly_one:  # the serializer's validate() refuses both and neither
            schema["oneOf"] = [{"required": [name]} for name in exactly_one]
        if "__doc__" not in vars(serializer) or serializer.__doc__ is None:
            schema.pop("description", None)
        return schema
