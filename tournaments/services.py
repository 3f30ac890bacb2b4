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
from django.utils.translation import gettext as _

from accounts.models import User
from bots.models import BotVersion
from cya_site import outbound
from cya_site.errors import DomainError
from games import services as game_services
from games.engine import RuleSet
from games.models import Game
from tournaments import ranking, results, roster, selectors
from tournaments.changelog import log
from tournaments.models import (
    Competition,
    Competitor,
    GameEntry,
    GameNight,
    League,
    Member,
    Season,
    SubstitutePolicy,
    Webhook,
)

MAX_BEST_OF = 32_767  # Competition.best_of's column (a small integer) holds no more


def require_organiser(competition: Competition, user: User) -> None:
    """Refuse anyone but the competition's organisers (and staff)."""
    if not selectors.is_organiser(competition, user):
        raise DomainError("permission_denied", _("Only an organiser may do that."), status=403)


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
    if best_of is not None and not 1 <= best_of <= MAX_BEST_OF:
        raise DomainError(
            "invalid",
            f"best_of counts from 1 to {MAX_BEST_OF} nights.",
            {"field": "best_of"},
        )
    return Competition.objects.create(
        kind=kind, name=name, tiebreaks=order, best_of=best_of, lot_seed=secrets.token_hex(16)
    )


# --- leagues ----------------------------------------------------------------------------------


@transaction.atomic
def league_create(
    *,
    by: User,
    name: str,
    slug: str,
    rules: RuleSet,
    description: str = "",
    organiser_entries_settle: bool = False,
) -> League:
    """A league; its creator organises it."""
    if League.objects.filter(slug=slug).exists():
        raise DomainError("slug_taken", "A league already has this slug.", {"slug": slug}, 409)
    league = League.objects.create(
        name=name,
        slug=slug,
        description=description,
        created_by=by,
        rules=rules.to_json(),
        organiser_entries_settle=organiser_entries_settle,
    )
    league.organisers.add(by)
    return league


@transaction.atomic
def league_settings_change(
    *,
    league: League,
    by: User,
    organiser_entries_settle: bool | None = None,
    substitute_policy: str | None = None,
) -> League:
    """Change whether an organiser's entry counts at once, and how the game of a player
    who left is scored (its organisers and staff); None leaves a setting as it is. A
    substitution keeps the policy it was recorded under."""
    roster.require_league_organiser(league, by)
    if substitute_policy is not None and substitute_policy not in SubstitutePolicy.values:
        raise DomainError(
            "invalid",
            _("The substitute policy is fixed or seat."),
            {"field": "substitute_policy"},
        )
    changes: list[tuple[str, str, object]] = []
    if organiser_entries_settle is not None:
        changes.append(
            ("organiser_entries_settle", "organiser entries settle", organiser_entries_settle)
        )
    if substitute_policy is not None:
        changes.append(("substitute_policy", "substitute policy", substitute_policy))
    changes = [c for c in changes if getattr(league, c[0]) != c[2]]
    for field, subject, value in changes:
        before = getattr(league, field)
        setattr(league, field, value)
        for season in league.seasons.select_related("competition"):
            log(
                season.competition,
                by,
                "league_settings_changed",
                subject,
                before=before,
                after=value,
            )
    league.save(update_fields=[c[0] for c in changes])
    return league


@transaction.atomic
def league_organiser_add(*, league: League, by: User, user: User) -> League:
    """Another organiser for a league (its organisers and staff only)."""
    roster.require_league_organiser(league, by)
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
    roster.require_league_organiser(league, by)
    if ends_on is not None and ends_on < starts_on:
        raise DomainError("invalid", "A season ends after it starts.", {"field": "ends_on"})
    competition = competition_create(
        kind=Competition.Kind.SEASON,
        # A label: a long league and season name together are cut to the column's width
        # (the season keeps its whole name), rather than failing the insert with a 500.
        name=f"{league.name} {name}"[: Competition._meta.get_field("name").max_length],
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
    name: str = "",
    user: User | None = None,
    bot_version: BotVersion | None = None,
    member: Member | None = None,
) -> Competitor:
    """A person (an account, a guest by name, or a roster member) or a bot version joins.

    In a league's competitions every person is on the league's roster: a member given is
    taken as it is; a name or account not yet on the roster is added to it, so nobody is
    typed twice in a club.
    """
    require_organiser(competition, by)
    return _competitor_create(
        competition=competition,
        by=by,
        name=name,
        user=user,
        bot_version=bot_version,
        member=member,
    )


