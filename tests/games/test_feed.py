"""The play loop's plain JSON is the JSON the schema's serializers describe.

The decision and action endpoints, and the streams, answer with objects built by
games.feed and games.selectors, not through the response serializers (they are the hot
path); these tests hold both renderings equal, for untimed and timed games, running and
ended, so that the OpenAPI schema stays true.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime

import time_machine

from accounts.models import User
from cya_site.json_renderer import JSONRenderer
from games import feed, services, store
from games.api.serializers import DecisionSerializer, GameStatusSerializer
from games.engine import RuleSet
from games.models import Game
from games.selectors import decision_payload


def rendered(data: object) -> object:
    """What the API sends for ``data``."""
    return json.loads(JSONRenderer().render(data))


def timed(alice: User, bob: User, staff: User) -> Game:
    game = services.game_create(
        by=alice,
        rules=RuleSet.preset("2021", seats=2),
        decision_seconds=30,
        time_bank_seconds=60,
    )
    services.game_join(game=game, user=bob)
    return services.game_start(game=game, by=staff, seed=7)


def test_the_game_status_is_the_serializers(
    alice: User, bob: User, staff: User, started: Game
) -> None:
    with time_machine.travel(datetime(2026, 3, 1, 9, 30, 15, 123456, tzinfo=UTC), tick=False):
        clocked = timed(alice, bob, staff)
    aborted = services.game_abort(game=started, by=staff, reason="test")

    for game in (clocked, aborted, Game.objects.get(pk=clocked.pk)):
        assert json.loads(feed.line(feed.game_status(game))) == rendered(
            GameStatusSerializer(game).data
        )


def test_a_decision_line_carries_the_serializers_decision(
    alice: User, bob: User, staff: User, started: Game
) -> None:
    with time_machine.travel(datetime(2026, 3, 1, 9, 30, 15, 123456, tzinfo=UTC), tick=False):
        clocked = timed(alice, bob, staff)

    for game, bank in ((clocked, 60_000), (started, None)):
        state = store.load_state(game)
        payload = decision_payload(game.pk, state, deadline=game.deadline, time_bank_ms=bank)
        line = feed.decision_line(game.pk, state, deadline=game.deadline, time_bank_ms=bank)

        assert json.loads(line) == {
            "type": "decision",
            "decision": rendered(DecisionSerializer(payload).data),
        }
