"""Fixtures for tournaments tests: a club league run by an organiser, and its players.

The cast of tests/conftest.py plays (alice, bob, carol); ``olga`` organises and sits at
no table, so her entries and confirmations settle rounds at once; Dora is a guest with
no account. Recorded games use the quick ending unless a test says otherwise: one
round decides them, which keeps standings examples small enough to compute by hand.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass

import pytest

from accounts.models import User
from games.engine import RuleSet
from games.models import Game
from tests.factories import UserFactory
from tournaments import recording, running, services
from tournaments.models import Competition, Competitor, GameNight, Season, Tournament

QUICK = RuleSet.preset("2021", ending="quick")


@pytest.fixture
def olga(db: None) -> User:
    """The club's organiser: runs the league and its tournaments, plays at no table."""
    return UserFactory.create(username="olga")


@dataclass
class Club:
    """A league season with one game night, and its competitors by first name."""

    season: Season
    night: GameNight
    players: dict[str, Competitor]

    @property
    def competition(self) -> Competition:
        return self.season.competition

    def at(self, *names: str) -> list[Competitor]:
        """Competitors in seat order."""
        return [self.players[n] for n in names]


@pytest.fixture
def club(olga: User, alice: User, bob: User, carol: User) -> Club:
    """olga's Tuesday Club, spring season, one night; alice, bob, carol and guest Dora."""
    league = services.league_create(
        by=olga, name="Tuesday Club", slug="tuesday", rules=QUICK, organiser_entries_settle=True
    )  # olga's entries count at once: games are settled in one call (settled_game)
    season = services.season_create(
        league=league, by=olga, name="Spring", starts_on=dt.date(2026, 3, 1)
    )
    night = services.night_create(season=season, by=olga, on=dt.date(2026, 3, 3), venue="Hall")
    comp = season.competition
    players = {
        "Alice": services.competitor_add(competition=comp, by=olga, name="Alice", user=alice),
        "Bob": services.competitor_add(competition=comp, by=olga, name="Bob", user=bob),
        "Carol": services.competitor_add(competition=comp, by=olga, name="Carol", user=carol),
        "Dora": services.competitor_add(competition=comp, by=olga, name="Dora"),
    }
    return Club(season, night, players)


def recorded_game(
    club: Club,
    by: User,
    names: Sequence[str],
    rules: RuleSet = QUICK,
    night: GameNight | None = None,
) -> Game:
    """A real-table game of these players (seat order) on the club's night."""
    return recording.recorded_game_create(
        by=by,
        competition=club.competition,
        competitors=club.at(*names),
        rules=rules,
        night=night or club.night,
    )


def settled_game(
    club: Club,
    organiser: User,
    names: Sequence[str],
    *rounds: list[int],
    rules: RuleSet = QUICK,
    night: GameNight | None = None,
) -> Game:
    """A game the organiser recorded and entered round by round: confirmed at once."""
    game = recorded_game(club, organiser, names, rules, night)
    for dollars in rounds:
        recording.round_record(game=game, by=organiser, dollars=dollars)
    game.refresh_from_db()
    return game


def people_round_robin(players: list[User], by: User, rounds: int = 2) -> Tournament:
    """A started round robin of digital two-seat tables for ``players``, over ``rounds``."""
    tournament = running.tournament_create(
        by=by, name="Club Night", format="round_robin", entrants="humans", rules=QUICK,
        rounds=rounds, table_sizes=[2], preferred_size=2, play="digital", seed=3,
    )  # fmt: skip
    for player in players:
        running.entrant_add(tournament=tournament, by=by, user=player)
    running.tournament_start(tournament=tournament, by=by)
    return tournament
