"""Games being played on the platform: who sits where, which round, the tallies."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from games import selectors
from games.models import Game

SHOWN = 50


def live_games(request: HttpRequest) -> HttpResponse:
    """Digital games in play, newest first, and the last few that finished."""
    digital = selectors.game_list().filter(mode=Game.Mode.DIGITAL)
    playing = list(digital.filter(status=Game.Status.ACTIVE)[:SHOWN])
    finished = list(digital.filter(status=Game.Status.FINISHED).order_by("-finished_at")[:10])
    return render(request, "games/live.html", {"playing": playing, "finished": finished})


def your_turn(request: HttpRequest) -> HttpResponse:
    """The "your turn" strip alone, as every page's strip refreshes itself (htmx)."""
    return render(request, "games/_your_turn.html")
