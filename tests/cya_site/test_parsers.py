"""The API's JSON parser (cya_site.parsers): a body nested deeper than MAX_JSON_DEPTH is
refused before it is decoded, and the depth scan agrees with the decoder on any JSON.

Such a body (5,000 ``[``) once made the decoder recurse until RecursionError: a 500.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rest_framework.test import APIClient

from accounts.models import User
from cya_site.parsers import MAX_JSON_DEPTH, too_deep
from tournaments.models import League

# Keys and strings full of what a naive scan would miscount: brackets, quotes, escapes.
TRICKY = st.text(alphabet='[]{}"\\ab:,\n', max_size=8)
VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | TRICKY,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TRICKY, inner, max_size=3),
    max_leaves=25,
)


def depth(value: Any) -> int:
    """How deeply arrays and objects nest in a decoded value."""
    if isinstance(value, list):
        return 1 + max(map(depth, value), default=0)
    if isinstance(value, dict):
        return 1 + max(map(depth, value.values()), default=0)
    return 0


def nested(levels: int, inner: str = "1") -> str:
    """``levels`` arrays and objects inside each other, alternately, around ``inner``."""
    text = inner
    for level in range(levels):
        text = f"[{text}]" if level % 2 else f'{{"k": {text}}}'
    return text


# Nested values are slow to draw, and slower still beside a parallel test run.
@settings(suppress_health_check=[HealthCheck.too_slow])
@given(VALUES, st.integers(0, 6))
def test_the_scan_agrees_with_the_decoder_on_any_json(value: Any, limit: int) -> None:
    for text in (json.dumps(value), json.dumps(value, indent=1, ensure_ascii=False)):
        assert too_deep(text, limit) == (depth(value) > limit)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (nested(MAX_JSON_DEPTH), False),
        (nested(MAX_JSON_DEPTH + 1), True),
        ("[" * 5000 + "]" * 5000, True),
        ("[" * 5000, True),  # never closed: the decoder would still recurse 5,000 deep
        (json.dumps({"name": "[" * 5000}), False),  # brackets in a string are text
        (json.dumps({"name": '\\"' + "{" * 100}), False),  # after an escaped quote, too
        (json.dumps(["\\", "[" * 100]), False),  # after an escaped backslash, too
        (json.dumps([[i] for i in range(1000)]), False),  # many brackets, shallow
        ("[" * 40 + '"unterminated', True),
    ],
)
def test_examples_of_deep_and_shallow_text(text: str, expected: bool) -> None:
    assert too_deep(text) is expected


# --- through the API ------------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize(
    "body", ["[" * 5000 + "]" * 5000, nested(5000), nested(MAX_JSON_DEPTH + 1), "{" * 100_000]
)
def test_a_body_too_deep_is_refused_with_json_too_deep_on_any_endpoint(
    alice: User, api_as: Any, body: str
) -> None:
    client: APIClient = api_as(alice)

    for path in ("/api/v1/games/", "/api/v1/leagues/", "/api/v1/bots/", "/api/v1/tokens/"):
        response = client.post(path, body, content_type="application/json")

        assert response.status_code == 400, (path, response.content[:200])
        refusal = response.json()
        assert refusal.pop("request_id") == response["X-Request-ID"]
        assert refusal == {
            "code": "json_too_deep",
            "message": f"The JSON body nests arrays and objects deeper than {MAX_JSON_DEPTH} "
            "levels.",
            "details": {"max_depth": MAX_JSON_DEPTH},
        }
    assert not League.objects.exists()


@pytest.mark.django_db
def test_a_body_at_the_limit_reaches_validation(alice: User, api_as: Any) -> None:
    body = f'{{"name": "Club", "slug": "club", "description": {nested(MAX_JSON_DEPTH - 1)}}}'

    response = api_as(alice).post("/api/v1/leagues/", body, content_type="application/json")

    assert response.status_code == 400
    assert response.json()["code"] == "invalid"
    assert "description" in response.json()["details"]
