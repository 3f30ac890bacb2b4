"""A tournament's rounds: opening a round's tables, advancing once they have all ended.

A table plays a digital game (people), a recorded real-table game, or an unrated bot match
run by Celery (bot tournaments: one task per table and a callback, tournaments.tasks). A
round advances once all its games have ended: results are taken in, the next round is
seated (Swiss plans it from the standings so far) or the tournament finishes.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any, cast

from celery import Task, signature
from django.db import transaction
from django.utils import timezone

from bots import services as bot_services
from bots.models import Match
from cya_site import dispatch
from cya_site.errors import DomainError
from games import services as game_services
from games.engine import RuleSet
from games.models import Game
from tournaments import notifications, recording, results, seating, selectors
from tournaments.changelog import log
from tournaments.models import Competitor, GameEntry, Tournament, TournamentRound

# tournaments.tasks runs the rounds, so its task is sent by name: importing it here would
# close an import cycle (tests/test_import_cycles.py)
PLAY_ROUND = "tournaments.play_round"


def round_open(tournament: Tournament, number: int) -> TournamentRound:
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
        play_round = cast(Task[Any, Any], signature(PLAY_ROUND))  # a Task's apply_async
        dispatch.send_on_commit(play_round, (tournament.pk, number, matches))
    return round_


def _enter(
    tournament: Tournament,
    round_: TournamentRound,
    table: int,
    game: Game,
    seated: list[Competitor],
) -> None:
    results.games_enter(
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
    return round_open(tournament, number + 1)


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
