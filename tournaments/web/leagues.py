"""Leagues, their rosters and seasons: list, create, read. Thin over tournaments.services
and tournaments.roster; every refusal is shown beside the field, with what was typed."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import Count, Prefetch
from django.db.models.functions import Lower
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import path, reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts.models import User
from accounts.selectors import user_named
from cya_site import routes as _routes  # noqa: F401 - registers the <id:...> converter
from cya_site.errors import DomainError
from tournaments import roster, selectors, services
from tournaments.models import GameNight, League, Member, Season, Tournament
from tournaments.web.forms import (
    LeagueForm,
    LeagueSettingsForm,
    LinkForm,
    MemberForm,
    NightForm,
    SeasonForm,
)
from tournaments.web.pages import describe_rules, signed_in


def league_list(request: HttpRequest) -> HttpResponse:
    """Every league, by name."""
    leagues = League.objects.annotate(season_count=Count("seasons")).order_by("name")
    return render(request, "tournaments/league_list.html", {"leagues": leagues})


@login_required
def league_new(request: HttpRequest) -> HttpResponse:
    """Start a league: you organise it."""
    form = LeagueForm(request.POST or None)
    if request.method == "POST" and form.is_valid() and (rules := form.rules()) is not None:
        try:
            league = services.league_create(
                by=signed_in(request),
                name=form.cleaned_data["name"],
                slug=form.cleaned_data["slug"],
                description=form.cleaned_data["description"],
                rules=rules,
                organiser_entries_settle=form.cleaned_data["organiser_entries_settle"],
            )
        except DomainError as error:
            form.refuse(error)
        else:
            return redirect("league", slug=league.slug)
    return render(
        request, "tournaments/league_new.html", {"form": form}, status=400 if form.errors else 200
    )


def _league(slug: str) -> League:
    return get_object_or_404(League.objects.select_related("created_by"), slug=slug)


def league_detail(request: HttpRequest, slug: str) -> HttpResponse:
    """A league: its seasons and their nights, its tournaments, who runs it."""
    league = _league(slug)
    seasons = league.seasons.select_related("competition").prefetch_related(
        Prefetch(
            "nights",
            queryset=GameNight.objects.annotate(players=Count("checkins")).order_by("-date"),
        )
    )
    context = {
        "league": league,
        "seasons": seasons,
        "tournaments": Tournament.objects.filter(league=league)
        .select_related("competition")
        .order_by("-created_at"),
        "organisers": sorted(
            User.objects.filter(pk__in=selectors.league_organiser_ids(league)).values_list(
                "username", flat=True
            )
        ),
        "organiser": selectors.is_league_organiser(league, request.user),
        "rules": describe_rules(league.rules),
        "members": league.members.count(),
        "settings_form": LeagueSettingsForm(
            initial={
                "organiser_entries_settle": league.organiser_entries_settle,
                "substitute_policy": league.substitute_policy,
            }
        ),
    }
    return render(request, "tournaments/league.html", context)


@require_POST
@login_required
def league_settings(request: HttpRequest, slug: str) -> HttpResponse:
    """Change the league's settings (organisers), back to its page."""
    league = _league(slug)
    form = LeagueSettingsForm(request.POST)
    if form.is_valid():
        try:
            services.league_settings_change(
                league=league, by=signed_in(request), **form.cleaned_data
            )
        except DomainError as error:
            if error.http_status == 403:
                return _refused(request)
            messages.error(request, error.message)
        else:
            messages.success(request, _("The league's settings are saved."))
    return redirect(reverse("league", args=[league.slug]) + "#settings")


def roster_page(request: HttpRequest, slug: str) -> HttpResponse:
    """The club's players; organisers add players and link guests to accounts."""
    league = _league(slug)
    organiser = selectors.is_league_organiser(league, request.user)
    form = MemberForm(request.POST or None)
    if request.method == "POST":
        if not organiser:
            return _refused(request)
        if form.is_valid():
            try:
                member = roster.member_add(
                    league=league,
                    by=signed_in(request),
                    name=form.cleaned_data["name"],
                    user=user_named(form.cleaned_data["username"]),
                )
            except DomainError as error:
                form.refuse(error)
            else:
                return redirect(f"{request.path}?added={member.pk}#member-{member.pk}")
    return _roster(request, league, form=form, added=request.GET.get("added"))


