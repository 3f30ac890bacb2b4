"""Leagues, seasons, game nights, competitors, webhooks: one transaction each.

Running tournaments (seating, rounds, bot canvases) is in tournaments.running; recording
real-table games in tournaments.recording. Every organiser change lands in the
competition's change log.
"""

from __future__ import annotations

import secrets
from datetime import date

from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from accounts.models import User
from bots.models import BotVersion
from cya_site.errors import DomainError
from games import services as game_services
from games.engine import RuleSet
from games.models import Game
from tournaments import ranking, results, selectors
from tournaments.models import (
    ChangeLog,
    Competition,
    Competitor,
    GameEntry,
    GameNight,
    League,
    Season,
    Webhook,
)


def require_organiser(competition: Competition, user: User) -> None:
    """Refuse anyone but the competition's organisers (and staff)."""
    if not selectors.is_organiser(competition, user):
        raise DomainError("permission_denied", "Only an organiser may do that.", status=403)


def log(
    competition: Competition,
    actor: User | None,
    action: str,
    subject: str,
    *,
    reason: str = "",
    before: object = None,
    after: object = None,
) -> None:
    """Append to the competition's change log."""
    ChangeLog.objects.create(
        competition=competition,
        actor=actor,
        action=action,
        subject=subject,
        reason=reason,
        before=before,
        after=after,
    )


def competition_create(
    *, kind: str, name: str, tiebreaks: list[str] | None, best_of: int | None
) -> Competition:
    """A competition with a validated tie-break order and a fresh lot seed."""
    order = list(tiebreaks or [])
    unknown = [c for c in order if c not in ranking.CRITERIA]
    if unknown or len(set(order)) != len(order):
        raise DomainError(
            "invalid_tiebreaks",
            f"Tie-breaks are distinct names among {', '.join(ranking.CRITERIA)}.",
            {"unknown": unknown},
        )
    if best_of is not None and best_of < 1:
        raise DomainError("invalid", "best_of counts at least one night.", {"field": "best_of"})
    return Competition.objects.create(
        kind=kind, name=name, tiebreaks=order, best_of=best_of, lot_seed=secrets.token_hex(16)
    )


# --- leagues ----------------------------------------------------------------------------------


@transaction.atomic
def league_create(
    *, by: User, name: str, slug: str, rules: RuleSet, description: str = ""
) -> League:
    """A league; its creator organises it."""
    if League.objects.filter(slug=slug).exists():
        raise DomainError("slug_taken", "A league already has this slug.", {"slug": slug}, 409)
    league = League.objects.create(
        name=name, slug=slug, description=description, created_by=by, rules=rules.to_json()
    )
    league.organisers.add(by)
    return league


@transaction.atomic
def league_organiser_add(*, league: League, by: User, user: User) -> League:
    """Another organiser for a league (its organisers and staff only)."""
    if (
        by.pk not in {league.created_by_id, *league.organisers.values_list("pk", flat=True)}
        and not by.is_staff
    ):
        raise DomainError("permission_denied", "Only an organiser may do that.", status=403)
    league.organisers.add(user)
    for season in league.seasons.select_related("competition"):
        log(season.competition, by, "organiser_added", f"organiser {user.username}")
    return league


@transaction.atomic
def season_create(
    *,
    league: League,
    by: User,
    name: str,
    starts_on: date,
    ends_on: date | None = None,
    best_of: int | None = None,
    tiebreaks: list[str] | None = None,
) -> Season:
    """A season of a league, with its own standings."""
    if (
        by.pk not in {league.created_by_id, *league.organisers.values_list("pk", flat=True)}
        and not by.is_staff
    ):
        raise DomainError("permission_denied", "Only an organiser may do that.", status=403)
    if ends_on is not None and ends_on < starts_on:
        raise DomainError("invalid", "A season ends after it starts.", {"field": "ends_on"})
    competition = competition_create(
        kind=Competition.Kind.SEASON,
        name=f"{league.name} {name}",
        tiebreaks=tiebreaks,
        best_of=best_of,
    )
    season = Season.objects.create(
        league=league, competition=competition, name=name, starts_on=starts_on, ends_on=ends_on
    )
    log(
        competition,
        by,
        "season_created",
        season.name,
        after={"best_of": best_of, "tiebreaks": tiebreaks},
    )
    return season


