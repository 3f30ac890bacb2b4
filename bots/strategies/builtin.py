"""The built-in strategies: the baseline every entered bot is measured against.

Each is pure (engine only, no I/O) and decides from a SeatView, which holds only what its
seat may know (games.engine.view).
- ``random``: a uniformly random legal action.
- ``greedy``: the action worth most right now (sets formed, sets stolen, cheap discards),
  fighting challenges while the set is worth the card.
- ``shark``: greedy's sense of value plus card counting: it estimates how many matching
  cards each opponent can hold (a hypergeometric draw from the cards it has not seen),
  challenges when it should win, steals from empty hands, keeps wilds for fights early
  and spends them late, and stops defending sets not worth the wild.
"""

from __future__ import annotations

from math import comb
from random import Random
from typing import ClassVar, Protocol

from games.engine import actions as act
from games.engine.cards import GOLD, PENNY_JAR, SILVER
from games.engine.view import SeatView, is_asset, is_wild


class Strategy(Protocol):
    """Something that picks one of the legal actions for the seat to act, from that seat's
    view alone (``registry.decide`` builds it)."""

    name: ClassVar[str]  # its registry name (a class attribute, also when compiled)
    searches: ClassVar[bool]  # whether it samples worlds: its view then carries them

    def choose(self, view: SeatView, rng: Random) -> int:
        """One of ``view.legal()``."""
        ...


class RandomStrategy:
    """A uniformly random legal action: the weakest baseline."""

    name: ClassVar[str] = "random"
    searches: ClassVar[bool] = False

    def choose(self, view: SeatView, rng: Random) -> int:
        legal = view.legal()
        return legal[int(rng.random() * len(legal))]


def _cards(action: int) -> tuple[int, ...]:
    return act.cards_of(action)


class GreedyStrategy:
    """The action worth most right now; fights a challenge while the set is worth the card."""

    name: ClassVar[str] = "greedy"
    searches: ClassVar[bool] = False

    def choose(self, view: SeatView, rng: Random) -> int:
        legal = view.legal()
        kind = view.kind
        if kind in ("defend", "counter", "draft_challenge"):
            return self.respond(view, legal)
        if kind == "move_choice":
            return self.move_choice(view, legal)
        scored = [(self.score(view, a), -i, a) for i, a in enumerate(legal)]
        return max(scored)[2]

    # --- challenges ------------------------------------------------------------------

    def respond(self, view: SeatView, legal: tuple[int, ...]) -> int:
        """Play the cheapest card that answers, if the set is worth it; otherwise give up."""
        give_up = legal[-1]
        plays = [a for a in legal if act.action_type(a) == act.PLAY]
        if not plays:
            return give_up
        cheapest = min(plays, key=lambda a: self.cost(view, _cards(a)))
        if self.worth_fighting(view, cheapest):
            return cheapest
        return give_up

    def worth_fighting(self, view: SeatView, play: int) -> bool:
        """Whether to play ``play`` in the challenge in progress."""
        cost = self.cost(view, _cards(play))
        if all(is_asset(c) for c in _cards(play)):
            return True  # a matching asset is the cheapest answer there is
        return view.contested_value() >= cost

    def cost(self, view: SeatView, cards: tuple[int, ...]) -> int:
        """What playing cards costs if they are lost: their value (wilds held dearer)."""
        values = view.values
        keep = self.wild_keep(view)
        total = 0
        for c in cards:  # a loop: a generator's frame costs more than these one or two cards
            total += values[c] + keep if is_wild(c) else values[c]
        return total

    def wild_keep(self, view: SeatView) -> int:
        """Dollars a wild is worth beyond its face value in hand (greedy: nothing)."""
        return 0

    def move_choice(self, view: SeatView, legal: tuple[int, ...]) -> int:
        """For a revealed Move: bury the other seat's top set (it may be ours to steal)."""
        return legal[0]

    # --- a turn ------------------------------------------------------------------------

    def score(self, view: SeatView, action: int) -> float:
        """How good ``action`` looks now, in dollars."""
        kind, a, b, target, extra = act.unpack(action)
        if kind == act.DISCARD:  # the commonest action, first (search playouts score many)
            return self.discard_score(view, a)
        values = view.values
        if kind == act.PAIR:
            return values[a] + values[b] - self._wild_penalty(view, (b,)) + self.cover_bonus(view)
        if kind == act.PAIR_DISCARD:
            top = view.discard_top or 0
            return values[a] + values[top] + 5_000 - self._wild_penalty(view, (a,))
        if kind == act.CHALLENGE:
            return self.challenge_score(view, target, extra, _cards(action))
        if kind == act.DRAFT:
            tops = view.pile_tops()
            gained = sum(values[tops[p] or 0] for p in range(3) if extra >> p & 1)
            return values[a] + gained + 5_000
        if kind == act.IMPROVE:
            return values[a] * 0.8
        if kind == act.SWAP:
            mine, theirs = view.top(view.seat), view.top(target)
            if mine is None or theirs is None:
                return -1
            return view.known_value(theirs) - view.known_value(mine)
        if kind == act.MOVE:
            return -5_000  # rarely worth a turn for these strategies
        if kind == act.END_TURN:
            return 0
        return -1e9

    def _wild_penalty(self, view: SeatView, cards: tuple[int, ...]) -> int:
        keep = self.wild_keep(view)
        return sum(keep for c in cards if is_wild(c))

    def cover_bonus(self, view: SeatView) -> int:
        """Forming a set covers our top set: worth a share of what it protects."""
        top = view.top(view.seat)
        if top is None or view.stack_size(view.seat) < 2:
            return 0
        return view.known_value(top) // 4

    def challenge_score(
        self, view: SeatView, target: int, depth: int, cards: tuple[int, ...]
    ) -> float:
        """Expected dollars from a challenge: the set's value if it wins, the card if not."""
        stack = view.stack(target)
        contested = stack[len(stack) - 1 - depth]
        value = view.known_value(contested) + 10_000 * view.hidden_cards(contested)
        p = self.win_chance(view, target, contested.kind, cards)
        cost = self.cost(view, cards)
        return p * (value + cost) - (1 - p) * cost

    def win_chance(self, view: SeatView, target: int, kind: int, cards: tuple[int, ...]) -> float:
        """Greedy's guess: sure against an empty hand, else by how many answers we hold."""
        if view.hand_size(target) == 0:
            return 1.0
        ammo = view.holds(kind) + view.holds(SILVER) + view.holds(GOLD) + view.holds(PENNY_JAR)
        return min(0.9, 0.25 + 0.2 * ammo)

    def discard_score(self, view: SeatView, card: int) -> float:
        """Discarding costs the card's value; wilds and action cards are special."""
        if card > PENNY_JAR:
            return -1_000  # an action card we will not play is worth nothing
        penalty = 3 * view.values[card] if is_wild(card) else view.values[card]
        return -penalty - 20_000