def _roster(
    request: HttpRequest,
    league: League,
    *,
    form: MemberForm,
    link: tuple[int, LinkForm] | None = None,
    added: str | None = None,
) -> HttpResponse:
    """The roster page, with any refusal beside the field it is about."""
    context = {
        "league": league,
        "members": league.members.select_related("user").order_by(Lower("name")),
        "form": form,
        "organiser": selectors.is_league_organiser(league, request.user),
        "added": added,
        "link_member": link[0] if link else None,
        "link_form": link[1] if link else None,
    }
    failed = form.errors or (link and link[1].errors)
    return render(request, "tournaments/roster.html", context, status=400 if failed else 200)


@require_POST
@login_required
def member_link(request: HttpRequest, slug: str, member_id: int) -> HttpResponse:
    """Link a guest to an account (organisers)."""
    league = _league(slug)
    member = get_object_or_404(Member, league=league, pk=member_id)
    form = LinkForm(request.POST)
    if form.is_valid():
        try:
            account = user_named(form.cleaned_data["username"])
            assert account is not None  # the form requires a username
            roster.member_link(member=member, by=signed_in(request), user=account)
        except DomainError as error:
            form.refuse(error)
        else:
            return redirect(f"{league_roster_url(league)}#member-{member.pk}")
    return _roster(request, league, form=MemberForm(), link=(member.pk, form))


def league_roster_url(league: League) -> str:
    return reverse("roster", kwargs={"slug": league.slug})


@login_required
def season_new(request: HttpRequest, slug: str) -> HttpResponse:
    """Start a season of a league (organisers)."""
    league = _league(slug)
    form = SeasonForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            season = services.season_create(
                league=league, by=signed_in(request), **form.cleaned_data
            )
        except DomainError as error:
            form.refuse(error)
        else:
            return redirect("season", pk=season.pk)
    return render(
        request,
        "tournaments/season_new.html",
        {"league": league, "form": form},
        status=400 if form.errors else 200,
    )


def _season(pk: int) -> Season:
    return get_object_or_404(Season.objects.select_related("league", "competition"), pk=pk)


def season_detail(request: HttpRequest, pk: int) -> HttpResponse:
    """A season: its nights (and a new one, for organisers), and the standings' top."""
    season = _season(pk)
    organiser = selectors.is_organiser(season.competition, request.user)
    form = NightForm(request.POST or None)
    if request.method == "POST":
        if not organiser:
            return _refused(request)
        if form.is_valid():
            try:
                night = services.night_create(
                    season=season,
                    by=signed_in(request),
                    on=form.cleaned_data["date"],
                    venue=form.cleaned_data["venue"],
                    notes=form.cleaned_data["notes"],
                )
            except DomainError as error:
                form.refuse(error)
            else:
                return redirect("night", pk=night.pk)
    nights = list(
        season.nights.annotate(
            players=Count("checkins", distinct=True), games=Count("gameentry__game", distinct=True)
        ).order_by("date", "pk")
    )
    today = timezone.localdate()
    context = {
        "season": season,
        "league": season.league,
        "nights": nights,
        # the schedule: tonight and the nights to come first, then those played, latest first
        "upcoming": [n for n in nights if n.date >= today],
        "past": [n for n in reversed(nights) if n.date < today],
        "today": today,
        "calendar_url": request.build_absolute_uri(
            reverse("league-calendar", args=[season.league.slug])
        ),
        "form": form,
        "organiser": organiser,
        "top": selectors.standings(season.competition)[:10],
    }
    return render(request, "tournaments/season.html", context, status=400 if form.errors else 200)


def _refused(request: HttpRequest) -> HttpResponse:
    return render(
        request,
        "403.html",
        {"exception": _("Only an organiser may do that.")},
        status=403,
    )


urlpatterns = [
    path("leagues/", league_list, name="leagues"),
    path("leagues/new/", league_new, name="league-new"),
    path("leagues/<slug:slug>/", league_detail, name="league"),
    path("leagues/<slug:slug>/settings/", league_settings, name="league-settings"),
    path("leagues/<slug:slug>/roster/", roster_page, name="roster"),
    path("leagues/<slug:slug>/roster/<id:member_id>/link/", member_link, name="member-link"),
    path("leagues/<slug:slug>/seasons/new/", season_new, name="season-new"),
    path("seasons/<id:pk>/", season_detail, name="season"),
]
