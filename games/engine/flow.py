"""How play moves on: dealing a round, turns, refills, challenges resolving, round end.

These functions change the State copy that ``play.apply`` owns; they never touch a
state a caller can see.
"""

from __future__ import annotations

from itertools import repeat, starmap
from operator import itemgetter
from random import Random
from typing import Any

from .cards import PENNY_JAR
from .draft import process_flips, settle_pile
from .events import Event
from .hands import Hand, give, hand_of, replace_at
from .legal import response_plays
from .rules import DRAFT_PILE_SIZE, DRAFT_PILES
from .scoring import decide, ranking, round_leaders, stack_value
from .state import (
    COUNTER,
    DEFEND,
    DRAFT_CHALLENGE,
    DRAFTED,
    NEW_ROUND,
    OVER,
    SECOND_ACTION,
    TURN,
    AssetSet,
    Progress,
    State,
    asset_set,
    grown,
    seen_by,
    set_stack,
)

Events = list[dict[str, Any]]


def deal(s: State, ev: Events) -> None:
    """Deal the next round from the seed (RULES #1-4, #34, 2.8.6) and start its first turn."""
    t = s.table
    n = t.seats
    g = s.game
    r = g.round + 1
    rng = Random(f"{g.seed}:{r}")
    dealer = below(rng, n) if r == 1 else (g.dealer + 1) % n  # RULES #4
    deck = shuffled(t.deck, rng)
    piles: list[tuple[int, ...]] = []
    if t.draft:  # EN21: three piles of 10 first, then the hands, then the discard flip
        for _ in range(DRAFT_PILES):
            pile = deck[-DRAFT_PILE_SIZE:]
            del deck[-DRAFT_PILE_SIZE:]
            settle_pile(pile, rng)
            piles.append(tuple(pile))
    hands = []
    for _ in range(n):
        hands.append(hand_of(deck[-t.hand :]))
        del deck[-t.hand :]
    discard = (deck.pop(),) if t.flip else ()  # RULES #3: never replaced, even an action card
    # Progress(...), not _replace: compiled, _replace runs namedtuple's Python code, 4x slower
    s.game = Progress(g.seed, r, dealer, g.tallies, g.wins, g.scores, g.resigned, g.winners)
    s.deck, s.drawn, s.removed = tuple(reversed(deck)), 0, ()  # drawn from the front
    s.discard = (discard[0], None) if discard else None
    s.hands, s.stacks, s.tops, s.piles = tuple(hands), ((),) * n, (-1,) * n, tuple(piles)
    s.challenge, s.refill, s.bans, s.flips, s.moves = None, (), (), (), ()
    s.log = NEW_ROUND  # apply restarts the history at this round's round_start
    first = _first_player(s, rng)
    keys = t.keys
    ev.append(
        Event(
            {
                "type": "round_start",
                "round": r,
                "dealer": dealer,
                "first": first,
                "hand_size": t.hand,
                "discard": [keys[c] for c in discard],
                "draft_piles": [keys[p[-1]] for p in s.piles],
                "deck_count": len(s.deck),
            }
        )
    )
    begin_turn(s, first)


def below(rng: Random, n: int) -> int:
    """A uniform int in [0, n) drawn with ``random()`` alone.

    Python guarantees that ``Random(seed).random()`` yields the same sequence in every
    version; ``shuffle`` and ``randrange`` carry no such promise. Replays of stored
    games depend on it, so the engine draws all its chance through ``random()``.
    """
    return int(rng.random() * n)


def shuffled(cards: tuple[int, ...], rng: Random) -> list[int]:
    """The cards in a uniformly random order, drawn with ``random()`` alone (see ``below``)."""
    keys = list(starmap(rng.random, repeat((), len(cards))))
    order = sorted(range(len(cards)), key=keys.__getitem__)
    return list(itemgetter(*order)(cards))


def shuffled_any(cards: list[int] | tuple[int, ...], rng: Random) -> list[int]:
    """``shuffled`` for any number of cards (it needs two or more)."""
    return list(cards) if len(cards) < 2 else shuffled(tuple(cards), rng)