def competitor_of_member(*, competition: Competition, member: Member, by: User) -> Competitor:
    """The member's competitor in a competition of its league, added if not there yet:
    by an organiser, or by the member themself (checking in to a night)."""
    found = Competitor.objects.filter(competition=competition, member=member).first()
    if found is not None:
        return found
    if member.user_id is None or member.user_id != by.pk:
        require_organiser(competition, by)
    return _competitor_create(competition=competition, by=by, member=member)


def _competitor_create(
    *,
    competition: Competition,
    by: User,
    name: str = "",
    user: User | None = None,
    bot_version: BotVersion | None = None,
    member: Member | None = None,
) -> Competitor:
    league = selectors.league_of(competition)
    if member is not None:
        if league is None or member.league_id != league.pk:
            raise DomainError(
                "not_on_roster",
                _("That player is not on this club's roster."),
                {"member": member.pk},
            )
        name, user = name or member.name, member.user
    name = name.strip()
    if not name:  # a blank name used to be accepted, and then shown as ""
        raise DomainError("invalid", _("A competitor needs a name."), {"field": "name"})
    if user is not None and bot_version is not None:
        raise DomainError("invalid", _("A competitor is a person or a bot version, not both."))
    if Competitor.objects.filter(competition=competition, name__iexact=name).exists():
        raise DomainError(
            "name_taken",
            _("Someone in this competition is called “%(name)s”.") % {"name": name},
            {"name": name},
            409,
        )
    if user is not None and Competitor.objects.filter(competition=competition, user=user).exists():
        raise DomainError("already_entered", _("That player is already entered."), status=409)
    if member is None and league is not None and bot_version is None:
        member = roster.member_for(league=league, name=name, user=user)
    highest = competition.competitors.aggregate(n=Max("number"))["n"]
    number = 0 if highest is None else highest + 1
    competitor = Competitor.objects.create(
        competition=competition,
        name=name,
        user=user,
        bot_version=bot_version,
        member=member,
        number=number,
    )
    log(competition, by, "competitor_added", name)
    return competitor


@transaction.atomic
def competitor_link(*, competitor: Competitor, by: User, user: User) -> Competitor:
    """Merge a guest into an account: the guest's results become the account's.

    A guest taken from a league's roster is linked on the roster, so the account takes
    over the guest's results in every season and tournament of the league.
    """
    competition = competitor.competition
    require_organiser(competition, by)
    if competitor.member_id is not None and competitor.user_id is None:
        assert competitor.member is not None
        roster.member_link(member=competitor.member, by=by, user=user)
        competitor.refresh_from_db()
        return competitor
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
    results.games_enter(
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


# --- notifications ------------------------------------------------------------------------------


@transaction.atomic
def webhook_add(
    *, competition: Competition, by: User, url: str, secret: str = ""
) -> tuple[Webhook, str]:
    """A signed result webhook; returns it and its secret (shown once). Its URL must reach
    an allowed address (``cya_site.outbound.url_check``), or nothing is stored."""
    require_organiser(competition, by)
    secret = secret or secrets.token_urlsafe(32)
    if len(secret) < 16:
        raise DomainError(
            "invalid", "A webhook secret needs 16 characters or more.", {"field": "secret"}
        )
    outbound.url_check(url)  # after the checks that need no DNS
    hook = Webhook.objects.create(competition=competition, url=url, secret=secret, created_by=by)
    log(competition, by, "webhook_added", url)
    return hook, secret
