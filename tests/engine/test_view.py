"""``SeatView(state, seat)``: what a built-in strategy is given holds only its seat's knowledge.

The view copies the seat's hand and the public table out of the state and keeps nothing
else (issue 32: the old view handed strategies the whole state, and read a draft pile's
face-down top). It tells what ``observe`` tells, it is the same in every position the seat
cannot tell apart, and no State, other hand or hidden card is reachable from it.
"""

from __future__ import annotations

from collections import Counter
from random import Random
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.engine import (
    GameOver,
    RuleSet,
    SeatView,
    State,
    Worlds,
    legal_actions,
    observe,
    redeal_hidden_from,
)
from games.engine.cards import KINDS
from games.engine.hands import Hand
from games.engine.hidden import face_down, sees_tucked
from games.engine.state import DRAFTED, HIDDEN
from games.engine.view import is_asset, is_wild
from tests.engine.builders import in_challenge, make_set, position
from tests.engine.hidden import knowledge, leak_rules, redeal_hidden
from tests.engine.strategies import Game, games, states, strides


def _as_observed(view: SeatView, keys: tuple[str, ...]) -> dict[str, Any]:
    """The view, in the words of ``observe`` (card keys, None for an unseen card)."""
    name = keys.__getitem__
    ch = view.challenge
    return {
        "hand": [name(c) for c in view.hand],
        "hand_counts": [view.hand_size(seat) for seat in range(view.seats)],
        "deck_count": view.deck_left,
        "discard": [name(c) for c in view.discard_pile],
        "removed": [name(c) for c in view.removed],
        "tops": [None if top is None else name(top) for top in view.pile_tops()],
        "stacks": [
            [
                {
                    "kind": name(aset.kind),
                    "count": len(aset.cards),
                    "cards": [None if c == HIDDEN else name(c) for c in aset.cards],
                    "known_value": view.known_value(aset),
                    "protected": view.protected(seat, i),
                }
                for i, aset in enumerate(view.stack(seat))
            ]
            for seat in range(view.seats)
        ],
        "challenge": None
        if ch is None
        else (ch.challenger, ch.holder, name(ch.kind), [name(c) for c in ch.played], ch.demand),
        "tallies": list(view.tallies),
    }


def _observed(state: State, seat: int) -> dict[str, Any]:
    o = observe(state, seat)
    ch = o["challenge"]
    return {
        "hand": o["hand"],
        "hand_counts": o["hand_counts"],
        "deck_count": o["deck_count"],
        "discard": o["discard"],
        "removed": o["removed"],
        "tops": [p["top"] for p in o["draft_piles"]],
        "stacks": o["stacks"],
        "challenge": None
        if ch is None
        else (ch["challenger"], ch["holder"], ch["kind"], ch["played"], ch["demand"]),
        "tallies": o["tallies"],
    }


@given(games(), strides)
def test_a_view_tells_what_observe_tells(game: Game, stride: int) -> None:
    """The strategies' view and the JSON the API sends agree on everything they share."""
    keys = game.rules.edition_data.keys
    for n, state in enumerate(states(game)):
        if n % stride:
            continue
        for seat in range(game.rules.seats):
            view = SeatView(state, seat)
            assert _as_observed(view, keys) == _observed(state, seat)
            assert view.to_act == (seat == state.to_act and not state.over)
            assert view.legal() == (legal_actions(state) if view.to_act else ())


@given(games(leak_rules), strides, st.integers())
def test_a_view_is_the_same_whatever_is_hidden_from_its_seat(
    game: Game, stride: int, shuffle: int
) -> None:
    """RULES #9, #17, 2.8.5, 2.8.11: other hands, the deck order, buried and face-down pile
    cards and unseen tucked cards change nothing in a view, card counting included."""
    rng = Random(shuffle)
    for n, state in enumerate(states(game)):
        if n % stride or state.over:
            continue
        for seat in range(game.rules.seats):
            mine = knowledge(SeatView(state, seat))
            assert knowledge(SeatView(redeal_hidden(state, seat, rng), seat)) == mine
            assert knowledge(SeatView(redeal_hidden_from(state, seat, shuffle), seat)) == mine


@given(games(), strides)
def test_card_counting_counts_exactly_the_cards_the_seat_cannot_see(
    game: Game, stride: int
) -> None:
    for n, state in enumerate(states(game)):
        if n % stride or state.over:
            continue
        for seat in range(game.rules.seats):
            assert SeatView(state, seat).unseen() == _hidden_counts(state, seat)


