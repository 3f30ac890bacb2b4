"""The stream's place in the OpenAPI schema: ``GET /api/v1/games/{id}/stream/`` is an
async view outside DRF (games.api.stream), so a drf-spectacular postprocessing hook
(``SPECTACULAR_SETTINGS``) describes it and its four kinds of line."""

from __future__ import annotations

from typing import Any

from cya_site.routes import MAX_ID

_LINE_SCHEMAS: dict[str, tuple[str, dict[str, Any]]] = {
    "StreamGameLine": ("game", {"game": {"$ref": "#/components/schemas/GameStatus"}}),
    "StreamDecisionLine": ("decision", {"decision": {"$ref": "#/components/schemas/Decision"}}),
    "StreamUpdateLine": (
        "update",
        {
            "game": {"$ref": "#/components/schemas/GameStatus"},
            "entries": {"type": "array", "items": {"$ref": "#/components/schemas/LogEntry"}},
        },
    ),
    "StreamEndLine": ("end", {"game": {"$ref": "#/components/schemas/GameStatus"}}),
}


def document_stream(result: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """drf-spectacular postprocessing hook: this view is not DRF's, so describe it here."""
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    for name, (kind, properties) in _LINE_SCHEMAS.items():
        schemas[name] = {
            "type": "object",
            "properties": {"type": {"type": "string", "enum": [kind]}, **properties},
            "required": ["type", *properties],
        }
    result.setdefault("paths", {})["/api/v1/games/{id}/stream/"] = {
        "get": {
            "operationId": "games_stream",
            "summary": "Follow a game as it happens (NDJSON)",
            "description": (
                "A seat hears its decisions as they arise and answers each with POST"
                " /games/{id}/actions/; spectators (and seats with ?updates=true) hear every"
                " change. Anyone may watch: without credentials the stream is a"
                " spectator's. One JSON object per line; an empty line is a keep-alive. Served"
                " by the ASGI application (docs/games.md)."
            ),
            "tags": ["games"],
            "parameters": [
                {
                    "in": "path",
                    "name": "id",
                    "schema": {"type": "integer", "minimum": 0, "maximum": MAX_ID},
                    "required": True,
                },
                {
                    "in": "query",
                    "name": "updates",
                    "schema": {"type": "boolean", "default": False},
                    "description": "A seat also gets every update (spectators always do).",
                },
            ],
            "security": [{"bearerAuth": []}, {"cookieAuth": []}, {}],
            "responses": {
                "200": {
                    "description": "The stream: lines until the game ends.",
                    "content": {
                        "application/x-ndjson": {
                            "schema": {
                                "oneOf": [
                                    {"$ref": f"#/components/schemas/{name}"}
                                    for name in _LINE_SCHEMAS
                                ]
                            }
                        }
                    },
                }
            },
        }
    }
    return result
