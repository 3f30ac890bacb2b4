"""Running tournaments: entrants, seating every round, the tables' games, advancing rounds.

Round robin plans every round at the start from the tournament's seed (tournaments.seating,
so a plan can be reproduced); Swiss plans each round from the standings so far. A table
plays a digital game (people), a recorded real-table game, or an unrated bot match run by
Celery (bot tournaments: one task per table and a callback, tournaments.tasks). A round
advances once all its games have ended: results are taken in, the next round is seated.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User
from bots import services as bot_services
from bots.models import BotVersion, Match
from cya_site import dispatch
from cya_site.errors import DomainError
from games import services as game_services
from games.engine import RuleSet
from games.models import Game
from tournaments import notifications, recording, results, roster, seating, selectors
from tournaments.changelog import log
from tournaments.models import (
    Competition,
    Competitor,
    GameEntry,
    League,
    Member,
    Tournament,
    TournamentRound,
)
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
    return _open(tournament, 1)


def _open(tournament: Tournament, number: int) -> TournamentRound:
    """Create the round's games from its plan, and start them."""
    round_ = TournamentRound.objects.select_for_update().get(tournament=tournament, number=number)
    competitors = {
        c.number: c
        for c in tournament.competition.competitors.select_related(
            "user", "bot_version__bot__owner"
        )
    }
    rules = RuleSet.from_json(tournament.rules)
    matches = []
    for index, table in enumerate(round_.plan):
        seated = [competitors[i] for i in table]
        table_rules = rules.with_options(seats=len(seated))
        if tournament.entrants == Tournament.Entrants.BOTS:
            match = bot_services.match_create(
                versions=[c.bot_version for c in seated if c.bot_version],
                kind=Match.Kind.FRIENDLY,
                rules=table_rules,
                duplicate=False,
                decision_ms=tournament.decision_ms,
                time_bank_ms=tournament.time_bank_ms,
            )
            matches.append(match.pk)
            game = match.match_games.get().game
            _enter(tournament, round_, index, game, seated)
        elif tournament.play == Tournament.Play.RECORDED:
            recording.recorded_game_create(
                by=tournament.organiser,
                competition=tournament.competition,
                competitors=seated,
                rules=table_rules,
                round_=round_,
                table=index,
            )
        else:
            game = game_services.game_create(
                by=tournament.organiser, rules=table_rules, take_seat=False
            )
            for seat, competitor in enumerate(seated):
                assert competitor.user is not None
                game_services.game_join(game=game, user=competitor.user, seat=seat)
            game_services.game_start(game=game, by=tournament.organiser)
            _enter(tournament, round_, index, game, seated)
    round_.status = TournamentRound.Status.PLAYING
    round_.save(update_fields=["status"])
    if matches:  # if the broker cannot take them now, bots.sweep resends the matches
        from tournaments.tasks import play_round

        dispatch.send_on_commit(play_round, (tournament.pk, number, matches))
    return round_


def _enter(
    tournament: Tournament,
    round_: TournamentRound,
    table: int,
    game: Game,
    seated: list[Competitor],
) -> None:
    GameEntry.objects.bulk_create(
        GameEntry(
            competition=tournament.competition,
            game=game,
            seat=seat,
            competitor=competitor,
            round=round_,
            table=table,
        )
        for seat, competitor in enumerate(seated)
    )


@transaction.atomic
def round_advance(*, tournament: Tournament, number: int) -> TournamentRound | None:
    """Close a round whose games have all ended; seat the next one or finish (idempotent).

    Returns the next round, or None when the tournament has finished (or the round was
    already closed). Raises ``no_such_round`` (404) for a round the tournament has not
    seated.
    """
    tournament = Tournament.objects.select_for_update().get(pk=tournament.pk)
    round_ = (
        TournamentRound.objects.select_for_update()
        .filter(tournament=tournament, number=number)
        .first()
    )
    if round_ is None:
        raise DomainError("no_such_round", f"The tournament has no round {number}.", status=404)
    if round_.status == TournamentRound.Status.FINISHED:
        return None
    games = Game.objects.filter(competition_entries__round=round_).distinct()
    unfinished = [g.pk for g in games if g.status in (Game.Status.OPEN, Game.Status.ACTIVE)]
    if unfinished or not results_complete(tournament, games):
        raise DomainError(
            "round_not_finished", "Some tables have not finished.", {"games": unfinished}, 409
        )
    now = timezone.now()
    for game in games:
        results.take_in(competition=tournament.competition, game=game, now=now)
    round_.status = TournamentRound.Status.FINISHED
    round_.save(update_fields=["status"])
    if number >= tournament.rounds:
        tournament.status = Tournament.Status.FINISHED
        tournament.save(update_fields=["status"])
        standings = selectors.standings(tournament.competition)
        notifications.publish(
            tournament.competition,
            "tournament.finished",
            {"tournament": tournament.pk, "standings": _jsonable(standings)},
        )
        log(tournament.competition, None, "tournament_finished", tournament.competition.name)
        return None
    if tournament.format == Tournament.Format.SWISS:
        _plan_swiss(tournament, number + 1)
    return _open(tournament, number + 1)


def game_ended(*, game_id: int) -> int:
    """A game has ended: take its result into every competition it belongs to, and close
    its tournament round if that was the round's last table (idempotent: a resent or
    repeated call changes nothing more). How many competitions' results changed."""
    game = Game.objects.filter(pk=game_id).first()
    if game is None:
        return 0  # deleted since (a competition removed with its games)
    entries = GameEntry.objects.filter(game=game).select_related("competition", "round__tournament")
    competitions = {e.competition_id: e.competition for e in entries}
    rounds = {e.round_id: e.round for e in entries if e.round is not None}
    now = timezone.now()
    changed = 0
    for competition in competitions.values():
        with transaction.atomic():
            changed += results.take_in(competition=competition, game=game, now=now)
    for round_ in rounds.values():
        if round_.status != TournamentRound.Status.PLAYING:
            continue
        try:
            round_advance(tournament=round_.tournament, number=round_.number)
        except DomainError as error:
            if error.code != "round_not_finished":
                raise
    return changed


def results_complete(tournament: Tournament, games: Any) -> bool:
    """Recorded games must also be confirmed before the round closes."""
    return all(results.counts(g) or g.status == Game.Status.ABORTED for g in games)


def _plan_swiss(tournament: Tournament, number: int) -> None:
    history = seating.History()
    earlier = TournamentRound.objects.filter(tournament=tournament, number__lt=number)
    plans = list(earlier.order_by("number").values_list("plan", flat=True))
    for plan in plans:
        history.record(plan)
    numbers = dict(tournament.competition.competitors.values_list("pk", "number"))
    order = [numbers[row["competitor"]] for row in selectors.standings(tournament.competition)]
    sizes = seating.table_sizes(len(order), tournament.table_sizes, tournament.preferred_size)
    tables = seating.swiss_tables(order, sizes, history)
    TournamentRound.objects.create(
        tournament=tournament,
        number=number,
        plan=tables,
        quality=asdict(seating.quality([*plans, tables])),
    )


def _jsonable(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [dict(row) for row in rows]
