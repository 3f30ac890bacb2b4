"""The bot ladder's page: the same leaderboard the API serves."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from bots import selectors


def ladder(request: HttpRequest) -> HttpResponse:
    """Ranked bot versions, best first, provisional ratings flagged."""
    return render(request, "bots/ladder.html", {"board": selectors.leaderboard()})
