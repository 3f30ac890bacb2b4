"""Tournaments: the list, a new one from a club's roster (or typed names), a tournament's
page (entrants, each round's seating by name and its quality, standings), start and
advance.

Thin over tournaments.running and tournaments.rounds (the same services and refusals as
the API) and tournaments.tables (who sits where); what the page reads is gathered in
tournaments.web.tournament_view.
"""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.db.models import Count
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import path, reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from cya_site import routes as _routes  # noqa: F401 - registers the <id:...> converter
from cya_site.errors import DomainError
from games.engine import RuleSet
from tournaments import rounds, running, selectors, services
from tournaments.models import League, Tournament, TournamentRound
from tournaments.web.pages import signed_in
from tournaments.web.tournament_forms import TournamentForm, rules_initial
from tournaments.web.tournament_view import page_context, unfinished_message


def tournament_list(request: HttpRequest) -> HttpResponse:
    """Tournaments, newest first."""
    tournaments = (
        Tournament.objects.select_related("competition", "league")
        .annotate(entrant_count=Count("competition__competitors"))
        .order_by("-created_at", "-id")[:100]
    )
    return render(request, "tournaments/tournament_list.html", {"tournaments": tournaments})


@login_required
def tournament_new(request: HttpRequest) -> HttpResponse:
    """Create a round-robin or Swiss tournament and its entrants; ``?league=<slug>`` takes
    them from the club's roster (its organisers only)."""
    slug = request.GET.get("league", "")
    league = get_object_or_404(League, slug=slug) if slug else None
    if league is not None and not selectors.is_league_organiser(league, request.user):
        message = _("Only an organiser of %(club)s may do that.") % {"club": league.name}
        return render(request, "403.html", {"exception": message}, status=403)
    initial = rules_initial(RuleSet.from_json(league.rules)) if league else {}
    form = TournamentForm(request.POST or None, league=league, initial=initial)
    status = 200
    if request.method == "POST" and form.is_valid() and (rules := form.rules()) is not None:
        data = form.cleaned_data
        try:
            tournament = running.tournament_create(
                by=signed_in(request),
                name=data["name"],
                format=data["format"],
                entrants=Tournament.Entrants.HUMANS,
                play=data["play"],
                rules=rules,
                rounds=data["rounds"],
                table_sizes=data["table_sizes"],
                preferred_size=data["preferred_size"],
                tiebreaks=data["tiebreaks"],
                league=league,
                members=data["members"],
                names=data["names"],
                users=data["users"],
            )
        except DomainError as error:  # beside the field it names (details.field)
            form.refuse(error)
            status = 403 if error.http_status == 403 else 400
        else:
            return redirect("tournament", pk=tournament.pk)
    if form.errors:
        status = max(status, 400)
    context = {"form": form, "league": league}
    return render(request, "tournaments/tournament_new.html", context, status=status)


def _tournament(pk: int) -> Tournament:
    return get_object_or_404(
        Tournament.objects.select_related("competition", "league", "organiser"), pk=pk
    )


def tournament_detail(request: HttpRequest, pk: int) -> HttpResponse:
    """A tournament: its state, entrants, each round's seating, quality and standings."""
    return _page(request, _tournament(pk))


def _page(
    request: HttpRequest, tournament: Tournament, *, refusal: str = "", status: int = 200
) -> HttpResponse:
    context = page_context(tournament, request.user)
    context["refusal"] = refusal
    return render(request, "tournaments/tournament.html", context, status=status)


@require_POST
@login_required
def tournament_start(request: HttpRequest, pk: int) -> HttpResponse:
    """Seat round one (round robin: plan every round) and open its tables (organisers)."""
    tournament = _tournament(pk)
    try:
        running.tournament_start(tournament=tournament, by=signed_in(request))
    except DomainError as error:
        return _page(request, _tournament(pk), refusal=error.message, status=_status(error))
    return redirect(f"{reverse('tournament', args=[pk])}#round-1")


@require_POST
@login_required
def round_advance(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    """Close a round whose tables have all finished; seat the next or finish (organisers)."""
    tournament = _tournament(pk)
    get_object_or_404(TournamentRound, tournament=tournament, number=number)
    try:
        # As the API: the service is also the Celery beat's, which has no user to check.
        services.require_organiser(tournament.competition, signed_in(request))
        following = rounds.round_advance(tournament=tournament, number=number)
    except DomainError as error:
        tournament = _tournament(pk)
        message = error.message
        if error.code == "round_not_finished":
            message = unfinished_message(tournament, number)
        return _page(request, tournament, refusal=message, status=_status(error))
    anchor = f"round-{following.number}" if following else "standings"
    return redirect(f"{reverse('tournament', args=[pk])}#{anchor}")


def _status(error: DomainError) -> int:
    return error.http_status if error.http_status in (403, 404, 409) else 400


urlpatterns = [
    path("tournaments/", tournament_list, name="tournaments"),
    path("tournaments/new/", tournament_new, name="tournament-new"),
    path("tournaments/<id:pk>/", tournament_detail, name="tournament"),
    path("tournaments/<id:pk>/start/", tournament_start, name="tournament-start"),
    path(
        "tournaments/<id:pk>/rounds/<id:number>/advance/",
        round_advance,
        name="tournament-advance",
    ),
]
