"""A ladder match of built-in versions: duplicate deals, aggregate places, rated once."""

from __future__ import annotations

import pytest

from accounts.models import User
from bots import runner, services
from bots.models import Bot, BotVersion, Match, RatingChange
from bots.validation import builtin_versions
from games.engine import RuleSet, replay
from games.models import Event, Game


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
