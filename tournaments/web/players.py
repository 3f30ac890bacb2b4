"""A player's page: ``/players/<name>/`` for an account, ``/players/guests/<member>/`` for
a roster guest. Their games online and at clubs with links to replays and score sheets,
ratings with a chart and each change explained, statistics from the event log, and the
head-to-head record against anyone (``?vs=<name>``). Public, like the API's twin
(``/api/v1/players/<name>/``), and thin over the same reads (tournaments.players).
"""

from __future__ import annotations

from typing import Any

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import path
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


def _page(request: HttpRequest, player: Player) -> HttpResponse:
    held = players.ratings(player)
    stats = players.statistics(player)
    context: dict[str, Any] = {
        "player": player,
        "online_games": players.online_games(player),
        "club_games": players.club_games(player),
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


def player_page(request: HttpRequest, name: str) -> HttpResponse:
    """An account's page."""
    try:
        player = players.player_named(name)
    except DomainError:
        raise Http404(_("Nobody here has that username.")) from None
    return _page(request, player)


def guest_page(request: HttpRequest, member_id: int) -> HttpResponse:
    """A roster guest's page: their recorded club games."""
    return _page(request, players.roster_guest(member_id))


urlpatterns = [
    path("players/guests/<id:member_id>/", guest_page, name="player-guest"),
    path("players/<str:name>/", player_page, name="player"),
]
