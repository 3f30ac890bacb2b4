"""Ids in URL paths: the ``id`` path converter, and the API router whose routes use it.

Every number in a path (a row's id, a round's number) is written ``<id:name>``. An id
the database cannot hold (past ``MAX_ID``) is no id of any row, so its path matches no
route and answers 404 like any unknown id: without this, the database driver refused to
bind it (SQLite raised OverflowError) and the request ended in a 500. Importing this
module registers the converter; each URL module that uses it imports it.
"""

from __future__ import annotations

from typing import Any

from django.urls import register_converter
from rest_framework.routers import SimpleRouter

MAX_ID = 2**63 - 1  # the largest PostgreSQL bigint and SQLite INTEGER: BigAutoField's range


def parse_id(text: str) -> int | None:
    """``text`` as an id (ASCII digits, 0 to ``MAX_ID``), or None if it is none."""
    if not (text.isascii() and text.isdigit()) or len(text) > len(str(MAX_ID)):
        return None
    number = int(text)
    return number if number <= MAX_ID else None


class IdConverter:
    """``<id:name>``: digits, as an int from 0 to ``MAX_ID``; larger matches no route."""

    regex = "[0-9]+"

    def to_python(self, value: str) -> int:
        """The id; ValueError (Django's "no match") for one past ``MAX_ID``."""
        number = parse_id(value)
        if number is None:
            raise ValueError(f"{value} is past the largest id")
        return number

    def to_url(self, value: int) -> str:
        """The id as it is written in a path."""
        return str(value)


register_converter(IdConverter, "id")


class Router(SimpleRouter):
    """DRF's SimpleRouter with Django ``path()`` routes whose lookup is ``<id:pk>``.

    Actions with numbers of their own write them ``<id:name>`` in ``url_path`` too.
    """

    def __init__(self) -> None:
        super().__init__(use_regex_path=False)

    def get_lookup_regex(self, viewset: Any, lookup_prefix: str = "") -> str:
        """``<id:pk>``: resources are looked up by their id; a viewset looked up by a
        name says so with ``lookup_converter = "str"`` (players by username)."""
        lookup = getattr(viewset, "lookup_url_kwarg", None) or getattr(
            viewset, "lookup_field", "pk"
        )
        converter = getattr(viewset, "lookup_converter", "id")
        return f"<{converter}:{lookup_prefix}{lookup}>"
