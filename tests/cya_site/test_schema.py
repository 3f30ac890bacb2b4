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
    assert schema["components"]["schemas"]["Error"]["required"] == ["code", "message", "details"]


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
