"""The organiser's desk for a night: every table of the round in play, live.

The page polls its own fragment (htmx, every few seconds), so the counts and the tables'
states are read fresh from the database on each poll; a disputed table links straight
to its disputed round on the score sheet. Organisers only, like the API's twin
(``GET /api/v1/nights/{id}/desk/``): both read ``tournaments.desk.night_desk``.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import path, reverse
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_POST

from cya_site.errors import DomainError
from tournaments import clocks, desk, selectors
from tournaments.models import GameNight
from tournaments.web.forms import ClockForm
from tournaments.web.pages import signed_in

DESK_REFRESH_SECONDS = 5


def _night(pk: int) -> GameNight:
    return get_object_or_404(
        GameNight.objects.select_related("season__league", "season__competition"), pk=pk
    )


def _context(request: HttpRequest, pk: int) -> tuple[GameNight, dict[str, Any] | None]:
    """The night, and the desk's context, or None when the viewer does not organise it."""
    night = _night(pk)
    if not selectors.is_organiser(night.season.competition, request.user):
        return night, None
    context = {
        "night": night,
        "season": night.season,
        "league": night.season.league,
        "desk": desk.night_desk(night),
        "refresh": DESK_REFRESH_SECONDS,
        "clock": clocks.night_clock(night),
        "clock_form": ClockForm(),
        "live": True,
        "extensions": (5, 10),
    }
    return night, context


def _refused(request: HttpRequest) -> HttpResponse:
    message = _("Only an organiser of this night may open its desk.")
    return render(request, "403.html", {"exception": message}, status=403)


@login_required
def night_desk(request: HttpRequest, pk: int) -> HttpResponse:
    """The organiser's desk: counts and every table's state, refreshing itself."""
    _night, context = _context(request, pk)
    if context is None:
        return _refused(request)
    return render(request, "tournaments/desk.html", context)


@login_required
def night_desk_live(request: HttpRequest, pk: int) -> HttpResponse:
    """The desk's refreshing part."""
    _night, context = _context(request, pk)
    if context is None:
        return _refused(request)
    return render(request, "tournaments/_desk_live.html", context)


def night_clock_live(request: HttpRequest, pk: int) -> HttpResponse:
    """The round clock's refreshing part (anyone: phones and the projector show it)."""
    night = _night(pk)
    context = {"night": night, "clock": clocks.night_clock(night), "live": True}
    return render(request, "tournaments/_clock.html", context)


@require_POST
@login_required
def night_clock_change(request: HttpRequest, pk: int) -> HttpResponse:
    """Start, pause, resume or extend the round clock (organisers), back to the desk."""
    night = _night(pk)
    form = ClockForm(request.POST)
    if not form.is_valid():
        messages.error(request, " ".join(str(e) for e in form.errors.values()))
    else:
        try:
            clocks.clock_change(night=night, by=signed_in(request), **form.cleaned_data)
        except DomainError as error:
            messages.error(request, error.message)
    return redirect(f"{reverse('night-desk', args=[night.pk])}#clock")


urlpatterns = [
    path("nights/<id:pk>/desk/", night_desk, name="night-desk"),
    path("nights/<id:pk>/desk/live/", night_desk_live, name="night-desk-live"),
    path("nights/<id:pk>/clock/", night_clock_change, name="night-clock"),
    path("nights/<id:pk>/clock/live/", night_clock_live, name="night-clock-live"),
]