@transaction.atomic
def night_create(
    *, season: Season, by: User, on: date, venue: str = "", notes: str = ""
) -> GameNight:
    """A game night of a season."""
    require_organiser(season.competition, by)
    night = GameNight.objects.create(season=season, date=on, venue=venue, notes=notes)
    log(season.competition, by, "night_created", f"night {on}", after={"venue": venue})
    return night


@transaction.atomic
def competitor_add(
    *,
    competition: Competition,
    by: User,
    name: str,
    user: User | None = None,
    bot_version: BotVersion | None = None,
) -> Competitor:
    """A person (an account, or a guest by name) or a bot version joins a competition."""
    require_organiser(competition, by)
    if not name.strip():  # a blank name used to be accepted, and then shown as ""
        raise DomainError("invalid", "A competitor needs a name.", {"field": "name"})
    if user is not None and bot_version is not None:
        raise DomainError("invalid", "A competitor is a person or a bot version, not both.")
    if Competitor.objects.filter(competition=competition, name__iexact=name).exists():
        raise DomainError(
            "name_taken", "Someone in this competition has that name.", {"name": name}, 409
        )
    if user is not None and Competitor.objects.filter(competition=competition, user=user).exists():
        raise DomainError("already_entered", "That player is already entered.", status=409)
    highest = competition.competitors.aggregate(n=Max("number"))["n"]
    number = 0 if highest is None else highest + 1
    competitor = Competitor.objects.create(
        competition=competition, name=name, user=user, bot_version=bot_version, number=number
    )
    log(competition, by, "competitor_added", name)
    return competitor


@transaction.atomic
def competitor_link(*, competitor: Competitor, by: User, user: User) -> Competitor:
    """Merge a guest into an account: the guest's results become the account's."""
    competition = competitor.competition
    require_organiser(competition, by)
    if competitor.user_id is not None:
        raise DomainError("already_linked", "This competitor already has an account.", status=409)
    if Competitor.objects.filter(competition=competition, user=user).exists():
        raise DomainError("already_entered", "That account is already entered.", status=409)
    competitor.user = user
    competitor.save(update_fields=["user"])
    log(competition, by, "guest_linked", competitor.name, after={"user": user.username})
    return competitor


@transaction.atomic
def night_digital_game(
    *, night: GameNight, by: User, competitors: list[Competitor], rules: RuleSet | None = None
) -> Game:
    """A digital game for a league night: the players play it on the platform."""
    competition = night.season.competition
    require_organiser(competition, by)
    if any(c.user is None for c in competitors):
        raise DomainError("needs_accounts", "Everyone at a digital table needs an account.")
    rules = (rules or RuleSet.from_json(night.season.league.rules)).with_options(
        seats=len(competitors)
    )
    game = game_services.game_create(by=by, rules=rules, take_seat=False)
    for n, competitor in enumerate(competitors):
        assert competitor.user is not None
        game_services.game_join(game=game, user=competitor.user, seat=n)
    game_services.game_start(game=game, by=by)
    GameEntry.objects.bulk_create(
        GameEntry(competition=competition, game=game, seat=n, competitor=c, night=night)
        for n, c in enumerate(competitors)
    )
    log(
        competition,
        by,
        "game_started",
        f"game {game.pk}",
        after={"players": [c.name for c in competitors]},
    )
    return game


def results_sync(*, competition: Competition) -> int:
    """Take in every game of the competition that finished since (idempotent)."""
    return results.sync_competition(competition=competition, now=timezone.now())


# --- notifications ------------------------------------------------------------------------------


@transaction.atomic
def webhook_add(
    *, competition: Competition, by: User, url: str, secret: str = ""
) -> tuple[Webhook, str]:
    """A signed result webhook; returns it and its secret (shown once)."""
    require_organiser(competition, by)
    if not url.startswith(("http://", "https://")):
        raise DomainError("invalid", "A webhook needs an http(s) URL.", {"field": "url"})
    secret = secret or secrets.token_urlsafe(32)
    if len(secret) < 16:
        raise DomainError(
            "invalid", "A webhook secret needs 16 characters or more.", {"field": "secret"}
        )
    hook = Webhook.objects.create(competition=competition, url=url, secret=secret, created_by=by)
    log(competition, by, "webhook_added", url)
    return hook, secret