class SharkStrategy(GreedyStrategy):
    """Greedy's values with card counting: it knows when a challenge will hold."""

    name: ClassVar[str] = "shark"
    LATE = 12  # cards left in the deck when the endgame starts

    def wild_keep(self, view: SeatView) -> int:
        """Early in a round a wild is worth keeping for fights; late, only its face value."""
        return 20_000 if view.deck_left > self.LATE else 0

    def win_chance(self, view: SeatView, target: int, kind: int, cards: tuple[int, ...]) -> float:
        """Our answers against the answers the target is likely to hold."""
        their_hand = view.hand_size(target)
        if their_hand == 0:
            return 1.0
        ours = view.holds(kind) + view.holds(SILVER) + view.holds(GOLD) + view.holds(PENNY_JAR)
        ours -= len(cards) - 1  # cards beyond the first are spent on the opening
        expected = expected_matches(view, kind, their_hand)
        p_none = chance_of_none(view, kind, their_hand)
        if ours <= 0:
            return 0.05
        # they must answer every card we play: they keep the set only with more answers
        return max(0.05, min(0.97, p_none + (1 - p_none) * ours / (ours + expected + 0.5)))

    def worth_fighting(self, view: SeatView, play: int) -> bool:
        ch = view.challenge
        value = view.contested_value()
        cards = _cards(play)
        if ch is None:
            return False
        if view.kind == "draft_challenge":
            p = self.win_chance(view, ch.holder, ch.kind, cards)
            return p * value > (1 - p) * self.cost(view, cards)
        opponent = ch.holder if view.seat == ch.challenger else ch.challenger
        if view.hand_size(opponent) == 0:
            return True  # they cannot answer: this card wins the set
        if all(is_asset(c) for c in cards):
            return True
        # a wild: worth it if the set is worth more than what we may lose with it
        their_answers = expected_matches(view, ch.kind, view.hand_size(opponent))
        return value >= self.cost(view, cards) * (0.5 + their_answers)

    def discard_score(self, view: SeatView, card: int) -> float:
        """Discard what is least useful: cards whose twins are gone, cheap ones first."""
        score = super().discard_score(view, card)
        if is_asset(card):
            unseen = view.unseen()[card]
            score += 3_000 * (3 - min(unseen, 3))  # no twins left to pair with: let it go
            if view.holds(card) >= 2:
                score -= 15_000  # a pair in hand is a set next turn
        return score

    def score(self, view: SeatView, action: int) -> float:
        base = super().score(view, action)
        if act.action_type(action) == act.CHALLENGE and view.deck_left == 0:
            base += 5_000  # the endgame: steal while hands run dry
        return base


def expected_matches(view: SeatView, kind: int, hand: int) -> float:
    """How many answers to a set of ``kind`` a hand of ``hand`` unseen cards holds on average."""
    unseen = view.unseen()
    pool = max(1, sum(unseen))
    matching = unseen[kind] + unseen[SILVER] + unseen[GOLD] + unseen[PENNY_JAR]
    return hand * matching / pool


def chance_of_none(view: SeatView, kind: int, hand: int) -> float:
    """The chance a hand of ``hand`` unseen cards holds no answer (hypergeometric)."""
    unseen = view.unseen()
    pool = sum(unseen)
    matching = unseen[kind] + unseen[SILVER] + unseen[GOLD] + unseen[PENNY_JAR]
    if hand > pool:
        return 0.0
    return comb(pool - matching, hand) / comb(pool, hand) if pool else 1.0
