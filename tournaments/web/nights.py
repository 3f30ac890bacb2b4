"""A club night's pages: check-in, the seating draw, the tables, print and projector.

Thin over tournaments.nights (check-in, draws) and tournaments.tables (who sits where);
each POST calls one service and answers htmx with the fragment it changed, or a plain
browser with a redirect back (the pages work without JavaScript too).
"""

from __future__ import annotations

from typing import Any

import segno
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models.functions import Lower
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import path, reverse
from django.views.decorators.http import require_POST

from accounts.selectors import user_named
from cya_site.errors import DomainError
from cya_site.routes import parse_id  # also registers the <id:...> converter
from tournaments import clocks, nights, selectors, tables
from tournaments.models import CheckIn, GameNight, Member
from tournaments.web.forms import DrawForm, MemberForm
from tournaments.web.pages import describe_rules, is_htmx, signed_in

PROJECTOR_REFRESH_SECONDS = 15


def _int(data: Any, name: str) -> int:
    """A posted id, or 0 (found by nobody) when it is missing or not an id."""
    return parse_id(str(data.get(name, ""))) or 0


def _night(pk: int) -> GameNight:
    return get_object_or_404(
        GameNight.objects.select_related("season__league", "season__competition"), pk=pk
    )


def _checkins(night: GameNight) -> dict[int, CheckIn]:
    """Check-ins by roster member."""
    return {
        c.competitor.member_id: c
        for c in CheckIn.objects.filter(night=night).select_related("competitor")
        if c.competitor.member_id is not None
    }


def night_detail(request: HttpRequest, pk: int) -> HttpResponse:
    """The night: who came, the draw, each round's tables with their score sheets."""
    return _page(request, _night(pk))


def _page(
    request: HttpRequest, night: GameNight, *, newcomer: MemberForm | None = None
) -> HttpResponse:
    competition = night.season.competition
    organiser = selectors.is_organiser(competition, request.user)
    checked = _checkins(night)
    members = list(night.season.league.members.select_related("user").order_by(Lower("name")))
    me = next((m for m in members if m.user_id and m.user_id == request.user.pk), None)
    rounds = tables.night_rounds(night)
    context: dict[str, Any] = {
        "night": night,
        "season": night.season,
        "league": night.season.league,
        "organiser": organiser,
        "members": members if organiser else [m for m in members if m.pk in checked],
        "checked": checked,
        "me": me,
        "rounds": rounds,
        "current": rounds[-1] if rounds else None,
        "draw_form": DrawForm(),
        "newcomer_form": newcomer or MemberForm(),
        "rules": describe_rules(night.season.league.rules),
        "clock": clocks.night_clock(night),
        "live": True,
    }
    status = 400 if newcomer is not None and newcomer.errors else 200
    return render(request, "tournaments/night.html", context, status=status)


@require_POST
@login_required
def night_checkin(request: HttpRequest, pk: int) -> HttpResponse:
    """Check a roster member in or out (``action``: ``in`` or ``out``)."""
    night = _night(pk)
    member = get_object_or_404(Member, league=night.season.league, pk=_int(request.POST, "member"))
    error = None
    try:
        if request.POST.get("action") == "out":
            nights.night_check_out(night=night, by=signed_in(request), member=member)
        else:
            nights.night_check_in(night=night, by=signed_in(request), member=member)
    except DomainError as refused:
        error = refused.message
    if is_htmx(request):
        context = {
            "night": night,
            "member": member,
            "checked": _checkins(night),
            "organiser": selectors.is_organiser(night.season.competition, request.user),
            "error": error,
            "oob": True,
        }
        return render(request, "tournaments/_checkin_row.html", context)
    if error:
        messages.error(request, error)
    return redirect(f"{reverse('night', args=[night.pk])}#member-{member.pk}")


@require_POST
@login_required
def night_newcomer(request: HttpRequest, pk: int) -> HttpResponse:
    """Someone new at the door: onto the roster and checked in (organisers)."""
    night = _night(pk)
    form = MemberForm(request.POST)
    if form.is_valid():
        try:
            checkin = nights.night_check_in_newcomer(
                night=night,
                by=signed_in(request),
                name=form.cleaned_data["name"],
                user=user_named(form.cleaned_data["username"]),
            )
        except DomainError as error:
            form.refuse(error)
        else:
            return redirect(
                f"{reverse('night', args=[night.pk])}#member-{checkin.competitor.member_id}"
            )
    # The page again, with the refusal beside the newcomer's fields and what was typed.
    return _page(request, night, newcomer=form)


@require_POST
@login_required
def night_draw(request: HttpRequest, pk: int) -> HttpResponse:
    """Draw the seating of the night's next round (organisers)."""
    night = _night(pk)
    form = DrawForm(request.POST)
    if form.is_valid():
        try:
            round_ = nights.night_draw(
                night=night,
                by=signed_in(request),
                table_sizes=form.table_sizes(),
                preferred_size=form.cleaned_data["preferred_size"],
            )
        except DomainError as error:
            messages.error(request, error.message)
        else:
            return redirect(f"{reverse('night', args=[night.pk])}#round-{round_.number}")
    return redirect(f"{reverse('night', args=[night.pk])}#draw")


def night_seating(request: HttpRequest, pk: int) -> HttpResponse:
    """The seating of a round (the last unless ``?round=N``), big and printable, each
    table with a QR code that opens its score sheet."""
    night = _night(pk)
    rounds = tables.night_rounds(night)
    wanted = request.GET.get("round", "")
    drawn = next((r for r in rounds if str(r.number) == wanted), rounds[-1] if rounds else None)
    codes = {}
    if drawn is not None:
        for table in drawn.tables:
            url = request.build_absolute_uri(reverse("sheet", args=[table.game]))
            codes[table.game] = segno.make(url, error="m").svg_inline(scale=3, border=2)
    context = {"night": night, "league": night.season.league, "drawn": drawn, "codes": codes}
    return render(request, "tournaments/night_seating.html", context)


def night_projector(request: HttpRequest, pk: int) -> HttpResponse:
    """The night on a projector: the round clock, the current round's seating in big
    type, the night's standings, refreshing itself."""
    context = _projector(request, pk)
    context.update(clock=clocks.night_clock(context["night"]), live=True)
    return render(request, "tournaments/night_projector.html", context)


def night_projector_live(request: HttpRequest, pk: int) -> HttpResponse:
    """The projector's refreshing part."""
    return render(request, "tournaments/_projector_live.html", _projector(request, pk))


def _projector(request: HttpRequest, pk: int) -> dict[str, Any]:
    night = _night(pk)
    rounds = tables.night_rounds(night)
    return {
        "night": night,
        "league": night.season.league,
        "current": rounds[-1] if rounds else None,
        "standings": [
            row
            for row in selectors.standings(night.season.competition, night=night)
            if row["games"] or not rounds
        ],
        "checked_in": CheckIn.objects.filter(night=night).count(),
        "refresh": PROJECTOR_REFRESH_SECONDS,
    }


urlpatterns = [
    path("nights/<id:pk>/", night_detail, name="night"),
    path("nights/<id:pk>/checkin/", night_checkin, name="night-checkin"),
    path("nights/<id:pk>/newcomer/", night_newcomer, name="night-newcomer"),
    path("nights/<id:pk>/draw/", night_draw, name="night-draw"),
    path("nights/<id:pk>/seating/", night_seating, name="night-seating"),
    path("nights/<id:pk>/projector/", night_projector, name="night-projector"),
    path("nights/<id:pk>/projector/live/", night_projector_live, name="night-projector-live"),
]
