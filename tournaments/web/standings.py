"""Standings pages: a season (its best N nights), a night, a tournament, and a player's
season; now or as of the end of any day, with the tie-breaks in words, a CSV download and
charts. Public, like the API's standings.

Thin over ``tournaments.selectors.standings``, the API's own read: nothing here ranks,
and the CSV is the API's export, linked.
"""

from __future__ import annotations

import datetime as dt
from typing import Any
from urllib.parse import urlencode

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.urls import path, reverse
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from cya_site import routes as _routes  # noqa: F401 - registers the <id:...> converter
from tournaments import exports, ranking, scoresheets, selectors
from tournaments.models import Competition, Competitor, GameNight, Season, Tournament
from tournaments.web import figures
from tournaments.web.forms import TIEBREAK_NAMES, AsOfForm

# One sentence per criterion (docs/tournaments.md, "Metrics"), for visitors, not coders.
EXPLANATIONS = {
    "points": _(
        "Placement points over the games that count: 1 for first, 0 for last and evenly "
        "between at any table size; players who share a place share its points."
    ),
    "placement": _(
        "The average of those placement points per game, so that players with fewer "
        "games compare fairly."
    ),
    "dsi": _(
        "The average dollar share index: a game's dollars divided by the table's average, "
        "so 1.0 is an even share at any table size."
    ),
    "rounds_won": _("Rounds finished with the table's top score (tied leaders all count)."),
    "wins": _("Games won."),
    "head_to_head": _("Placement points in the games the tied players played together only."),
    "sos": _("How strong the opponents each player met were: their average placement."),
    "best_dsi": _("The best dollar share index in a single game."),
}
LOT = _("the lot")


def _as_of(request: HttpRequest) -> tuple[AsOfForm, dt.date | None, dt.datetime | None]:
    """The form, the day asked for, and the moment to read at: the end of that day in the
    site's time zone, or None (now) for no day, a bad one, or a day not over yet."""
    form = AsOfForm(request.GET if "as_of" in request.GET else None)
    if not form.is_bound or not form.is_valid() or form.cleaned_data["as_of"] is None:
        return form, None, None
    day: dt.date = form.cleaned_data["as_of"]
    end = dt.datetime.combine(day, dt.time.max, tzinfo=timezone.get_default_timezone())
    return form, day, (end if end < timezone.now() else None)


def _csv_url(competition: Competition, at: dt.datetime | None, night: GameNight | None) -> str:
    """The API's CSV export of exactly these standings."""
    query: dict[str, Any] = {"format": "csv"}
    if at is not None:
        query["as_of"] = at.isoformat()
    if night is not None:
        query["night"] = night.pk
    return reverse("competition-standings", args=[competition.pk]) + "?" + urlencode(query)


def _standings(
    request: HttpRequest,
    competition: Competition,
    *,
    night: GameNight | None = None,
    season: Season | None = None,
) -> dict[str, Any]:
    """What every standings page shows: the ranked rows, the tie-breaks in force in words,
    the as-of form and the CSV link."""
    form, day, at = _as_of(request)
    rows = selectors.standings(competition, as_of=at, night=night)
    suffix = f"?{urlencode({'as_of': day.isoformat()})}" if day else ""
    for row in rows:
        row["decided"] = [TIEBREAK_NAMES.get(c, LOT) for c in row["decided_by"]]
        if season is not None:
            row["url"] = reverse("season-player", args=[season.pk, row["competitor"]]) + suffix
    order = competition.tiebreaks or list(ranking.DEFAULT_ORDER)
    return {
        "competition": competition,
        "rows": rows,
        "form": form,
        "day": day,
        "csv_url": _csv_url(competition, at, night),
        "csv_name": exports.standings_filename(competition, as_of=at, night=night),
        "tiebreaks": [(TIEBREAK_NAMES[c], EXPLANATIONS[c]) for c in order],
        "best_of": None if night else competition.best_of,
    }


def _render(request: HttpRequest, template: str, context: dict[str, Any]) -> HttpResponse:
    status = 400 if context["form"].errors else 200
    return render(request, template, context, status=status)


def season_standings(request: HttpRequest, pk: int) -> HttpResponse:
    """A season's standings: each player's best N nights when the season says so."""
    season = get_object_or_404(Season.objects.select_related("league", "competition"), pk=pk)
    context = _standings(request, season.competition, season=season)
    context.update(season=season, league=season.league)
    return _render(request, "tournaments/standings.html", context)


def night_standings(request: HttpRequest, pk: int) -> HttpResponse:
    """One night's standings (its games only), and a chart of each of its tables."""
    night = get_object_or_404(
        GameNight.objects.select_related("season__league", "season__competition"), pk=pk
    )
    season = night.season
    context = _standings(request, season.competition, night=night, season=season)
    context.update(
        season=season, league=season.league, night=night, tables=scoresheets.night_sheets(night)
    )
    return _render(request, "tournaments/night_standings.html", context)


def tournament_standings(request: HttpRequest, pk: int) -> HttpResponse:
    """A tournament's standings."""
    tournament = get_object_or_404(Tournament.objects.select_related("competition"), pk=pk)
    context = _standings(request, tournament.competition)
    context.update(tournament=tournament)
    return _render(request, "tournaments/standings.html", context)


def season_player(request: HttpRequest, pk: int, competitor: int) -> HttpResponse:
    """A player's season: their standing, every game they played, and a chart of their
    points night by night."""
    season = get_object_or_404(Season.objects.select_related("league", "competition"), pk=pk)
    player = get_object_or_404(Competitor, pk=competitor, competition=season.competition)
    form, day, at = _as_of(request)
    field = selectors.standings(season.competition, as_of=at)
    standing = next((r for r in field if r["competitor"] == player.pk), None)
    games = selectors.competitor_games(season.competition, player, as_of=at)
    context = {
        "season": season,
        "league": season.league,
        "player": player,
        "standing": standing,
        "games": games,
        "figure": figures.season_figure(games, season.competition.best_of),
        "form": form,
        "day": day,
        "best_of": season.competition.best_of,
        "field_size": len(field),
    }
    return _render(request, "tournaments/season_player.html", context)


urlpatterns = [
    path("seasons/<id:pk>/standings/", season_standings, name="season-standings"),
    path("nights/<id:pk>/standings/", night_standings, name="night-standings"),
    path("tournaments/<id:pk>/standings/", tournament_standings, name="tournament-standings"),
    path("seasons/<id:pk>/players/<id:competitor>/", season_player, name="season-player"),
]
