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
from django.db.models.functions import Lower
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import path, reverse
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_POST

from cya_site.errors import DomainError
from games.models import Game
from tournaments import clocks, desk, discipline, selectors
from tournaments.models import GameNight, Penalty
from tournaments.web.forms import ClockForm, PenaltyForm, PenaltyWithdrawForm, SubstituteForm
from tournaments.web.pages import signed_in

DESK_REFRESH_SECONDS = 5


def _night(pk: int) -> GameNight:
    return get_object_or_404(
        GameNight.objects.select_related("season__league", "season__competition"), pk=pk
    )


def _seats(found: desk.Desk) -> list[tuple[str, str]]:
    """The players of the round in play's unfinished tables, as "game:seat" choices."""
    seats = []
    for table in found.current.tables if found.current else ():
        if not table.ended:
            for p in table.players:
                label = _("Table %(table)d: %(name)s") % {"table": table.number + 1, "name": p.name}
                seats.append((f"{table.game}:{p.seat}", str(label)))
    return seats


def _discipline(
    night: GameNight,
    found: desk.Desk,
    substitute: SubstituteForm | None = None,
    penalty: PenaltyForm | None = None,
    withdraw: PenaltyWithdrawForm | None = None,
) -> dict[str, Any]:
    """The desk's substitute, penalty and withdrawal forms (or the one refused, as
    typed), and tonight's substitutes and penalties."""
    competition = night.season.competition
    members = list(night.season.league.members.order_by(Lower("name")).values_list("pk", "name"))
    competitors = list(competition.competitors.order_by(Lower("name")).values_list("pk", "name"))
    penalties = list(selectors.penalties_at(competition, None, night=night))
    return {
        "substitute_form": substitute or SubstituteForm(seats=_seats(found), members=members),
        "penalty_form": penalty or PenaltyForm(competitors=competitors),
        "withdraw_form": withdraw or PenaltyWithdrawForm(penalties=_withdrawable(penalties)),
        "substitutions": discipline.substitutions_of(competition)
        .filter(game__competition_entries__night=night)
        .distinct(),
        "penalties": penalties,
    }


def _withdrawable(penalties: list[Penalty]) -> list[tuple[int, str]]:
    """Tonight's penalties in force, as the withdrawal form names them."""
    return [(p.pk, f"{p.competitor.name}: {p.reason}") for p in penalties]


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
    """The organiser's desk: counts and every table's state, refreshing itself; seat a
    substitute, give a penalty."""
    night, context = _context(request, pk)
    if context is None:
        return _refused(request)
    context.update(_discipline(night, context["desk"]))
    return render(request, "tournaments/desk.html", context)


@require_POST
@login_required
def night_substitute(request: HttpRequest, pk: int) -> HttpResponse:
    """Seat a substitute for a player who left (organisers), back to the desk; refused,
    the desk again with the reason beside the field and what was typed."""
    night, context = _context(request, pk)
    if context is None:
        return _refused(request)
    found = context["desk"]
    members = list(night.season.league.members.order_by(Lower("name")).values_list("pk", "name"))
    form = SubstituteForm(request.POST, seats=_seats(found), members=members)
    if form.is_valid():
        game_id, seat = form.game_and_seat()
        member_id = form.cleaned_data["member"]
        try:
            substitution = discipline.substitute_seat(
                game=get_object_or_404(Game, pk=game_id),
                by=signed_in(request),
                seat=seat,
                reason=form.cleaned_data["reason"],
                name=form.cleaned_data["name"],
                member=night.season.league.members.filter(pk=member_id).first()
                if member_id
                else None,
            )
        except DomainError as error:
            form.refuse(error)
        else:
            messages.success(
                request,
                _("%(sub)s plays for %(absent)s from round %(round)d.")
                % {
                    "sub": substitution.substitute_name,
                    "absent": substitution.absent.name,
                    "round": substitution.from_round,
                },
            )
            return redirect(f"{reverse('night-desk', args=[night.pk])}#discipline")
    context.update(_discipline(night, found, substitute=form))
    return render(request, "tournaments/desk.html", context, status=400)


@require_POST
@login_required
def night_penalty(request: HttpRequest, pk: int) -> HttpResponse:
    """Give a penalty at tonight's night (organisers), back to the desk; refused, the
    desk again with the reason beside the field and what was typed."""
    night, context = _context(request, pk)
    if context is None:
        return _refused(request)
    competition = night.season.competition
    competitors = list(competition.competitors.order_by(Lower("name")).values_list("pk", "name"))
    form = PenaltyForm(request.POST, competitors=competitors)
    if form.is_valid():
        try:
            penalty = discipline.penalty_give(
                competition=competition,
                by=signed_in(request),
                competitor=competition.competitors.get(pk=form.cleaned_data["competitor"]),
                kind=form.cleaned_data["kind"],
                amount=form.cleaned_data["amount"],
                reason=form.cleaned_data["reason"],
                night=night,
            )
        except DomainError as error:
            form.refuse(error)
        else:
            messages.success(
                request, _("%(name)s is penalised.") % {"name": penalty.competitor.name}
            )
            return redirect(f"{reverse('night-desk', args=[night.pk])}#discipline")
    context.update(_discipline(night, context["desk"], penalty=form))
    return render(request, "tournaments/desk.html", context, status=400)


@require_POST
@login_required
def night_penalty_withdraw(request: HttpRequest, pk: int) -> HttpResponse:
    """Withdraw one of tonight's penalties given by mistake (organisers), back to the
    desk; refused, the desk again with the reason beside the field."""
    night, context = _context(request, pk)
    if context is None:
        return _refused(request)
    competition = night.season.competition
    penalties = list(selectors.penalties_at(competition, None, night=night))
    form = PenaltyWithdrawForm(request.POST, penalties=_withdrawable(penalties))
    if form.is_valid():
        penalty = next(p for p in penalties if p.pk == form.cleaned_data["penalty"])
        try:
            discipline.penalty_withdraw(
                penalty=penalty, by=signed_in(request), reason=form.cleaned_data["reason"]
            )
        except DomainError as error:
            form.refuse(error)
        else:
            messages.success(
                request,
                _("The penalty of %(name)s is withdrawn.") % {"name": penalty.competitor.name},
            )
            return redirect(f"{reverse('night-desk', args=[night.pk])}#discipline")
    context.update(_discipline(night, context["desk"], withdraw=form))
    return render(request, "tournaments/desk.html", context, status=400)


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
    path("nights/<id:pk>/substitute/", night_substitute, name="night-substitute"),
    path("nights/<id:pk>/penalty/", night_penalty, name="night-penalty"),
    path(
        "nights/<id:pk>/penalty/withdraw/",
        night_penalty_withdraw,
        name="night-penalty-withdraw",
    ),
    path("nights/<id:pk>/clock/live/", night_clock_live, name="night-clock-live"),
]
