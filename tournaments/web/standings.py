"""Standings pages: a season (its best N nights), a night, a tournament, and a player's
season; on the clock of play (after a night, after a round) and, for the audit trail, as
recorded at the end of any day, with the tie-breaks in words, a CSV download and charts.
Public, like the API's standings.

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
from tournaments import discipline, exports, ranking, scoresheets, selectors
from tournaments.models import Competition, Competitor, GameNight, Season, Tournament
from tournaments.web import figures
from tournaments.web.forms import TIEBREAK_NAMES, StandingsForm

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


def _clocks(
    request: HttpRequest, competition: Competition, *, night: GameNight | None = None
) -> tuple[StandingsForm, dict[str, Any], dt.date | None, dt.datetime | None]:
    """The form, the clock of play asked for, the day of record asked for, and the moment
    to read at: the end of that day in the site's time zone, or None (now) for no day, a
    bad one, or a day not over yet. A night's standings have no clock to pick."""
    nights: list[dt.date] = []
    rounds = 0
    if night is None and hasattr(competition, "tournament"):
        rounds = competition.tournament.round_set.count()
    elif night is None:
        played = GameNight.objects.filter(
            season__competition=competition, date__lte=timezone.localdate()
        )
        nights = sorted(set(played.values_list("date", flat=True)))
    asked = night is None and any(k in request.GET for k in ("as_of", "after_night", "after_round"))
    form = StandingsForm(request.GET if asked else None, nights=nights, rounds=rounds)
    clock = form.clock()
    day = form.cleaned_data.get("as_of") if form.is_bound else None
    if day is None:
        return form, clock, None, None
    end = dt.datetime.combine(day, dt.time.max, tzinfo=timezone.get_default_timezone())
    return form, clock, day, (end if end < timezone.now() else None)


def _csv_url(
    competition: Competition,
    at: dt.datetime | None,
    night: GameNight | None,
    clock: dict[str, Any],
) -> str:
    """The API's CSV export of exactly these standings."""
    query: dict[str, Any] = {"format": "csv"}
    query.update({k: str(v) for k, v in clock.items() if v is not None})
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
    """What every standings page shows: the ranked rows on the clocks asked for, what a
    later correction changed, the tie-breaks in force in words, the form and the CSV link."""
    form, clock, day, at = _clocks(request, competition, night=night)
    rows = selectors.standings(competition, as_of=at, night=night, **clock)
    if at is not None:  # the audit trail: what the corrections since then changed
        now = {r["competitor"]: r for r in selectors.standings(competition, night=night, **clock)}
        for row in rows:
            later = now.get(row["competitor"])
            if later and (later["rank"], later["points"], later["games"]) != (
                row["rank"],
                row["points"],
                row["games"],
            ):
                row["later"] = later
    query = {k: str(v) for k, v in clock.items() if v is not None}
    if day:
        query["as_of"] = day.isoformat()
    suffix = f"?{urlencode(query)}" if query and season is not None and night is None else ""
    for row in rows:
        row["decided"] = [TIEBREAK_NAMES.get(c, LOT) for c in row["decided_by"]]
        if season is not None:
            row["url"] = reverse("season-player", args=[season.pk, row["competitor"]]) + suffix
    order = competition.tiebreaks or list(ranking.DEFAULT_ORDER)
    substitutions = discipline.substitutions_of(competition)
    if night is not None:
        substitutions = substitutions.filter(game__competition_entries__night=night).distinct()
    if at is not None:
        substitutions = substitutions.filter(created_at__lte=at)
    return {
        "penalties": selectors.penalties_at(competition, at, night=night, **clock),
        "substitutions": substitutions,
        "competition": competition,
        "rows": rows,
        "changed": [r for r in rows if "later" in r],
        "form": form,
        "day": day,
        "after_night": clock["after_night"],
        "after_round": clock["after_round"],
        "csv_url": _csv_url(competition, at, night, clock),
        "csv_name": exports.standings_filename(competition, as_of=at, night=night, **clock),
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
    form, clock, day, at = _clocks(request, season.competition)
    after_night = clock["after_night"]
    field = selectors.standings(season.competition, as_of=at, after_night=after_night)
    standing = next((r for r in field if r["competitor"] == player.pk), None)
    games = selectors.competitor_games(
        season.competition, player, as_of=at, after_night=after_night
    )
    context = {
        "season": season,
        "league": season.league,
        "player": player,
        "standing": standing,
        "games": games,
        "figure": figures.season_figure(games, season.competition.best_of),
        "form": form,
        "day": day,
        "after_night": after_night,
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