def _hidden_counts(s: State, seat: int) -> list[int]:
    """The cards ``seat`` cannot see, counted by id, straight from the state."""
    hidden = [*s.deck_left]
    for other, hand in enumerate(s.hands):
        if other != seat:
            hidden += hand.cards
    down = face_down(s)
    for p, pile in enumerate(s.piles):
        hidden += pile if p in down else pile[:-1]
    for owner, stack in enumerate(s.stacks):
        for aset in stack:
            if not sees_tucked(aset, owner, seat):
                hidden.append(aset.cards[aset.tucked])
    counts = Counter(hidden)
    return [counts[card] for card in range(KINDS)]


@given(games(), strides)
def test_no_state_other_hand_or_hidden_card_is_reachable_from_a_view(
    game: Game, stride: int
) -> None:
    """Everything reachable from a view (and from its worlds' sampler) is the seat's own
    hand or public: walked object by object, there is no State, no other seat's Hand."""
    for n, state in enumerate(states(game)):
        if n % stride or state.over:
            continue
        seat = state.to_act
        view = SeatView(state, seat, worlds=True)
        found = _reachable(view)
        assert not any(isinstance(x, State) for x in found if x is not _public(view))
        assert {x for x in found if isinstance(x, Hand) and x.size} <= {state.hands[seat]}
        public = _public(view)
        assert public.game.seed == 0
        assert public.deck == ()
        assert [len(h.cards) for k, h in enumerate(public.hands) if k != seat] == [0] * (
            game.rules.seats - 1
        )
        down = face_down(state)
        assert [len(p) for p in public.piles] == [
            0 if i in down else min(1, len(p)) for i, p in enumerate(state.piles)
        ]


def _public(view: SeatView) -> State:
    """The worlds' copy of the state, emptied of every card the seat has not seen."""
    assert view.worlds is not None
    public = view.worlds._public
    assert isinstance(public, State)
    return public


def _reachable(root: object) -> list[object]:
    """Every object reachable from ``root`` through slots, tuples, lists and dicts (a
    State's rule table, shared by every seat and public, is not walked into)."""
    seen: dict[int, object] = {}
    todo = [root]
    while todo:
        x = todo.pop()
        if id(x) in seen or isinstance(x, int | str | float | bool | type(None)):
            continue
        seen[id(x)] = x
        if isinstance(x, tuple | list):
            todo.extend(x)
        elif isinstance(x, dict):
            todo.extend(x.values())
        elif isinstance(x, State):
            todo.extend(getattr(x, f) for f in State.__slots__ if f not in ("table", "log"))
        elif hasattr(x, "__slots__") and not isinstance(x, Hand | Random):
            todo.extend(getattr(x, f) for f in type(x).__slots__ if hasattr(x, f))
    return list(seen.values())


def test_a_drafted_piles_next_card_stays_hidden_while_its_set_is_challenged() -> None:
    """Regression (issue 32), RULES 2.8.5: the shark counted the face-down card a draft
    uncovered, in two- and three-seat games, and chose by it."""
    for seats in (2, 3):
        state = _at_draft_challenge(RuleSet.preset("2021", seats=seats))
        assert state.challenge is not None
        for pile in state.challenge.piles:
            for seat in range(seats):
                view = SeatView(state, seat)
                assert view.pile_tops()[pile] is None
                card = state.piles[pile][-1]
                assert view.unseen()[card] == _hidden_counts(state, seat)[card] >= 1


def _at_draft_challenge(rules: RuleSet) -> State:
    for deal in range(20):
        for state in states(Game(rules, deal, deal)):
            ch = state.challenge
            if ch is not None and ch.depth == DRAFTED and any(state.piles[p] for p in ch.piles):
                return state
    raise AssertionError("no draft challenge in 20 deals")  # pragma: no cover


def test_a_tucked_card_reads_hidden_to_others_and_whole_to_its_owner() -> None:
    """RULES #9, 2.8.11."""
    for deal in range(20):
        for state in states(Game(RuleSet.preset("2021", seats=4), deal, deal)):
            for owner, stack in enumerate(state.stacks):
                for i, aset in enumerate(stack):
                    if aset.tucked < 0:
                        continue
                    assert SeatView(state, owner).stack(owner)[i] is aset
                    stranger = next(s for s in range(4) if not sees_tucked(aset, owner, s))
                    seen = SeatView(state, stranger).stack(owner)[i]
                    assert seen.cards[aset.tucked] == HIDDEN
                    assert SeatView(state, stranger).hidden_cards(seen) == 1
                    return
    raise AssertionError("no tucked card in 20 deals")  # pragma: no cover


