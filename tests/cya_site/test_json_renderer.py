"""The API's JSON renderer writes the bytes DRF's renderer writes, with orjson."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, date, datetime, time, timedelta, timezone
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest
from django.test import Client
from django.utils.translation import gettext_lazy
from hypothesis import given
from hypothesis import strategies as st
from rest_framework import renderers, serializers
from rest_framework.utils.serializer_helpers import ReturnDict

from cya_site.json_renderer import JSONRenderer

DRF = renderers.JSONRenderer()  # noqa: TID251 - what ours must match
OURS = JSONRenderer()

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@given(json_values)
def test_any_json_document_is_written_byte_for_byte_as_drf_writes_it(value: object) -> None:
    assert OURS.render(value) == DRF.render(value)


@pytest.mark.parametrize(
    "value",
    [
        datetime(2026, 11, 28, 9, 30, tzinfo=UTC),
        datetime(2026, 11, 28, 9, 30, 1, 250_000, tzinfo=UTC),
        datetime(2026, 1, 5, 9, 30, tzinfo=ZoneInfo("Europe/London")),  # offset zero: Z
        datetime(2026, 7, 5, 9, 30, tzinfo=ZoneInfo("Europe/Paris")),
        datetime(2026, 7, 5, 9, 30, tzinfo=timezone(timedelta(hours=-5))),
        datetime(2026, 7, 5, 9, 30),  # noqa: DTZ001 - a naive one, as DRF writes it
        date(2026, 11, 28),
        time(21, 15, 5),
        uuid.UUID("12345678-1234-5678-1234-567812345678"),
        Decimal("12.50"),
        timedelta(minutes=90),
        gettext_lazy("Not found."),
        b"bytes",
        {3: "a number key", 1: "written as a string"},
        ReturnDict({"seat": 1}, serializer=serializers.Serializer()),
        "line\u2028and paragraph\u2029separators",
        "caf\u00e9 \U0001f0cf",
    ],
)
def test_values_beyond_plain_json_are_written_as_drf_writes_them(value: object) -> None:
    assert OURS.render({"value": value}) == DRF.render({"value": value})


def test_a_set_is_written_as_drf_writes_one() -> None:
    assert json.loads(OURS.render({"value": {7}})) == json.loads(DRF.render({"value": {7}}))


def test_nothing_renders_as_an_empty_body() -> None:
    assert OURS.render(None) == b""


def test_an_indented_rendering_is_drfs() -> None:
    data = {"seats": [1, 2], "name": "table"}
    asked = "application/json; indent=4"
    assert OURS.render(data, asked) == DRF.render(data, asked)
    assert OURS.render(data, None, {"indent": 2}) == DRF.render(data, None, {"indent": 2})
    assert b"\n    " in OURS.render(data, asked)


def test_floats_are_the_same_numbers() -> None:
    data = {"mu": 25.0, "small": 1e-05, "share": 0.4812, "big": 1.5e300}
    assert json.loads(OURS.render(data)) == json.loads(DRF.render(data))


@pytest.mark.django_db
def test_the_api_answers_with_it(client: Client) -> None:
    response = client.get("/api/v1/games/")
    assert response.status_code == 200
    assert type(getattr(response, "accepted_renderer")) is JSONRenderer  # noqa: B009 - DRF sets it
    assert response.content == DRF.render(response.json())
