"""The ladder page: the API's leaderboard as a table anyone can read."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

from bots.models import BotVersion
from bots.validation import builtin_versions
from tests.pages import BUDGET, text, transfer_size

pytestmark = pytest.mark.django_db


def test_the_ladder_page_shows_the_apis_leaderboard(
    client: Client, api: APIClient, django_assert_max_num_queries: Any
) -> None:
    builtin_versions()
    ranked = BotVersion.objects.filter(status=BotVersion.Status.READY).count()

    with django_assert_max_num_queries(4):
        response = client.get("/ladder/")

    page = text(response.content)
    board = api.get("/api/v1/ladder/").json()
    assert ranked
    assert len(board) == ranked
    for row in board:
        assert row["bot"] in page
    assert transfer_size(client, "/ladder/") < BUDGET
