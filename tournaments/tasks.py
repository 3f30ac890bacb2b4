"""Celery tasks of the tournaments app: thin, idempotent, given ids only."""

from __future__ import annotations

from celery import chord, shared_task

from bots.tasks import play_match
from cya_site.errors import DomainError
from tournaments import notifications, running, services
from tournaments.models import Competition, Delivery, Tournament, TournamentRound

RETRY_DELAYS = (10, 60, 300, 1800, 7200)  # seconds before delivery attempts 2..6


@shared_task(name="tournaments.play_round", time_limit=60, soft_time_limit=50)
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
        next_round = running.round_advance(tournament=tournament, number=number)
    except DomainError as error:
        if error.code != "round_not_finished":
            raise
        return None
    return None if next_round is None else next_round.number


@shared_task(
    name="tournaments.deliver",
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


@shared_task(name="tournaments.sync_results", time_limit=300, soft_time_limit=280)
def sync_results() -> int:
    """Take in finished games of people, and advance every round whose tables have all
    finished: people's rounds, and bot rounds whose callback never came (a worker killed,
    a broker restarted: their matches were resent by bots.sweep, outside the chord)."""
    changed = 0
    for competition in Competition.objects.filter(entries__game__status="finished").distinct():
        changed += services.results_sync(competition=competition)
    for round_ in TournamentRound.objects.filter(
        status=TournamentRound.Status.PLAYING
    ).select_related("tournament"):
        try:
            running.round_advance(tournament=round_.tournament, number=round_.number)
        except DomainError:
            continue  # tables still playing
    return changed
