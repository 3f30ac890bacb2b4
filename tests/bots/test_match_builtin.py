"""A ladder match of built-in versions: duplicate deals, aggregate places, rated once."""

from __future__ import annotations

import orjson
import pytest
from django.db import transaction
from django.utils import timezone

from accounts.models import User
from bots import runner, services
from bots.models import Bot, BotVersion, Match, RatingChange
from bots.validation import builtin_versions
from cya_site.errors import DomainError
from games import eventlog, store
from games import services as game_services
from games.engine import (
    EngineError,
    RuleSet,
    State,
    action_to_json,
    apply,
    default_action,
    legal_actions,
    replay,
)
from games.models import Event, Game, Round, RoundScore, Seat
from tests.bots.checks import quick, states_before


@pytest.fixture
def builtins(db: None) -> list[BotVersion]:
    """The platform's three built-in versions (shark, greedy, random)."""
    return builtin_versions()


@pytest.fixture
def fourth(alice: User, staff: User) -> BotVersion:
    """A fourth built-in bot with another owner, so a ladder table of four is legal."""
    bot = services.bot_create(owner=staff, name="alices-greedy", kind=Bot.Kind.BUILTIN)
    bot.owner = alice
    bot.save()
    return BotVersion.objects.create(bot=bot, number=1, strategy="greedy", status="ready")


def test_a_builtin_match_plays_one_game_per_rotation_and_rates_each_version_once(
    builtins: list[BotVersion], fourth: BotVersion
) -> None:
    match = services.match_create(versions=[*builtins, fourth], seed=42)
    assert match.match_games.count() == 4
    runner.run_match(match)
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    assert match.rated_at is not None
    games = Game.objects.filter(match_game__match=match)
    assert {g.status for g in games} == {"finished"}
    assert {g.seed for g in games} == {42}  # duplicate deals: one shuffle, every rotation
    origins = Event.objects.filter(game__in=games, seq__gt=0).values_list("origin", flat=True)
    assert set(origins) == {"builtin"}
    for game in games:  # the log written in one COPY replays to the stored result
        entries = Event.objects.filter(game=game, seq__gt=0).order_by("seq")
        assert list(entries.values_list("seq", flat=True)) == list(range(1, game.version + 1))
        codes = [c for c in entries.values_list("action_code", flat=True) if c is not None]
        assert game.seed is not None
        final = replay(RuleSet.from_json(game.rules), game.seed, codes)
        assert list(final.winners) == game.winners
        last = entries.last()
        assert last is not None
        assert last.public_events[-1]["type"] == "game_end"
    changes = RatingChange.objects.filter(match=match)
    assert changes.count() == 4
    places = sorted(c.actual_place for c in changes)
    assert places[0] == 1
    services.match_finish(match=match)  # a rerun changes nothing
    assert RatingChange.objects.filter(match=match).count() == 4
    for version in [*builtins, fourth]:
        version.refresh_from_db()
        assert version.games_played == 4
        assert version.matches_played == 1


# --- the batch that writes a built-in game (games.services.actions_record) ---------------


def test_every_row_of_a_batch_written_game_is_what_the_engine_produced(
    builtins: list[BotVersion],
) -> None:
    match = services.match_create(versions=builtins, rules=quick(3), seed=7)
    game = Game.objects.filter(match_game__match=match).order_by("match_game__rotation")[0]
    runner.run_game(match, game)
    game.refresh_from_db()
    users = dict(Seat.objects.filter(game=game).values_list("number", "user_id"))
    rows = list(Event.objects.filter(game=game, seq__gt=0).order_by("seq"))
    assert len(rows) == game.version
    for event, state in states_before(game):
        assert event.action_code is not None
        after, public = apply(state, event.action_code)
        assert event.seq == after.version
        assert event.seat == state.to_act
        assert event.actor_id == users[state.to_act]
        assert event.action == action_to_json(event.action_code, state.rules.edition)
        assert event.public_events == orjson.loads(orjson.dumps(public))
        assert (event.origin, event.idempotency_key) == ("builtin", "")
    assert game.status == Game.Status.FINISHED
    assert store.load_state(game).version == game.version
    ended = rows[-1].public_events[-1]
    assert ended["type"] == "game_end"
    places = dict(Seat.objects.filter(game=game).values_list("number", "place"))
    assert places == {row["seat"]: row["place"] for row in ended["ranking"]}
    assert Round.objects.filter(game=game).count() == 1  # quick: one round
    assert RoundScore.objects.filter(round__game=game).count() == 3


def test_a_batch_refuses_a_game_that_moved_on_while_it_was_played(
    builtins: list[BotVersion],
) -> None:
    match = services.match_create(versions=builtins, rules=quick(3), seed=7)
    game = Game.objects.filter(match_game__match=match).first()
    assert game is not None
    stale = Game.objects.get(pk=game.pk)
    state = store.load_state(game)
    seat = Seat.objects.get(game=game, number=state.to_act)
    assert seat.user is not None
    game_services.action_submit(
        game_id=game.pk,
        user=seat.user,
        action=action_to_json(default_action(state), state.rules.edition),
        version=state.version,
    )

    def first_legal(state: State) -> int:
        return legal_actions(state)[0]

    with pytest.raises(DomainError) as refused:
        game_services.actions_record(game=stale, choose=first_legal, origin="builtin")
    assert refused.value.code == "stale_version"
    assert Event.objects.filter(game=game).count() == 2  # the deal and the one action


def test_a_batch_with_an_illegal_choice_writes_nothing(builtins: list[BotVersion]) -> None:
    match = services.match_create(versions=builtins, rules=quick(3), seed=7)
    game = Game.objects.filter(match_game__match=match).first()
    assert game is not None

    def illegal(state: State) -> int:
        return -1

    with pytest.raises(EngineError):
        game_services.actions_record(game=game, choose=illegal, origin="builtin")
    game.refresh_from_db()
    assert (game.version, game.status) == (0, Game.Status.ACTIVE)
    assert Event.objects.filter(game=game).count() == 1  # the deal only


def test_the_copy_writer_keeps_json_text_exactly(builtins: list[BotVersion]) -> None:
    match = services.match_create(versions=builtins, rules=quick(3), seed=7)
    game = Game.objects.filter(match_game__match=match).first()
    assert game is not None
    awkward = {"note": 'tab\there, new\nline, back\\slash \\N, "quoted", ünïcødé ✓'}
    entry = eventlog.Entry(900, 1, None, {"type": "x", **awkward}, None, ({**awkward},), "o\\k")
    with transaction.atomic():
        eventlog.append(game.pk, [entry], timezone.now())
    row = Event.objects.get(game=game, seq=900)
    assert row.action == {"type": "x", **awkward}
    assert row.public_events == [awkward]
    assert (row.seat, row.actor_id, row.action_code, row.origin) == (1, None, None, "o\\k")
