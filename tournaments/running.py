"""Running tournaments: creating one, its entrants, starting it with its first round seated.

Round robin plans every round at the start from the tournament's seed (tournaments.seating,
so a plan can be reproduced); Swiss plans each round from the standings so far
(tournaments.rounds, which also opens each round's tables and advances rounds).
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict

from django.db import transaction
from django.utils.translation import gettext as _

from accounts.models import User
from bots.models import BotVersion
from cya_site.errors import DomainError
from games.engine import RuleSet
from tournaments import roster, seating
from tournaments.changelog import log
from tournaments.models import Competition, Competitor, League, Member, Tournament, TournamentRound
from tournaments.rounds import round_open
from tournaments.services import competition_create, require_organiser

MAX_ROUNDS = 20


@transaction.atomic
def tournament_create(
    *,
    by: User,
    name: str,
    format: str,
    entrants: str,
    rules: RuleSet,
    rounds: int,
    table_sizes: list[int],
    preferred_size: int,
    tiebreaks: list[str] | None = None,
    seed: int | None = None,
    play: str = Tournament.Play.DIGITAL,
    decision_ms: int = 1000,
    time_bank_ms: int = 15_000,
    league: League | None = None,
    members: Sequence[Member] = (),
    names: Sequence[str] = (),
    users: Sequence[User] = (),
) -> Tournament:
    """A tournament taking entrants; seating and games come when it starts.

    A club's tournament (``league``) takes its entrants from the league's roster and is
    run by the league's organisers too; only they may create one. Entrants given here
    (roster ``members``, guests by ``names``, accounts as ``users``) join in the same
    transaction, and must then be a field the table sizes can seat: a page creates the
    tournament and its field at once, or nothing. A refusal about them names the
    argument in ``details.field``.
    """
    if league is not None:
        roster.require_league_organiser(league, by)
    if format not in Tournament.Format.values:
        raise DomainError("invalid", f"format must be one of {', '.join(Tournament.Format.values)}")
    if entrants not in Tournament.Entrants.values:
        raise DomainError("invalid", "entrants must be humans or bots", {"field": "entrants"})
    if not 1 <= rounds <= MAX_ROUNDS:
        raise DomainError(
            "invalid",
            _("A tournament has from 1 to %(n)d rounds.") % {"n": MAX_ROUNDS},
            {"field": "rounds"},
        )
    sizes = sorted(set(table_sizes))
    if not sizes or any(not 2 <= s <= min(6, rules.max_players) for s in sizes):
        raise DomainError(
            "invalid", _("Tables seat from 2 to 6 players."), {"field": "table_sizes"}
        )
    if preferred_size not in sizes:
        raise DomainError(
            "invalid",
            _("The preferred size must be one of the table sizes allowed."),
            {"field": "preferred_size"},
        )
    if entrants == Tournament.Entrants.BOTS and play != Tournament.Play.DIGITAL:
        raise DomainError("invalid", "bots play on the platform", {"field": "play"})
    competition = competition_create(
        kind=Competition.Kind.TOURNAMENT, name=name, tiebreaks=tiebreaks, best_of=None
    )
    tournament = Tournament.objects.create(
        competition=competition,
        organiser=by,
        format=format,
        entrants=entrants,
        play=play,
        rules=rules.to_json(),
        rounds=rounds,
        table_sizes=sizes,
        preferred_size=preferred_size,
        seed=secrets.randbits(62) if seed is None else seed,
        decision_ms=decision_ms,
        time_bank_ms=time_bank_ms,
        league=league,
    )
    log(competition, by, "tournament_created", name, after={"format": format, "rounds": rounds})
    _entrants_add(tournament, by, members=members, names=names, users=users)
    return tournament


def _entrants_add(
    tournament: Tournament,
    by: User,
    *,
    members: Sequence[Member],
    names: Sequence[str],
    users: Sequence[User],
) -> None:
    """The field given at creation; the caller's transaction undoes it all on a refusal."""
    for member in members:
        with _about("members"):
            entrant_add(tournament=tournament, by=by, member=member)
    for name in names:
        with _about("names"):
            entrant_add(tournament=tournament, by=by, name=name)
    roster_of = Member.objects.filter(league=tournament.league_id, user__in=users)
    on_roster = {m.user_id: m for m in roster_of} if tournament.league_id and users else {}
    for user in users:
        with _about("users"):  # an account on the club's roster enters by its roster name
            entrant_add(tournament=tournament, by=by, user=user, member=on_roster.get(user.pk))
    n = len(members) + len(names) + len(users)
    if n == 0:
        return  # entrants join later (the API adds them one by one)
    try:
        # Refused now rather than at the start: the organiser is still at the form.
        seating.table_sizes(n, tournament.table_sizes, tournament.preferred_size)
    except ValueError:
        raise _cannot_seat(n, tournament.table_sizes, field="table_sizes") from None


