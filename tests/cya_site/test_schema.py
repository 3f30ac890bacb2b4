from pathlib import Path

import pytest
import yaml
from django.core.management import call_command
from rest_framework.test import APIClient


def test_schema_generates_without_warnings_and_validates(tmp_path: Path) -> None:
    schema_file = tmp_path / "schema.yaml"

    call_command("spectacular", "--fail-on-warn", "--validate", "--file", str(schema_file))

    schema = yaml.safe_load(schema_file.read_text())
    assert schema["info"]["title"] == "Cover Your Assets platform API"
    assert "/api/v1/auth/login/" in schema["paths"]


def test_every_operation_documents_the_error_shape(tmp_path: Path) -> None:
    schema_file = tmp_path / "schema.yaml"
    call_command("spectacular", "--file", str(schema_file))
    schema = yaml.safe_load(schema_file.read_text())

    for path_item in schema["paths"].values():
        for operation in path_item.values():
            error = operation["responses"]["default"]["content"]["application/json"]
            assert error["schema"] == {"$ref": "#/components/schemas/Error"}
    required = schema["components"]["schemas"]["Error"]["required"]
    assert required == ["code", "message", "details", "request_id"]


def test_the_bearer_scheme_is_documented(tmp_path: Path) -> None:
    schema_file = tmp_path / "schema.yaml"
    call_command("spectacular", "--file", str(schema_file))
    schema = yaml.safe_load(schema_file.read_text())

    scheme = schema["components"]["securitySchemes"]["bearerAuth"]
    assert scheme == {"type": "http", "scheme": "bearer"}


@pytest.mark.django_db
def test_the_schema_and_its_docs_page_are_served(api: APIClient) -> None:
    schema = api.get("/api/v1/schema/")
    docs = api.get("/api/v1/docs/")

    assert schema.status_code == 200
    assert docs.status_code == 200
    assert b"swagger-ui" in docs.content
    assert b"cdn" not in docs.content.lower()  # assets come from drf-spectacular-sidecar


def test_every_idempotency_key_endpoint_documents_its_replay_alike(tmp_path: Path) -> None:
    schema_file = tmp_path / "schema.yaml"
    call_command("spectacular", "--file", str(schema_file))
    schema = yaml.safe_load(schema_file.read_text())

    keyed = {
        (path, method): operation
        for path, item in schema["paths"].items()
        for method, operation in item.items()
        if any(p["name"] == "Idempotency-Key" for p in operation.get("parameters", []))
    }

    assert set(keyed) == {
        ("/api/v1/games/{id}/actions/", "post"),
        ("/api/v1/recorded-games/{id}/rounds/", "post"),
    }
    for operation in keyed.values():
        first, replay = (
            operation["responses"][code]["content"]["application/json"]["schema"]
            for code in ("201", "200")
        )
        assert first == replay
        component = schema["components"]["schemas"][first["$ref"].rsplit("/", 1)[-1]]
        assert component["properties"]["replayed"]["type"] == "boolean"
        assert "replayed" in component["required"]


def test_an_input_without_a_docstring_of_its_own_has_no_borrowed_description(
    tmp_path: Path,
) -> None:
    schema_file = tmp_path / "schema.yaml"
    call_command("spectacular", "--file", str(schema_file))
    components = yaml.safe_load(schema_file.read_text())["components"]["schemas"]

    assert "description" not in components["RegisterInputRequest"]
    assert components["RulesInputRequest"]["description"].startswith("A preset and option")
    assert components["RegisterInputRequest"]["additionalProperties"] is False