def _first_player(s: State, rng: Random) -> int:
    """RULES #4 and 2.8.9: who starts this round."""
    t = s.table
    n = t.seats
    g = s.game
    after_dealer = (g.dealer + 1) % n
    if t.first_player == "random_each_round":
        return below(rng, n)
    if t.first_player == "lowest_total_starts" and g.round > 1:
        low = min(g.tallies)
        return next(seat for k in range(n) if g.tallies[seat := (after_dealer + k) % n] == low)
    return after_dealer


def begin_turn(s: State, seat: int) -> None:
    """Give ``seat`` its turn; its re-challenge bans end now (RULES 2.8.3)."""
    s.turn = s.to_act = seat
    s.kind = TURN
    s.action_no = 1
    if s.bans:
        s.bans = tuple(b for b in s.bans if b[0] != seat)


def land(s: State, seat: int, aset: AssetSet) -> None:
    """Put a set on top of a stack; the first set to land in an empty stack is marked first."""
    stack = s.stacks[seat]
    if not stack:
        aset = asset_set(aset[0], aset[1], aset[2], aset[3], True)
    if aset.tucked >= 0:
        aset = seen_by(aset, seat)
    set_stack(s, seat, stack + (aset,))


def form(s: State, seat: int, kind: int, cards: tuple[int, ...], tucked: int) -> None:
    """``land`` for a set just formed from a hand, built once with its owner and first flag."""
    stack = s.stacks[seat]
    knowers = 1 << seat if tucked >= 0 else 0
    set_stack(s, seat, stack + (asset_set(kind, cards, tucked, knowers, not stack),))


def draw(s: State, seat: int, ev: Events) -> None:
    """Refill a hand to the hand size from the deck, as far as it goes (RULES #18, #20)."""
    hand = s.hands[seat]
    deck, drawn = s.deck, s.drawn
    k = min(s.table.hand - hand.size, len(deck) - drawn)
    if k <= 0:
        return
    for c in deck[drawn : drawn + k]:
        hand = give(hand, c)
    s.hands = replace_at(s.hands, seat, hand)
    s.drawn = drawn + k
    ev.append(s.table.events.draw[seat][k])


def ask(s: State, ev: Events) -> None:
    """Hand the challenge to its responder, or resolve it when they cannot answer (RULES #17)."""
    ch = s.challenge
    assert ch is not None
    r = ch.responder
    hand = s.hands[r]
    if not hand.size or (  # RULES #17: an empty hand resolves at once (a Hand is never falsy)
        s.table.auto_yield_legal and not response_plays(s.table, hand, ch.kind, ch.demand)
    ):
        resolve(s, ev)
        return
    s.to_act = r
    if ch.depth == DRAFTED and not ch.played:
        s.kind = DRAFT_CHALLENGE
    else:
        s.kind = DEFEND if r == ch.holder else COUNTER


def next_demand(s: State, cards: tuple[int, ...], demand: int) -> int:
    """RULES #27, 2.8.1: a lone Penny Jar against a weight-1 demand must be met with weight 2."""
    return 2 if s.table.penny and demand == 1 and cards == (PENNY_JAR,) else 1


def resolve(s: State, ev: Events) -> None:
    """The last seat to play wins the set and every challenge card (RULES #15, #28, #35)."""
    ch = s.challenge
    assert ch is not None
    s.challenge = None
    t = s.table
    winner = ch.last
    lost_by_challenger = winner == ch.holder and bool(ch.played)
    if ch.depth == DRAFTED:
        assert ch.drafted is not None
        won = grown(ch.drafted, ch.played)
        land(s, winner, won)
        s.flips = ch.piles
    else:
        stack = s.stacks[ch.holder]
        i = len(stack) - 1 - ch.depth
        won = grown(stack[i], ch.played)
        if winner == ch.challenger:  # the set leaves the middle or top, lands on the winner's top
            set_stack(s, ch.holder, stack[:i] + stack[i + 1 :])
            land(s, winner, won)
        else:  # the defender's set stays in place, grown
            set_stack(s, ch.holder, replace_at(stack, i, won))
    if lost_by_challenger and t.ban:  # RULES #26, 2.8.3
        s.bans = s.bans + ((ch.challenger, ch.holder),)
    ev.append(
        t.events.challenge_end(
            winner, ch.challenger, ch.holder, ch.depth, ch.kind, len(won.cards), bool(ch.played)
        )
    )
    action_done(s, ev)


