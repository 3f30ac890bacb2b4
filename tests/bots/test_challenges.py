"""Challenges (bots.challenges, bots.challenge_results): an owner's bot against chosen
versions and built-ins on N duplicate deals, unrated, limited per day (issue 30, item 5).

The deals here are played in process (``bots.runner.run_match``); the worker's run is in
tests/bots/test_challenges_worker.py, the API in test_challenges_api.py and the pages
in test_challenges_pages.py.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
import time_machine
from django.utils import timezone
from pytest_django import DjangoCaptureOnCommitCallbacks, Settings

from accounts.models import User
from bots import challenge_results, challenges, health, runner, tasks
from bots.challenges import Opponent
from bots.models import BotVersion, Challenge, Match, RatingChange
from bots.strategies.duplicate import deal_seeds
from bots.validation import builtin_versions
from cya_site.errors import DomainError
from tests.bots.bot_servers import builtin_version
from tests.bots.checks import quick

pytestmark = pytest.mark.django_db


def create(by: User, version: BotVersion, opponents: list[Opponent], deals: int = 2) -> Challenge:
    return challenges.challenge_create(
        by=by, bot=version.bot, opponents=opponents, deals=deals, rules=quick(1 + len(opponents))
    )


def test_a_challenge_plays_each_deal_as_a_friendly_match_dealt_from_its_seeds(
    alice: User,
    mine: BotVersion,
    theirs: BotVersion,
    sent: list[tuple[Any, tuple[Any, ...]]],
    django_capture_on_commit_callbacks: DjangoCaptureOnCommitCallbacks,
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        challenge = create(alice, mine, [Opponent(version=theirs.pk), Opponent("random")], 3)

    deals = list(challenge.deal_rows.select_related("match").order_by("number"))
    assert [d.number for d in deals] == [1, 2, 3]
    assert [d.match.seed for d in deals] == deal_seeds(challenge.seed, 3)
    random_ = next(v for v in builtin_versions(("random",)))
    for deal in deals:
        match = deal.match
        assert (match.kind, match.status, match.duplicate) == (
            Match.Kind.FRIENDLY,
            Match.Status.SCHEDULED,
            True,
        )
        entries = list(match.entries.order_by("position").values_list("version_id", flat=True))
        assert entries == [mine.pk, theirs.pk, random_.pk]
        assert match.match_games.count() == 3  # one game per rotation of the seats
    assert sent == [(tasks.play_match, (d.match_id,)) for d in deals]  # on the batch queue


def test_an_owner_may_challenge_their_own_other_bot(alice: User, mine: BotVersion) -> None:
    other = builtin_version(alice, "alices-other", "shark")

    challenge = create(alice, mine, [Opponent(version=other.pk)])

    assert challenge.deal_rows.count() == 2


def test_only_the_bots_owner_challenges_with_it(
    bob: User, mine: BotVersion, theirs: BotVersion
) -> None:
    with pytest.raises(DomainError) as refusal:
        create(bob, mine, [Opponent(version=theirs.pk)])

    assert (refusal.value.code, refusal.value.http_status) == ("permission_denied", 403)
    assert not Challenge.objects.exists()


def test_a_paused_version_neither_challenges_nor_is_challenged(
    alice: User, bob: User, mine: BotVersion, theirs: BotVersion
) -> None:
    health.version_pause(bot=theirs.bot, by=bob)
    with pytest.raises(DomainError) as challenged:
        create(alice, mine, [Opponent("greedy"), Opponent(version=theirs.pk)])
    health.version_pause(bot=mine.bot, by=alice)
    with pytest.raises(DomainError) as challenging:
        create(alice, mine, [Opponent("shark")])

    assert (challenged.value.code, challenged.value.http_status) == ("version_paused", 409)
    assert challenged.value.details == {"field": "opponents", "version": theirs.pk, "opponent": 1}
    assert "bobs-bot v1 is paused" in challenged.value.message
    assert (challenging.value.code, challenging.value.details["field"]) == ("version_paused", "bot")
    assert not Challenge.objects.exists()


def test_a_bot_without_a_ready_version_cannot_challenge(alice: User, mine: BotVersion) -> None:
    BotVersion.objects.filter(pk=mine.pk).update(status=BotVersion.Status.FAILED)

    with pytest.raises(DomainError) as refusal:
        create(alice, mine, [Opponent("shark")])

    assert (refusal.value.code, refusal.value.http_status) == ("no_ready_version", 409)


@pytest.mark.parametrize(
    ("opponents", "code", "opponent"),
    [
        ([Opponent("greedy"), Opponent("greedy")], "same_entrant", 1),
        ([Opponent("nobody")], "unknown_strategy", 0),
        ([Opponent("shark"), Opponent(version=10**12)], "no_such_version", 1),
    ],
)
def test_each_opponent_must_be_a_ready_version_or_a_built_in_and_play_once(
    alice: User, mine: BotVersion, opponents: list[Opponent], code: str, opponent: int
) -> None:
    with pytest.raises(DomainError) as refusal:
        create(alice, mine, opponents)

    assert (refusal.value.code, refusal.value.http_status) == (code, 422)
    assert refusal.value.details["opponent"] == opponent


def test_the_challenger_cannot_be_its_own_opponent(alice: User, mine: BotVersion) -> None:
    with pytest.raises(DomainError) as refusal:
        create(alice, mine, [Opponent(version=mine.pk)])

    assert refusal.value.code == "same_entrant"


def test_the_rules_seat_every_entrant(alice: User, mine: BotVersion) -> None:
    with pytest.raises(DomainError) as refusal:
        challenges.challenge_create(
            by=alice, bot=mine.bot, opponents=[Opponent("shark")], deals=1, rules=quick(4)
        )

    assert refusal.value.code == "invalid_rules"


def test_an_owner_starts_at_most_the_days_challenges_then_waits_for_the_oldest(
    alice: User, bob: User, mine: BotVersion, theirs: BotVersion, settings: Settings
) -> None:
    settings.CHALLENGES_PER_DAY = 2
    start = timezone.now()
    with time_machine.travel(start, tick=False):
        create(alice, mine, [Opponent("shark")])
    with time_machine.travel(start + timedelta(hours=5), tick=False):
        create(alice, mine, [Opponent("shark")])
        assert challenges.challenges_left(alice, timezone.now()) == (0, 19 * 3600)
        with pytest.raises(DomainError) as refusal:
            create(alice, mine, [Opponent("shark")])
        create(bob, theirs, [Opponent("shark")])  # the limit is per owner
    with time_machine.travel(start + timedelta(days=1, seconds=1), tick=False):
        create(alice, mine, [Opponent("shark")])  # the first is a day old

    assert (refusal.value.code, refusal.value.http_status) == ("too_many_challenges", 429)
    assert refusal.value.details == {"wait_seconds": 19 * 3600, "limit": 2}
    assert Challenge.objects.filter(by=alice).count() == 3


def test_playing_a_challenge_moves_no_rating_and_fills_its_per_deal_table(
    alice: User, bob: User, mine: BotVersion, theirs: BotVersion
) -> None:
    shark = builtin_versions(("shark",))[0]
    entrants = [mine, theirs, shark]
    for version in entrants:  # ratings as a ladder would have left them
        BotVersion.objects.filter(pk=version.pk).update(
            mu=27.5, sigma=3.25, games_played=40, matches_played=10
        )
    before = {
        v.pk: (v.mu, v.sigma, v.games_played, v.matches_played)
        for v in BotVersion.objects.filter(pk__in=[v.pk for v in entrants])
    }
    challenge = create(alice, mine, [Opponent(version=theirs.pk), Opponent("shark")], 3)
    first = challenge_results.challenge_results(_read(challenge))
    assert first.status == challenge_results.SCHEDULED
    assert all(c.place is None for d in first.deals for c in d.cells)
    assert not any(g.finished for d in first.deals for g in d.games)

    for deal in challenge.deal_rows.select_related("match"):
        runner.run_match(deal.match)

    after = {
        v.pk: (v.mu, v.sigma, v.games_played, v.matches_played)
        for v in BotVersion.objects.filter(pk__in=[v.pk for v in entrants])
    }
    assert after == before
    assert not RatingChange.objects.exists()
    results = challenge_results.challenge_results(_read(challenge))
    assert results.status == challenge_results.FINISHED
    assert results.deals_finished == 3
    for row in results.deals:
        places = sorted(c.place for c in row.cells if c.place is not None)
        assert len(places) == 3
        assert places[0] == 1
        assert [g.rotation for g in row.games] == [0, 1, 2]
        assert all(g.finished for g in row.games)
    by_position = {e.position: e for e in results.entrants}
    assert [by_position[p].version.pk for p in range(3)] == [v.pk for v in entrants]
    for position, entrant in by_position.items():
        own = [d.cells[position].place for d in results.deals]
        assert entrant.deals_played == 3
        assert entrant.first_places == own.count(1)
        assert entrant.mean_place == pytest.approx(sum(p or 0 for p in own) / 3)
        assert entrant.mean_place_half is not None
        assert entrant.dollars == sum(d.cells[position].dollars or 0 for d in results.deals)
    assert min(e.place or 9 for e in results.entrants) == 1


def test_a_voided_deal_counts_for_no_one(alice: User, mine: BotVersion) -> None:
    from bots import services

    challenge = create(alice, mine, [Opponent("shark")], 2)
    deals = list(challenge.deal_rows.select_related("match").order_by("number"))
    runner.run_match(deals[0].match)
    services.match_void(match=deals[1].match, reason="test fault")

    results = challenge_results.challenge_results(_read(challenge))

    assert results.status == challenge_results.FINISHED
    assert [d.status for d in results.deals] == ["finished", "voided"]
    assert all(e.deals_played == 1 for e in results.entrants)
    assert all(c.place is None for c in results.deals[1].cells)


def _read(challenge: Challenge) -> Challenge:
    found = challenge_results.challenges_with_deals(Challenge.objects.filter(pk=challenge.pk))
    return found.get()
