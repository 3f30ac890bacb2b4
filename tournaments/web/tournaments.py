"""Tournaments: the list."""

from __future__ import annotations

from django.db.models import Count
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import path

from tournaments.models import Tournament


def tournament_list(request: HttpRequest) -> HttpResponse:
    """Tournaments, newest first."""
    tournaments = (
        Tournament.objects.select_related("competition", "league")
        .annotate(entrant_count=Count("competition__competitors"))
        .order_by("-created_at", "-id")[:100]
    )
    return render(request, "tournaments/tournament_list.html", {"tournaments": tournaments})


urlpatterns = [
    path("tournaments/", tournament_list, name="tournaments"),
]
