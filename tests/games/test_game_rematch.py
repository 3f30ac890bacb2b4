"""A rematch (services.game_rematch): the same rules, clock and seats as an ended game,
a new deal; one per game, which every player of the old table joins in their old seat."""

from __future__ import annotations

import pytest

from accounts.models import User
from cya_site.errors import DomainError
from games import services, store
from games.engine import RuleSet, action_to_json, legal_actions
from games.models import Game
from games.seating import BotChoice

pytestmark = pytest.mark.django_db
RULES = RuleSet.preset("2011", seats=3, ending="quick")


def _played_out(game: Game) -> Game:
    """Every seat (a bot's too: no worker moves it here) plays its first legal action."""
    users = {seat.number: seat.user for seat in game.seats.all()}
    while game.status == Game.Status.ACTIVE:
        state = store.load_state(game)
        action = action_to_json(legal_actions(state)[0], state.rules.edition)
        user = users[state.to_act]
        assert user is not None
        services.action_submit(game_id=game.pk, user=user, action=action, version=game.version)
        game.refresh_from_db()
    return game


def test_the_first_to_ask_opens_it_with_the_same_rules_bots_and_seats(
    alice: User, bob: User
) -> None:
    game = services.game_create(
        by=alice, rules=RULES, bots=[BotChoice(seat=2, strategy="greedy")], decision_seconds=60
    )
    services.game_join(game=game, user=bob)
    game = _played_out(Game.objects.get(pk=game.pk))

    again = services.game_rematch(game=game, by=bob, bots=[BotChoice(seat=2, strategy="greedy")])
    same = services.game_rematch(game=game, by=alice, bots=[BotChoice(seat=2, strategy="greedy")])

    assert same.pk == again.pk
    assert again.rematch_of == game
    assert (again.rules, again.decision_seconds, again.bot_seats) == (
        game.rules,
        game.decision_seconds,
        [2],
    )
    again.refresh_from_db()
    assert [s.user for s in again.seats.order_by("number")][:2] == [alice, bob]
    assert again.status == Game.Status.ACTIVE  # both people sat down: it dealt
    assert again.seed != game.seed


def test_a_game_in_play_or_a_stranger_cannot_ask_for_one(
    alice: User, bob: User, carol: User
) -> None:
    game = services.game_create(by=alice, rules=RULES.with_options(seats=2))
    services.game_join(game=game, user=bob)
    game = services.game_start(game=game, by=alice)

    with pytest.raises(DomainError) as early:
        services.game_rematch(game=game, by=alice)
    game = _played_out(game)
    with pytest.raises(DomainError) as stranger:
        services.game_rematch(game=game, by=carol)

    assert (early.value.code, early.value.message, early.value.http_status) == (
        "game_not_ended",
        "A rematch can be asked for once the game has ended.",
        409,
    )
    assert (stranger.value.code, stranger.value.message, stranger.value.http_status) == (
        "not_seated",
        "You had no seat at this table.",
        403,
    )
    assert not Game.objects.filter(rematch_of=game).exists()


def test_each_player_takes_their_old_seat_and_it_deals_once_the_last_sat_down(
    alice: User, bob: User, carol: User
) -> None:
    services.game_create(by=bob, rules=RULES, seat=1)  # bob sat at seat 1 of an earlier table
    game = services.game_create(
        by=alice, rules=RULES, seat=2, decision_seconds=30, time_bank_seconds=90, rated=True
    )
    services.game_join(game=game, user=bob, seat=0)
    services.game_join(game=game, user=carol, seat=1)
    game = _played_out(services.game_start(game=game, by=alice))
    services.game_create(by=bob, rules=RULES, seat=1)  # and at seat 1 of a later one

    rematch = services.game_rematch(game=game, by=carol)
    assert services.game_rematch(game=game, by=alice) == rematch
    assert services.game_rematch(game=game, by=alice) == rematch  # asking again changes nothing
    rematch.refresh_from_db()
    assert rematch.status == Game.Status.OPEN  # bob's seat is still free
    services.game_rematch(game=game, by=bob)

    rematch.refresh_from_db()
    assert [s.user for s in rematch.seats.order_by("number")] == [bob, carol, alice]
    assert rematch.status == Game.Status.ACTIVE
    assert (rematch.decision_seconds, rematch.time_bank_seconds, rematch.rated) == (30, 90, True)
