"""A player's page: ``/players/<name>/`` for an account, ``/players/guests/<member>/`` for
a roster guest. Their games online and at clubs with links to replays and score sheets,
ratings with a chart and each change explained, statistics from the event log, and the
head-to-head record against anyone (``?vs=<name>``). Public, like the API's twin
(``/api/v1/players/<name>/``), and thin over the same reads (tournaments.players).
"""

from __future__ import annotations

from typing import Any

from django.core.paginator import InvalidPage, Page, Paginator
from django.db.models import QuerySet
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import path, reverse
from django.utils.formats import number_format
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from cya_site import charts
from cya_site import routes as _routes  # noqa: F401 - registers the <id:...> converter
from cya_site.errors import DomainError
from tournaments import players
from tournaments.players import Player


def rating_figure(held: list[dict[str, Any]]) -> charts.Figure | None:
    """Each pool's rating (mu - 3 sigma) after each of its games: one line per pool."""
    longest = max((len(r["history"]) for r in held), default=0)
    if not longest:
        return None
    series = [
        (str(r["pool"] if r["pool"] != "online" else _("Online")), list(r["history"])) for r in held
    ]
    padded = [(name, [*values, *[None] * (longest - len(values))]) for name, values in series]
    desc = ngettext(
        "The rating after each rated game, one line per pool; %(n)d game at most.",
        "The rating after each rated game, one line per pool; %(n)d games at most.",
        longest,
    ) % {"n": longest}
    figure = charts.line_chart(
        "player-rating-chart",
        padded,
        [str(i) for i in range(1, longest + 1)],
        charts.Words(_("Rating after each rated game"), desc, _("Rated game"), _("Rating")),
        fmt=lambda v: number_format(v, decimal_pos=0 if v == int(v) else 1),
    )
    # cya_site.charts escapes every word it draws: the template prints it as it is.
    legend = tuple(charts.Key(k.label, mark_safe(k.swatch)) for k in figure.legend)
    return charts.Figure(mark_safe(figure.svg), legend)


def games_page(rows: QuerySet[Any], number: str | int) -> Page[Any]:
    """Page ``number`` of a player's games, ``players.RECENT`` a page (the player page shows
    the first): 404 for a page that is not a whole number from 1 to the last."""
    try:
        return Paginator(rows, players.RECENT).page(number)
    except InvalidPage:
        raise Http404(_("There is no such page of games.")) from None


def _games_url(player: Player, kind: str, number: int) -> str:
    if player.user is None:
        url = reverse(f"player-guest-{kind}", args=[player.members[0].pk])
    else:
        url = reverse(f"player-{kind}", args=[player.name])
    return f"{url}?page={number}"


def _older(player: Player, kind: str, page: Page[Any]) -> str:
    return _games_url(player, kind, page.next_page_number()) if page.has_next() else ""


def _page(request: HttpRequest, player: Player) -> HttpResponse:
    held = players.ratings(player)
    stats = players.statistics(player)
    online = games_page(players.online_seats(player), 1)
    club = games_page(players.club_results(player), 1)
    context: dict[str, Any] = {
        "player": player,
        "online_games": players.online_rows(online),
        "online_more": _older(player, "games", online),
        "club_games": players.club_rows(club),
        "club_more": _older(player, "club-games", club),
        "ratings": held,
        "figure": rating_figure(held),
        "stats": stats,
        "favourite": players.asset_name(stats.favourite_asset) if stats.favourite_asset else "",
        "opponents": players.opponents(player),
        "vs_name": request.GET.get("vs", "").strip(),
        "versus": None,
    }
    if context["vs_name"]:
        try:
            context["versus"] = players.versus(player, players.player_named(context["vs_name"]))
        except DomainError as error:
            context["vs_error"] = error.message
    return render(request, "tournaments/player.html", context)


def _account(name: str) -> Player:
    try:
        return players.player_named(name)
    except DomainError:
        raise Http404(_("Nobody here has that username.")) from None


def player_page(request: HttpRequest, name: str) -> HttpResponse:
    """An account's page."""
    return _page(request, _account(name))


def guest_page(request: HttpRequest, member_id: int) -> HttpResponse:
    """A roster guest's page: their recorded club games."""
    return _page(request, players.roster_guest(member_id))


def _games(request: HttpRequest, player: Player, kind: str) -> HttpResponse:
    if kind == "games":
        page = games_page(players.online_seats(player), request.GET.get("page", 1))
        rows = players.online_rows(page)
    else:
        page = games_page(players.club_results(player), request.GET.get("page", 1))
        rows = players.club_rows(page)
    context = {
        "player": player,
        "kind": kind,
        "games": rows,
        "page": page,
        "newer": _games_url(player, kind, page.previous_page_number())
        if page.has_previous()
        else "",
        "older": _older(player, kind, page),
    }
    return render(request, "tournaments/player_games.html", context)


def player_games(request: HttpRequest, name: str) -> HttpResponse:
    """An account's games online, a page at a time (``?page=``), newest first."""
    return _games(request, _account(name), "games")


def player_club_games(request: HttpRequest, name: str) -> HttpResponse:
    """An account's club games, a page at a time (``?page=``), newest first."""
    return _games(request, _account(name), "club-games")


def guest_club_games(request: HttpRequest, member_id: int) -> HttpResponse:
    """A roster guest's recorded club games, a page at a time."""
    return _games(request, players.roster_guest(member_id), "club-games")


urlpatterns = [
    path("players/guests/<id:member_id>/", guest_page, name="player-guest"),
    path(
        "players/guests/<id:member_id>/club-games/",
        guest_club_games,
        name="player-guest-club-games",
    ),
    path("players/<str:name>/", player_page, name="player"),
    path("players/<str:name>/games/", player_games, name="player-games"),
    path("players/<str:name>/club-games/", player_club_games, name="player-club-games"),
]
