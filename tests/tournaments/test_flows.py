"""The main flows end to end: a recorded league night, and a bot round robin."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from accounts.models import User
from bots import runner
from bots.models import Bot, BotVersion, Match
from bots.services import bot_create
from bots.validation import builtin_versions
from cya_site.errors import DomainError
from games.engine import RuleSet
from tournaments import recording, rounds, running, selectors, services
from tournaments.models import GameEntry, Result, ScoreRecord, Tournament


def test_a_recorded_game_counts_once_every_round_is_confirmed_and_corrections_keep_history(
    alice: User, bob: User, carol: User
) -> None:
    league = services.league_create(by=alice, name="Tuesday Club", slug="tuesday", rules=RuleSet())
    season = services.season_create(
        league=league, by=alice, name="Spring", starts_on=dt.date(2026, 3, 1)
    )
    night = services.night_create(season=season, by=alice, on=dt.date(2026, 3, 3), venue="Room")
    comp = season.competition
    players = [
        services.competitor_add(competition=comp, by=alice, name="Alice", user=alice),
        services.competitor_add(competition=comp, by=alice, name="Bob", user=bob),
        services.competitor_add(competition=comp, by=alice, name="Dora"),  # a guest
    ]
    rules = RuleSet.preset("2021", seats=3, ending="quick")
    game = recording.recorded_game_create(
        by=bob, competition=comp, competitors=players, rules=rules, night=night
    )
    with pytest.raises(DomainError) as impossible:
        recording.round_record(game=game, by=bob, dollars=[7_000, 100_000, 50_000])
    assert impossible.value.code == "impossible_dollars"
    record = recording.round_record(game=game, by=bob, dollars=[400_000, 350_000, 250_000]).record
    assert record.status == ScoreRecord.Status.PENDING  # alice has not confirmed yet
    assert not Result.objects.filter(competition=comp).exists()
    recording.round_vote(record=record, by=alice, verdict="confirm")
    record.refresh_from_db()
    assert record.status == ScoreRecord.Status.CONFIRMED
    game.refresh_from_db()
    assert game.status == "finished"
    assert game.winners == [0]
    with pytest.raises(DomainError) as ended:
        recording.round_record(game=game, by=bob, dollars=[10_000, 10_000, 10_000])
    assert ended.value.code == "game_already_ended"
    before = timezone.now()
    table = selectors.standings(comp)
    assert [row["name"] for row in table] == ["Alice", "Bob", "Dora"]
    recording.round_correct(
        game=game, round_number=1, by=alice, dollars=[300_000, 450_000, 250_000], reason="misread"
    )
    assert selectors.standings(comp)[0]["name"] == "Bob"
    assert selectors.standings(comp, as_of=before)[0]["name"] == "Alice"
    assert ScoreRecord.objects.filter(game=game).count() == 2  # nothing overwritten
    actions = [c.action for c in selectors.change_log(comp)]
    assert "round_corrected" in actions


@pytest.fixture
def bot_versions(db: None) -> list[BotVersion]:
    """Five ready built-in versions (different owners are not needed for tournaments)."""
    versions = builtin_versions()
    owner = User.objects.get(username="platform")
    for name, strategy in (("extra-greedy", "greedy"), ("extra-shark", "shark")):
        bot = bot_create(owner=owner, name=name, kind=Bot.Kind.BUILTIN)
        version = BotVersion.objects.create(bot=bot, number=1, strategy=strategy, status="ready")
        versions.append(version)
    return versions


def test_a_bot_round_robin_seats_every_round_and_ranks_everyone(
    staff: User, bot_versions: list[BotVersion]
) -> None:
    tournament = running.tournament_create(
        by=staff,
        name="Spring Cup",
        format=Tournament.Format.ROUND_ROBIN,
        entrants=Tournament.Entrants.BOTS,
        rules=RuleSet.preset("2021", ending="quick"),
        rounds=2,
        table_sizes=[2, 3],
        preferred_size=3,
        seed=5,
    )
    for version in bot_versions:
        running.entrant_add(tournament=tournament, by=staff, bot_version=version)
    running.tournament_start(tournament=tournament, by=staff)
    for number in (1, 2):
        for match in Match.objects.filter(status="scheduled"):
            runner.run_match(match)
        rounds.round_advance(tournament=tournament, number=number)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    table = selectors.standings(tournament.competition)
    assert len(table) == 5
    assert sorted(row["rank"] for row in table) == [1, 2, 3, 4, 5]
    assert all(row["games"] == 2 for row in table)
    assert GameEntry.objects.filter(competition=tournament.competition).count() == 10
