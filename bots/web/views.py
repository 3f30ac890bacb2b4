"""The bot pages: the ladder, the bots, a bot's page and, for its owner, the controls the
API has (register, add a version, rotate a webhook secret, get a token, see strikes).

Thin over bots.services and bots.selectors, like bots/api/views.py: the same reads, the
same writers, the same refusals, each shown beside the field it is about.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.db.models import Q
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from accounts.models import User
from bots import health, ratings, selectors, services
from bots.models import Bot, BotVersion, Match
from bots.web import figures
from bots.web.forms import AlertsForm, BotForm, TokenForm, VersionForm
from cya_site.errors import DomainError
from games.models import Game

MATCHES_SHOWN = 20
STRIKES_SHOWN = 50
HISTORY_SHOWN = 100  # rated matches in the chart
BOTS_PER_PAGE = 50
BUSY = (BotVersion.Status.PENDING, BotVersion.Status.VALIDATING)


def _user(request: HttpRequest) -> User | None:
    return request.user if isinstance(request.user, User) else None


def ladder(request: HttpRequest) -> HttpResponse:
    """Ranked bot versions, best first, provisional ratings flagged; below them, the
    built-ins' strength as the arena measured it."""
    context = {"board": selectors.leaderboard(), "strength": figures.strength_tables()}
    return render(request, "bots/ladder.html", context)


def bot_list(request: HttpRequest) -> HttpResponse:
    """Your own bots (signed in), then every bot, a page at a time."""
    user = _user(request)
    everyone = Paginator(selectors.bots_all(), BOTS_PER_PAGE).get_page(request.GET.get("page"))
    context = {
        "mine": [_bot_row(bot) for bot in selectors.bots_owned(user)] if user else None,
        "page": everyone,
        "bots": [_bot_row(bot) for bot in everyone],
    }
    return render(request, "bots/bot_list.html", context)


def _bot_row(bot: Bot) -> dict[str, Any]:
    """A bot in a list: its name, kind, owner and newest version (prefetched)."""
    latest = max(bot.versions.all(), key=lambda v: v.number, default=None)
    return {"bot": bot, "kind": figures.KIND_WORDS[Bot.Kind(bot.kind)], "latest": latest}


@login_required
def bot_new(request: HttpRequest) -> HttpResponse:
    """Register a bot (``bots.services.bot_create``); then add its first version."""
    user = _user(request)
    assert user is not None  # login_required
    form = BotForm(request.POST or None, staff=user.is_staff)
    if request.method == "POST" and form.is_valid():
        try:
            bot = services.bot_create(owner=user, **form.cleaned_data)
        except DomainError as error:
            form.refuse(error)
        else:
            return redirect("bot", name=bot.name)
    return render(request, "bots/bot_new.html", {"form": form}, status=400 if form.errors else 200)


def _bot(name: str) -> Bot:
    bot = selectors.bot_named(name)
    if bot is None:
        raise Http404
    return bot


def bot_detail(request: HttpRequest, name: str) -> HttpResponse:
    """A bot: its versions and their validation, recent matches, rating history and, for
    its owner, strikes and the controls."""
    bot = _bot(name)
    if bot.name != name:  # one address per bot: its name as registered
        return redirect("bot", name=bot.name, permanent=True)
    return _page(request, bot)


@require_POST
@login_required
def version_new(request: HttpRequest, name: str) -> HttpResponse:
    """Add a version (``bots.services.version_create``): a webhook's new URL or secret is a
    new version, so rotating the secret posts here too (the ``rotate`` form)."""
    bot = _bot(name)
    prefix = "rotate" if request.POST.get("form") == "rotate" else None
    form = VersionForm(request.POST, kind=bot.kind, prefix=prefix)
    if form.is_valid():
        try:
            version = services.version_create(bot=bot, by=_signed_in(request), **form.cleaned_data)
        except DomainError as error:
            _forbidden(error)
            form.refuse(error)
        else:
            return redirect(f"{reverse('bot', kwargs={'name': bot.name})}#version-{version.number}")
    forms = {"rotate_form" if prefix else "version_form": form}
    return _page(request, bot, status=400, **forms)