def action_done(s: State, ev: Events) -> None:
    """After an action has fully resolved: flips, a second action, or the end of the turn."""
    if (s.flips or s.moves) and process_flips(s, ev):
        return
    if s.action_no == 1 and s.table.two_actions and s.hands[s.turn].size:  # RULES #26, 2.8.4
        s.action_no = 2
        s.to_act = s.turn
        s.kind = SECOND_ACTION
        return
    end_turn(s, ev)


def end_turn(s: State, ev: Events, hands: list[Hand] | None = None) -> None:
    """Refill (active seat, then defenders in order: RULES #18, #26), then pass the turn.

    ``hands`` is the handler's working copy of the hands, if it made one: the refill goes
    into it, so the hands tuple is built once per turn.
    """
    seat = s.turn
    t = s.table
    deck, drawn = s.deck, s.drawn
    left = len(deck) - drawn
    if left:  # the active seat's refill, inlined: it happens nearly every turn
        if hands is None:
            hands = list(s.hands)
        hand = hands[seat]
        k = t.hand - hand.size
        if k == 1:  # the usual refill after a discard
            c = deck[drawn]
            hands[seat] = hand.step[c] or give(hand, c)
            s.drawn = drawn + 1
            ev.append(t.events.draw[seat][1])
        elif k > 0:
            if k > left:
                k = left
            for c in deck[drawn : drawn + k]:
                hand = hand.step[c] or give(hand, c)
            hands[seat] = hand
            s.drawn = drawn + k
            ev.append(s.table.events.draw[seat][k])
    if hands is not None:
        s.hands = tuple(hands)
    if s.refill:
        for other in s.refill:
            draw(s, other, ev)
        s.refill = ()
    if s.drawn < len(deck):  # cards are left, so every hand is full: play passes left
        nxt = t.after[seat][0]
    else:
        nxt = _next_holder(s, seat)
        if nxt < 0:
            end_round(s, ev)
            return
    s.turn = s.to_act = nxt
    s.kind = TURN
    s.action_no = 1
    if s.bans:  # RULES 2.8.3: a seat's re-challenge bans end when its turn starts
        s.bans = tuple(b for b in s.bans if b[0] != nxt)


def _next_holder(s: State, seat: int) -> int:
    """RULES #20: once the deck is empty, the next seat after ``seat`` still holding cards
    (``seat`` itself last), or -1 when every hand is empty."""
    hands = s.hands
    for n in s.table.after[seat]:  # a loop, not next(generator): no generator to make
        if hands[n].size:
            return n
    return -1


def end_round(s: State, ev: Events) -> None:
    """Score the round (RULES #25), update tallies and round wins, then end or deal again."""
    t = s.table
    keys = t.keys
    scores = tuple([stack_value(stack, t.values) for stack in s.stacks])
    leaders = round_leaders(scores)
    g = s.game
    g = s.game = Progress(
        g.seed,
        g.round,
        g.dealer,
        tuple([a + b for a, b in zip(g.tallies, scores, strict=True)]),
        tuple([w + (i in leaders) for i, w in enumerate(g.wins)]),
        g.scores + (scores,),
        g.resigned,
        g.winners,
    )
    ev.append(
        Event(
            {
                "type": "round_end",
                "round": g.round,
                "scores": list(scores),
                "tallies": list(g.tallies),
                "round_winners": list(leaders),
                "stacks": [
                    [{"kind": keys[st.kind], "cards": [keys[c] for c in st.cards]} for st in stack]
                    for stack in s.stacks
                ],
            }
        )
    )
    winners = decide(t, g.round, g.tallies, g.wins, g.resigned)
    if winners is None:
        deal(s, ev)
    else:
        finish(s, winners, ev)


def finish(s: State, winners: tuple[int, ...], ev: Events) -> None:
    """End the game with these winners.

    The table stays as it is: a challenge left open by a resignation keeps its cards.
    """
    s.kind = OVER
    s.over = True
    g = s.game = s.game._replace(winners=winners)
    s.to_act = -1
    ev.append(
        Event(
            {
                "type": "game_end",
                "winners": list(winners),
                "ranking": ranking(s.table, g.tallies, g.wins, winners, g.resigned),
            }
        )
    )
