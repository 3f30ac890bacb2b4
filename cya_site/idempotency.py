"""The Idempotency-Key header: one reading of it, and one answer to a replay, for every
endpoint that takes it (an action, a score sheet's round).

A first request with a key answers ``201`` with ``"replayed": false``; the same request
again (the same key, from the same user) writes nothing and answers ``200`` with the
first result and ``"replayed": true`` (docs/api.md).
"""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter
from rest_framework import status
from rest_framework.request import Request

from cya_site.errors import DomainError

HEADER = "Idempotency-Key"
MAX_KEY_LENGTH = 100  # the column's width: a longer key is refused, never cut to fit

IDEMPOTENCY_HEADER = OpenApiParameter(
    HEADER,
    OpenApiTypes.STR,
    OpenApiParameter.HEADER,
    description=(
        "Makes retries safe: a repeated key answers 200 with the first result and "
        '"replayed": true, and applies nothing'
    ),
)


def idempotency_key(request: Request) -> str:
    """The request's key, or "" without one; 400 ``invalid`` when it is too long."""
    key = request.headers.get(HEADER) or ""
    if len(key) > MAX_KEY_LENGTH:
        raise DomainError(  # the schema's maxLength
            "invalid", f"{HEADER} is too long.", {"max_length": MAX_KEY_LENGTH}, status=400
        )
    return key


def replay_status(replayed: bool) -> int:
    """201 for a first request, 200 for a replay of one."""
    return status.HTTP_200_OK if replayed else status.HTTP_201_CREATED
