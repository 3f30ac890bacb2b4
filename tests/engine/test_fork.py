"""``fork(state, seed, redeal=...)``: a new game from a position of another (docs/engine.md).

Properties over random-legal playouts in every preset and option combination: the fork
creates and loses no card, a re-deal changes nothing public and nothing any seat knows of
others' cards, every legal action of the forked game applies, and a forked game replays
exactly from its truth (the parent's seed and log up to the step, the fork's seed, the
re-deal switch and the fork's own log).
"""

from __future__ import annotations

from random import Random
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.engine import (
    GameOver,
    RuleSet,
    State,
    apply,
    fork,
    legal_actions,
    new_game,
    observe,
    replay,
    resign,
    state_from_json,
    state_to_json,
)
from games.engine.state import DRAFTED
from tests.engine.strategies import (
    Game,
    choose,
    games,
    playout,
    seeds,
    states,
)
from tests.engine.test_properties import cards_in_play

moments = st.floats(min_value=0, max_value=1, exclude_max=True)


def position(game: Game, moment: float) -> tuple[State, list[int]]:
    """A state of the playout before its end (at ``moment`` of its length) and its log."""
    steps = list(playout(game))
    open_steps = [s for s in steps if not s.after.over]
    k = int(moment * (len(open_steps) + 1))  # 0: the deal itself
    if k == 0:
        return new_game(game.rules, game.seed), []
    return open_steps[k - 1].after, [s.action for s in steps[:k]]


def play_out(state: State, rng: Random) -> tuple[State, list[int]]:
    """Random-legal play from ``state`` to the end (or a bound): final state and log."""
    log = []
    for _ in range(20_000):
        if state.over:
            break
        action = choose(state, rng)
        state = apply(state, action)[0]
        log.append(action)
    return state, log


def without(view: dict[str, Any], *keys: str) -> dict[str, Any]:
    return {k: v for k, v in view.items() if k not in keys}


@given(games(resignations=True), moments, seeds, st.booleans())
def test_a_fork_creates_and_loses_no_card(
    game: Game, moment: float, seed: int, redeal: bool
) -> None:
    """RULES #2, 1.4: the fork holds exactly the parent position's cards."""
    state, _ = position(game, moment)
    forked = fork(state, seed, redeal=redeal)
    assert cards_in_play(forked) == cards_in_play(state)
    assert forked.version == 0
    assert [h.size for h in forked.hands] == [h.size for h in state.hands]
    assert len(forked.deck_left) == len(state.deck_left)
    assert [len(p) for p in forked.piles] == [len(p) for p in state.piles]


@given(games(resignations=True), moments, seeds)
def test_a_fork_without_redeal_is_the_same_position_at_version_zero(
    game: Game, moment: float, seed: int
) -> None:
    """Every seat (and a spectator) sees what it saw in the parent, bar the version and
    the resignations a fork forgets; the hidden cards are the parent's."""
    state, _ = position(game, moment)
    forked = fork(state, seed)
    for seat in [*range(game.rules.seats), None]:
        mine, theirs = observe(forked, seat), observe(state, seat)
        assert mine["version"] == 0
        assert mine["resigned"] == []
        assert without(mine, "version", "resigned") == without(theirs, "version", "resigned")
    assert forked.hands == state.hands
    assert forked.deck_left == state.deck_left
    assert forked.piles == state.piles
    assert forked.seed == seed
    assert forked.resigned == 0


@given(games(resignations=True), moments, seeds)
def test_a_redeal_changes_nothing_public_nor_what_any_seat_knows_of_others(
    game: Game, moment: float, seed: int
) -> None:
    """A spectator's observation is identical with and without the re-deal; each seat's
    differs only in its own hand (same size), so nothing it saw of others' cards (sets,
    tucked cards it knows, RULES #9, 2.8.11; face-up pile tops, 2.8.5) changed."""
    state, _ = position(game, moment)
    same, other = fork(state, seed), fork(state, seed, redeal=True)
    assert observe(other, None) == observe(same, None)
    for seat in range(game.rules.seats):
        mine, theirs = observe(other, seat), observe(same, seat)
        assert without(mine, "hand") == without(theirs, "hand")
        assert len(mine["hand"]) == len(theirs["hand"])
    assert other.stacks == same.stacks
    assert other.challenge == same.challenge
    assert other.discard_pile == same.discard_pile
    for pile, before in zip(other.piles, same.piles, strict=True):
        assert sorted(pile) == sorted(before)  # a pile's cards stay in it (RULES #36)


