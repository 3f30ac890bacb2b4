"""People's ratings are a function of their history (tournaments.rating_history): the
same games give the same ratings whatever order they were recorded in, and rating games
one by one gives what a replay from nothing gives."""

from __future__ import annotations

import datetime as dt
import random

from hypothesis import given
from hypothesis import strategies as st

from tournaments.rating_history import PlayedGame, Rating, Seat, apply, replay

START = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)


@st.composite
def histories(draw: st.DrawFn) -> list[PlayedGame]:
    """Up to 12 games of 2-6 of 7 players, places with ties, some at the same moment."""
    games = []
    for game_id in range(1, draw(st.integers(1, 12)) + 1):
        size = draw(st.integers(2, 6))
        players = draw(st.permutations(range(1, 8)))[:size]
        places = draw(st.lists(st.integers(1, size), min_size=size, max_size=size))
        dollars = draw(st.lists(st.integers(0, 10**6), min_size=size, max_size=size))
        minutes = draw(st.integers(0, 20))
        seats = tuple(Seat(p, pl, d) for p, pl, d in zip(players, places, dollars, strict=True))
        games.append(PlayedGame(game_id, START + dt.timedelta(minutes=minutes), seats))
    return games


@given(histories(), st.randoms(use_true_random=False))
def test_the_same_history_in_any_order_gives_the_same_ratings(
    games: list[PlayedGame], rng: random.Random
) -> None:
    shuffled = list(games)
    rng.shuffle(shuffled)

    assert replay(shuffled) == replay(games)


@given(histories())
def test_rating_game_by_game_gives_what_a_replay_gives(games: list[PlayedGame]) -> None:
    ratings: dict[int, Rating] = {}
    for game in sorted(games, key=lambda g: g.order):
        ratings, _ = apply(game, ratings)

    assert ratings == replay(games)[0]


@given(histories())
def test_every_step_says_how_many_games_and_chains_its_ratings(games: list[PlayedGame]) -> None:
    ratings, steps = replay(games)
    last: dict[int, Rating] = {}
    for step in steps:
        assert step.before == last.get(step.key, Rating())
        assert step.number == step.before.games + 1
        assert 1 <= step.expected_place <= step.table_size
        last[step.key] = step.after
    assert last == ratings


def test_a_winner_gains_and_a_loser_loses() -> None:
    game = PlayedGame(1, START, (Seat(1, 1, 500_000), Seat(2, 2, 100_000)))

    ratings, steps = replay([game])

    assert ratings[1].mu > Rating().mu > ratings[2].mu
    assert [s.expected_place for s in steps] == [1.5, 1.5]