@require_POST
@login_required
def version_pause(request: HttpRequest, name: str) -> HttpResponse:
    """Pause the bot's ready version by hand (``bots.health.version_pause``)."""
    bot = _bot(name)
    try:
        version = health.version_pause(bot=bot, by=_signed_in(request))
    except DomainError as error:
        _forbidden(error)
        return _page(request, bot, status=error.http_status, health_error=error.message)
    return redirect(f"{reverse('bot', kwargs={'name': bot.name})}#version-{version.number}")


@require_POST
@login_required
def version_resume(request: HttpRequest, name: str) -> HttpResponse:
    """Resume the bot's paused version once its handshake passes
    (``bots.health.version_resume``); if it fails, the page says why."""
    bot = _bot(name)
    try:
        version = health.version_resume(bot=bot, by=_signed_in(request))
    except DomainError as error:
        _forbidden(error)
        return _page(request, bot, status=error.http_status, health_error=error.message)
    return redirect(f"{reverse('bot', kwargs={'name': bot.name})}#version-{version.number}")


@require_POST
@login_required
def alerts_set(request: HttpRequest, name: str) -> HttpResponse:
    """Set the webhook told of pauses (``bots.health.bot_alerts_set``)."""
    bot = _bot(name)
    form = AlertsForm(request.POST, prefix="alerts")
    if form.is_valid():
        try:
            health.bot_alerts_set(bot=bot, by=_signed_in(request), url=form.cleaned_data["url"])
        except DomainError as error:
            _forbidden(error)
            form.refuse(error)
        else:
            return redirect(f"{reverse('bot', kwargs={'name': bot.name})}#alerts")
    return _page(request, bot, status=400, alerts_form=form)


@require_POST
@login_required
def token_new(request: HttpRequest, name: str) -> HttpResponse:
    """A token for an API-client bot (``bots.services.bot_token_create``), shown once: on
    this answer and never again, so the page is rendered here rather than redirected."""
    bot = _bot(name)
    form = TokenForm(request.POST)
    if form.is_valid():
        try:
            token, key = services.bot_token_create(
                bot=bot, by=_signed_in(request), name=form.cleaned_data["name"]
            )
        except DomainError as error:
            _forbidden(error)
            form.refuse(error)
        else:
            return _page(request, bot, status=201, token=token, key=key)
    return _page(request, bot, status=400, token_form=form)


def _signed_in(request: HttpRequest) -> User:
    user = _user(request)
    if user is None:
        raise PermissionDenied
    return user


def _forbidden(error: DomainError) -> None:
    """A refusal of who is asking, not of what was typed: the 403 page."""
    if error.http_status == 403:
        raise PermissionDenied(error.message)


@dataclass(frozen=True)
class _Access:
    """What the signed-in user may see and do on a bot's page: what the services let them."""

    owner: bool  # tokens are the owner's alone (services.bot_token_create)
    manages: bool  # owner or staff: versions, webhook URLs, logs, strikes


def _access(request: HttpRequest, bot: Bot) -> _Access:
    user = _user(request)
    owner = user is not None and user.pk == bot.owner_id
    return _Access(owner, owner or (user is not None and user.is_staff))