def test_a_redeal_really_deals_the_hidden_cards_again() -> None:
    """Hands and deck come from the fork's seed: two seeds give two deals."""
    state = new_game(RuleSet.preset("2021", seats=4), seed=3)
    one, two = fork(state, 1, redeal=True), fork(state, 2, redeal=True)
    assert one.hands != state.hands
    assert one.hands != two.hands
    assert one.deck_left != state.deck_left
    assert fork(state, 1, redeal=True) == one  # the seed decides it all


def test_a_redeal_keeps_a_face_up_pile_top_and_shuffles_below_it() -> None:
    """RULES #34, 2.8.5: the draft piles' face-up tops stay; the cards under them move."""
    state = new_game(RuleSet.preset("2021", seats=2), seed=5)
    forked = fork(state, 11, redeal=True)
    assert [p[-1] for p in forked.piles] == [p[-1] for p in state.piles]
    assert any(p[:-1] != q[:-1] for p, q in zip(forked.piles, state.piles, strict=True))


def test_a_face_down_top_of_a_drafted_pile_is_re_dealt_within_its_pile() -> None:
    """RULES 2.8.5: while a draft is challenged the pile's new top is face down, so no
    seat has seen it and it is re-dealt with the rest of its pile."""
    game = Game(RuleSet.preset("2021", seats=2), seed=0, choices=0)
    for state in states(game):
        if state.challenge is not None and state.challenge.depth == DRAFTED:
            break
    else:  # pragma: no cover
        raise AssertionError("no draft in this game")
    (p,) = state.challenge.piles
    tops = {fork(state, s, redeal=True).piles[p][-1] for s in range(40)}
    assert len(tops) > 1
    assert tops <= set(state.piles[p])


@given(games(resignations=True), moments, seeds, st.booleans(), st.integers())
def test_every_legal_action_of_a_forked_game_applies_and_it_plays_to_its_end(
    game: Game, moment: float, seed: int, redeal: bool, choices: int
) -> None:
    """The fork is a position the engine plays like any other (STYLE 3: every listed
    action applies), to a game over within the usual bounds."""
    state, _ = position(game, moment)
    forked = fork(state, seed, redeal=redeal)
    for action in legal_actions(forked):
        after, _ = apply(forked, action)
        assert after.version == 1
    final, _ = play_out(forked, Random(choices))
    assert final.over


@given(games(resignations=True), moments, seeds, st.booleans(), st.integers())
def test_a_forked_game_replays_exactly_from_its_stored_truth(
    game: Game, moment: float, seed: int, redeal: bool, choices: int
) -> None:
    """Parent seed + parent log up to the step, then the fork's seed, re-deal switch and
    log rebuild the forked game exactly, as the database stores it; JSON round-trips."""
    state, parent_log = position(game, moment)
    forked = fork(state, seed, redeal=redeal)
    final, log = play_out(forked, Random(choices))
    again = fork(replay(game.rules, game.seed, parent_log), seed, redeal=redeal)
    assert again == forked
    assert state_from_json(state_to_json(forked)) == forked
    for action in log:
        again = apply(again, action)[0]
    assert again == final
    assert again.version == len(log)


def test_later_rounds_are_dealt_from_the_fork_seed() -> None:
    """RULES #1, #4: a fork's next round comes from its own seed, not the parent's."""
    rules = RuleSet.preset("2021", seats=3, ending="highest_after_n")
    state = new_game(rules, seed=8)
    rng = Random(1)
    ones, twos = fork(state, 1), fork(state, 2)
    while ones.round == 1:
        action = choose(ones, rng)
        ones, twos = apply(ones, action)[0], apply(twos, action)[0]
    assert ones.round == twos.round == 2
    assert ones.hands != twos.hands
    assert ones.tallies == twos.tallies


def test_a_fork_forgets_resignations_so_every_seat_plays() -> None:
    """A resigned seat of the parent is a seat like any other in the fork."""
    state = new_game(RuleSet.preset("2021", seats=3), seed=4)
    state = resign(state, 2)[0]
    forked = fork(state, 9)
    assert state.resigned == 4
    assert forked.resigned == 0
    rng = Random(0)
    acted: set[int] = set()
    while not forked.over and len(acted) < 3:
        acted.add(forked.to_act)
        forked = apply(forked, choose(forked, rng))[0]
    assert 2 in acted


def test_fork_refuses_a_finished_game_and_a_bad_seed() -> None:
    game = Game(RuleSet.preset("2021", seats=2, ending="quick"), seed=1, choices=1)
    final = [s.after for s in playout(game)][-1]
    assert final.over
    with pytest.raises(GameOver):
        fork(final, 1)
    start = new_game(game.rules, 1)
    for bad in (-1, 2**63, True, "7"):
        with pytest.raises(ValueError, match="seed"):
            fork(start, bad)  # type: ignore[arg-type]