def _cannot_seat(n: int, sizes: Sequence[int], **details: object) -> DomainError:
    return DomainError(
        "cannot_seat",
        _("%(n)d entrants cannot be seated at tables of %(sizes)s.")
        % {"n": n, "sizes": ", ".join(map(str, sizes))},
        {**details, "entrants": n},
    )


@contextmanager
def _about(field: str) -> Iterator[None]:
    """Name the argument a refusal is about, so a page shows it beside that field."""
    try:
        yield
    except DomainError as error:
        details = {**error.details, "field": field}
        raise DomainError(error.code, error.message, details, error.http_status) from None


@transaction.atomic
def entrant_add(
    *,
    tournament: Tournament,
    by: User,
    name: str = "",
    user: User | None = None,
    bot_version: BotVersion | None = None,
    member: Member | None = None,
) -> Competitor:
    """An entrant: an account, a guest name or a roster member (people), or a ready bot
    version (bots)."""
    from tournaments.services import competitor_add

    # Locked and read afresh: an entrant joining while the start commits must not slip
    # in unseated (the caller's copy may predate the start).
    tournament = Tournament.objects.select_for_update().get(pk=tournament.pk)
    if tournament.status != Tournament.Status.DRAFT:
        raise DomainError("tournament_started", "Entrants join before the start.", status=409)
    if tournament.entrants == Tournament.Entrants.BOTS:
        if bot_version is None or bot_version.status != BotVersion.Status.READY:
            raise DomainError("invalid", "A bot tournament takes ready bot versions.")
        name = name or f"{bot_version.bot.name} v{bot_version.number}"
    else:
        if bot_version is not None:
            raise DomainError("invalid", "This tournament is for people.")
        if member is not None:
            user = member.user
            name = name or member.name
        if user is None and tournament.play == Tournament.Play.DIGITAL:
            raise DomainError(
                "needs_accounts",
                _("%(name)s has no account: online play needs one for every entrant.")
                % {"name": name or _("A guest")},
            )
        name = name or (user.username if user else "")
    if not name:
        raise DomainError("invalid", "An entrant needs a name.", {"field": "name"})
    return competitor_add(
        competition=tournament.competition,
        by=by,
        name=name,
        user=user,
        bot_version=bot_version,
        member=member,
    )


@transaction.atomic
def tournament_start(*, tournament: Tournament, by: User) -> TournamentRound:
    """Seat round one (round robin: every round) and start its games."""
    tournament = Tournament.objects.select_for_update().get(pk=tournament.pk)
    require_organiser(tournament.competition, by)
    if tournament.status != Tournament.Status.DRAFT:
        raise DomainError(
            "tournament_started", _("The tournament has already started."), status=409
        )
    n = tournament.competition.competitors.count()
    try:
        seating.table_sizes(n, tournament.table_sizes, tournament.preferred_size)
    except ValueError:
        raise _cannot_seat(n, tournament.table_sizes) from None
    tournament.status = Tournament.Status.RUNNING
    tournament.save(update_fields=["status"])
    planned = tournament.rounds if tournament.format == Tournament.Format.ROUND_ROBIN else 1
    plan = seating.schedule(
        n,
        planned,
        allowed=tournament.table_sizes,
        preferred=tournament.preferred_size,
        seed=tournament.seed,
    )
    for number, tables in enumerate(plan.rounds, start=1):
        TournamentRound.objects.create(
            tournament=tournament,
            number=number,
            plan=tables,
            status=TournamentRound.Status.SEATED,
            quality=asdict(seating.quality(plan.rounds[:number])),
        )
    log(
        tournament.competition,
        by,
        "tournament_started",
        tournament.competition.name,
        after={"quality": plan.quality.__dict__},
    )
    return round_open(tournament, 1)
