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

    assert (early.value.code, early.value.http_status) == ("game_not_ended", 409)
    assert (stranger.value.code, stranger.value.http_status) == ("not_seated", 403)
    assert not Game.objects.filter(rematch_of=game).exists()