def test_a_view_of_a_finished_game_offers_nothing_and_has_no_worlds() -> None:
    game = Game(RuleSet.preset("2021", seats=2, ending="quick"), 1, 1)
    state = next(s for s in states(game) if s.over)
    view = SeatView(state, 0)
    assert (view.kind, view.to_act, view.legal()) == ("over", False, ())
    with pytest.raises(GameOver):
        SeatView(state, 0, worlds=True)


def test_a_view_is_for_a_seat_of_the_game() -> None:
    state = next(states(Game(RuleSet.preset("2021", seats=2), 1, 1)))
    for seat in (-1, 2):
        with pytest.raises(ValueError, match="seat"):
            SeatView(state, seat)
        with pytest.raises(ValueError, match="seat"):
            Worlds(state, seat)


def test_assets_and_wilds_are_told_apart_and_a_hidden_card_is_neither() -> None:
    assert [card for card in range(-1, KINDS) if is_asset(card)] == list(range(10))
    assert [card for card in range(-1, KINDS) if is_wild(card)] == [10, 11, 12]


def _challenged(depth: int, played: list[str], drafted: list[str] | None = None) -> State:
    """Seat 0 challenges seat 1's set at ``depth`` (0: the top set, 1: the second, RULES
    #28; DRAFTED: the set seat 1 just drafted, #35). Seat 1's stack, bottom first: Piano,
    Cabin, then Classic Autos with a Gold tucked that only seat 1 has seen."""
    rules = RuleSet.preset("2021", seats=2)
    stacks = [
        make_set(rules, ["piano", "piano"], first=True),
        make_set(rules, ["cabin", "cabin"]),
        make_set(rules, ["classic_auto", "gold"], tucked=1, knowers=0b10),
    ]
    kind = {0: "classic_auto", 1: "cabin", DRAFTED: (drafted or ["jewels"])[0]}[depth]
    challenge = in_challenge(
        rules,
        challenger=0,
        holder=1,
        played=played,
        responder=1,
        kind=kind,
        depth=depth,
        demand=2 if depth == 1 else 1,
        drafted=drafted,
    )
    return position(
        rules,
        hands={0: ["piano"], 1: ["jewels"]},
        stacks={1: stacks},
        to_act=1,
        turn=0,
        kind="draft_challenge" if depth == DRAFTED else "defend",
        challenge=challenge,
    )


def test_the_contested_value_is_the_challenged_sets_seen_cards_and_the_cards_played() -> None:
    """RULES #9, #13-15: what a seat knows the fight is about, the challenged set's cards it
    has seen (the tucked Gold only its owner has) plus every card played so far."""
    top = _challenged(0, played=["classic_auto", "silver"])
    assert SeatView(top, 1).contested_value() == 15_000 + 50_000 + 15_000 + 25_000
    assert SeatView(top, 0).contested_value() == 15_000 + 15_000 + 25_000
    second = _challenged(1, played=["cabin", "cabin"])  # RULES #28: the set below the top
    assert SeatView(second, 0).contested_value() == 2 * 20_000 + 2 * 20_000


def test_the_contested_value_of_a_drafted_set_is_its_cards_and_the_cards_played() -> None:
    """RULES #35: a drafted set, not in a stack yet, is fought over whole."""
    state = _challenged(DRAFTED, played=["gold"], drafted=["jewels", "silver"])
    assert SeatView(state, 0).contested_value() == 10_000 + 25_000 + 50_000


def test_without_a_challenge_nothing_is_contested() -> None:
    state = position(RuleSet.preset("2021", seats=2), hands={0: ["piano"]})
    assert SeatView(state, 0).challenge is None
    assert SeatView(state, 0).contested_value() == 0


def test_a_seat_that_has_seen_a_whole_stack_shares_it_and_another_gets_a_copy() -> None:
    """RULES #9, 2.8.11: the owner and every seat that once held a set see its tucked card;
    their view holds the stack itself (nothing copied per view), a stranger's a copy with
    the card HIDDEN."""
    rules = RuleSet.preset("2021", seats=3)
    stack = [
        make_set(rules, ["piano", "piano"], first=True),
        make_set(rules, ["classic_auto", "gold"], tucked=1, knowers=0b011),
    ]
    state = position(rules, hands={0: ["piano"]}, stacks={1: stack})
    assert SeatView(state, 1).stack(1) is state.stacks[1]
    assert SeatView(state, 0).stack(1) is state.stacks[1]
    stranger = SeatView(state, 2).stack(1)
    assert stranger[0] is state.stacks[1][0]
    assert stranger[1].cards == (state.stacks[1][1].cards[0], HIDDEN)