def _page(request: HttpRequest, bot: Bot, *, status: int = 200, **extra: Any) -> HttpResponse:
    """A bot's page, with any form that was just refused (its reasons beside its fields)."""
    access = _access(request, bot)
    versions = selectors.bot_versions(bot)
    context: dict[str, Any] = {
        "bot": bot,
        "kind": figures.KIND_WORDS[Bot.Kind(bot.kind)],
        "access": access,
        "versions": [_version_row(v) for v in versions],
        "busy": any(v.status in BUSY for v in versions),
        "matches": _match_rows(bot),
        "figure": figures.rating_figure(selectors.rating_history(bot, HISTORY_SHOWN)),
        "history_shown": HISTORY_SHOWN,
    }
    if access.manages:
        context["strikes"] = [
            {"strike": s, "replay": figures.replay_path(s.control.seat.game_id)}
            for s in selectors.bot_strikes(bot, STRIKES_SHOWN)
        ]
        context["strikes_shown"] = STRIKES_SHOWN
        context["version_form"] = extra.pop("version_form", None) or _version_form(bot, versions)
        if bot.kind == Bot.Kind.WEBHOOK and versions:
            context["rotate_form"] = extra.pop("rotate_form", None) or _rotate_form(versions[0])
        if bot.kind != Bot.Kind.BUILTIN:
            initial = {"url": bot.alert_url}
            context["alerts_form"] = extra.pop("alerts_form", None) or AlertsForm(
                initial=initial, prefix="alerts"
            )
            rules = health.limits()
            context["pause_strikes"] = rules.strikes
            context["pause_games"] = rules.autopilot_games
            context["pause_minutes"] = int(rules.window.total_seconds() // 60)
    if access.owner and bot.kind == Bot.Kind.API_CLIENT:
        context["token_form"] = extra.pop("token_form", None) or TokenForm()
    context.update(extra)
    return render(request, "bots/bot.html", context, status=status)


def _version_form(bot: Bot, versions: list[BotVersion]) -> VersionForm:
    """A fresh version form: a webhook's URL as the newest version has it. The secret is
    the owner's to type, or to make with the Generate button (bots/secret.js): never
    filled in here, so the page never shows one the bot's server does not know."""
    initial = {"url": versions[0].url if versions else ""}
    return VersionForm(kind=bot.kind, initial=initial)


def _rotate_form(newest: BotVersion) -> VersionForm:
    """Rotating the secret: the same URL and tag, a new secret, as a new version."""
    initial = {"url": newest.url, "tag": newest.tag}
    return VersionForm(kind=newest.bot.kind, prefix="rotate", initial=initial)


VALIDATION_GAME = re.compile(r"^validation game (\d+) ")  # bots.validation's log line


def _version_row(version: BotVersion) -> dict[str, Any]:
    return {
        "version": version,
        "provisional": ratings.provisional(version.sigma, version.games_played),
        "log": [_log_line(line) for line in version.validation_log],
    }


def _log_line(line: str) -> dict[str, Any]:
    """A validation log line, with its validation game's replay if it names one."""
    found = VALIDATION_GAME.match(line)
    return {"text": line, "replay": figures.replay_path(int(found[1])) if found else None}


def _match_rows(bot: Bot) -> list[dict[str, Any]]:
    """The bot's latest matches, newest first: where it placed, against whom, how its
    rating moved, and each game's replay."""
    played = selectors.matches_of(Q(pk=bot.pk))
    matches = selectors.match_rows(played).order_by("-created_at", "-id")[:MATCHES_SHOWN]
    return [_match_row(bot, match) for match in matches]


def _match_row(bot: Bot, match: Match) -> dict[str, Any]:
    entries = list(match.entries.all())
    mine = [e for e in entries if e.version.bot_id == bot.pk]
    changes = [c for c in match.rating_changes.all() if c.version.bot_id == bot.pk]
    delta = None
    if changes:
        change = changes[0]
        delta = (change.mu_after - 3 * change.sigma_after) - (
            change.mu_before - 3 * change.sigma_before
        )
    return {
        "match": match,
        "kind": figures.MATCH_KIND_WORDS[Match.Kind(match.kind)],
        "status": figures.MATCH_STATUS_WORDS[Match.Status(match.status)],
        "mine": mine,
        "opponents": sorted(
            (e for e in entries if e.version.bot_id != bot.pk),
            key=lambda e: (e.place or len(entries) + 1, e.position),
        ),
        "delta": delta,
        # a replay for each game played to its end: the others are not there yet
        "games": [
            (n, figures.replay_path(mg.game_id))
            for n, mg in enumerate(match.match_games.all(), start=1)
            if mg.game.status == Game.Status.FINISHED
        ],
        "unplayed": match.status in (Match.Status.SCHEDULED, Match.Status.RUNNING),
        "challenge": getattr(match, "challenge_deal", None),  # a deal of a bot challenge
    }
