"""Celery tasks of the tournaments app: thin, idempotent, given ids only."""

from __future__ import annotations

from datetime import timedelta

from celery import chord, shared_task
from django.conf import settings
from django.utils import timezone

from bots.tasks import play_match
from cya_site import dispatch
from cya_site.errors import DomainError
from games.models import Game
from tournaments import notifications, people_ratings, quickplay, results, rounds
from tournaments.models import Delivery, PersonRatingChange, Tournament, TournamentRound

RETRY_DELAYS = (10, 60, 300, 1800, 7200)  # seconds before delivery attempts 2..6


@shared_task(name=rounds.PLAY_ROUND, time_limit=60, soft_time_limit=50)
def play_round(tournament_id: int, number: int, matches: list[int]) -> None:
    """A bot round as a canvas: one task per table's match, then one callback."""
    # a chord collects its tasks' results, which tasks otherwise do not keep
    header = [play_match.si(m).set(ignore_result=False) for m in matches]  # type: ignore[call-arg]
    chord(header)(round_finished.si(tournament_id, number))


@shared_task(name="tournaments.round_finished", time_limit=300, soft_time_limit=280)
def round_finished(tournament_id: int, number: int) -> int | None:
    """Take the round's results in and seat (and start) the next round.

    A table still playing (its match resent by the sweep after a crash, which the chord
    does not count) leaves the round to ``sync_results``, which advances it once all its
    tables have ended.
    """
    tournament = Tournament.objects.get(pk=tournament_id)
    try:
        next_round = rounds.round_advance(tournament=tournament, number=number)
    except DomainError as error:
        if error.code != "round_not_finished":
            raise
        return None
    return None if next_round is None else next_round.number


@shared_task(
    name=notifications.DELIVER,
    bind=True,
    time_limit=60,
    soft_time_limit=50,
    max_retries=len(RETRY_DELAYS),
)
def deliver(self, delivery_id: int) -> bool:  # type: ignore[no-untyped-def]
    """Send one signed notification; retry with backoff until it lands."""
    delivery = Delivery.objects.select_related("webhook").get(pk=delivery_id)
    if delivery.delivered_at is not None:
        return True
    if notifications.deliver(delivery):
        return True
    if self.request.retries < len(RETRY_DELAYS):
        raise self.retry(countdown=RETRY_DELAYS[self.request.retries])
    return False


@shared_task(
    name="tournaments.take_result",
    bind=True,
    time_limit=120,
    soft_time_limit=100,
    max_retries=8,
)
def take_result(self, game_id: int) -> int:  # type: ignore[no-untyped-def]
    """A game ended: take its result in and close its round if it was the last table
    (``rounds.game_ended``, idempotent). Sent after the game's end commits (``on_game_ended``)."""
    try:
        return rounds.game_ended(game_id=game_id)
    except dispatch.TRANSIENT as error:
        raise self.retry(exc=error, countdown=dispatch.backoff(self.request.retries)) from error


@shared_task(
    name="tournaments.rate_online_game",
    bind=True,
    time_limit=120,
    soft_time_limit=100,
    max_retries=8,
)
def rate_online_game(self, game_id: int) -> bool:  # type: ignore[no-untyped-def]
    """A rated table ended: move its players' online ratings (idempotent)."""
    try:
        return people_ratings.online_game_rate(game_id=game_id)
    except dispatch.TRANSIENT as error:
        raise self.retry(exc=error, countdown=dispatch.backoff(self.request.retries)) from error


@shared_task(
    name=results.RATE_CLUB,
    bind=True,
    time_limit=300,
    soft_time_limit=280,
    max_retries=8,
)
def rate_club(self, league_id: int) -> bool:  # type: ignore[no-untyped-def]
    """A league's results changed: recompute its club ratings if they are behind (the
    pool's fingerprint), so player pages read them as they are; True if recomputed."""
    try:
        return people_ratings.club_ratings_update(league_id=league_id)
    except dispatch.TRANSIENT as error:
        raise self.retry(exc=error, countdown=dispatch.backoff(self.request.retries)) from error


def on_game_ended(
    sender: object,
    game_id: int,
    in_competition: bool = False,
    rated: bool = False,
    **kwargs: object,
) -> None:
    """``games.signals.game_ended`` receiver: a game a competition counts (its entries
    marked it, ``results.games_enter``) sends ``take_result``, a rated table
    ``rate_online_game``; any other game (ladder, lobby) costs nothing, not even a query."""
    if in_competition:
        dispatch.send(take_result, (game_id,))
    if rated:
        dispatch.send(rate_online_game, (game_id,))


@shared_task(name="tournaments.sync_results", time_limit=300, soft_time_limit=280)
def sync_results() -> int:
    """The safety net under ``take_result``: take in competition games that ended in the
    last ``RESULTS_SWEEP_HOURS`` (a send lost to a crash or a broker restart between a
    game's end and its task), and advance every round whose tables have all finished:
    bot rounds whose callback never came (a worker killed, a broker restarted: their
    matches were resent by bots.sweep, outside the chord) included. Bounded by time, not
    by every competition that ever had a game. Rated tables that ended in that time and
    were never rated (a ``rate_online_game`` lost likewise) are rated too."""
    since = timezone.now() - timedelta(hours=settings.RESULTS_SWEEP_HOURS)
    ended = Game.objects.filter(
        competition_entries__isnull=False,
        status__in=(Game.Status.FINISHED, Game.Status.ABORTED),
        finished_at__gte=since,
    ).distinct()
    changed = sum(rounds.game_ended(game_id=pk) for pk in ended.values_list("pk", flat=True))
    unrated = Game.objects.filter(
        rated=True, status=Game.Status.FINISHED, finished_at__gte=since
    ).exclude(pk__in=PersonRatingChange.objects.values("game_id"))
    for pk in unrated.order_by("finished_at", "id").values_list("pk", flat=True):
        people_ratings.online_game_rate(game_id=pk)  # a rate_online_game lost on the way
    for round_ in TournamentRound.objects.filter(
        status=TournamentRound.Status.PLAYING
    ).select_related("tournament"):
        try:
            rounds.round_advance(tournament=round_.tournament, number=round_.number)
        except DomainError:
            continue  # tables still playing
    return changed


@shared_task(name="tournaments.pair_queues", time_limit=30, soft_time_limit=20)
def pair_queues() -> int:
    """Beat's pairing of the quick-pairing queues (every PAIRING_EVERY_SECONDS): the
    tables a wait made possible (a bot fill come due, a wider rating range); how many."""
    return len(quickplay.queues_pair_all())
