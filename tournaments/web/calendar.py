"""A league's game nights as an iCalendar feed to subscribe to (public, like its page).

Thin over ``tournaments.ical``; the schedule itself is the season page's list of nights,
and the API's ``GET /api/v1/seasons/{id}/nights/``.
"""

from __future__ import annotations

import datetime as dt

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from django.urls import path, reverse
from django.utils import timezone

from tournaments import ical
from tournaments.models import GameNight, League


def league_calendar(request: HttpRequest, slug: str) -> HttpResponse:
    """Every night of every season of the league, as ``text/calendar``."""
    league = get_object_or_404(League, slug=slug)
    nights = GameNight.objects.filter(season__league=league).select_related("season")
    host = request.get_host().split(":")[0]
    events = [
        ical.Event(
            uid=f"night-{night.pk}@{host}",
            day=night.date,
            summary=f"{league.name}: {night.season.name}",
            location=night.venue,
            description=night.notes,
            url=request.build_absolute_uri(reverse("night", args=[night.pk])),
        )
        for night in nights.order_by("date", "pk")
    ]
    stamp = timezone.now().astimezone(dt.UTC)
    response = HttpResponse(
        ical.calendar(league.name, events, stamp=stamp), content_type="text/calendar; charset=utf-8"
    )
    response["Content-Disposition"] = f'inline; filename="{league.slug}-nights.ics"'
    return response


urlpatterns = [
    path("leagues/<slug:slug>/nights.ics", league_calendar, name="league-calendar"),
]
