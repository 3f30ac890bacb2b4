"""``ismcts``: a player that searches ahead over the cards it cannot see.

Information-set Monte Carlo search, determinized at every iteration (after OpenSpiel's
``ismcts.py``, written afresh for this engine): the root is the seat's information set,
each iteration samples one world consistent with what the seat has seen (``view.worlds``,
the engine's ``Worlds``: other hands, the deck, buried pile cards and unseen tucked cards
dealt again, the game's later deals too), picks a root action by UCB1 over the visits so
far, and plays the world on with a heuristic policy (shark's, for every seat, by
default) for a bounded number of decisions. The action with the best mean wins, shark's
choice keeping a small margin. One level of tree keeps each iteration cheap (the engine
plays a few hundred thousand random decisions a second, a few tens of thousands with a
heuristic policy).

It never sees the real state: its view holds only its seat's knowledge, and the worlds it
plays are dealt by a sampler that holds no hidden card either, so what it chooses depends
only on what its seat knows and on its RNG (tests/bots/test_never_peek.py).

A playout ends at the end of its round, when the game ends, or after ``horizon``
decisions; its value to the seat is 1 for a win and 0 for a loss if the game ended, and
otherwise a squashed lead: its dollars (banked tallies plus the sets on its stack) against
the richest other seat's.
"""

from __future__ import annotations

from math import log, sqrt, tanh
from random import Random
from time import perf_counter
from typing import ClassVar

from games.engine import State, apply
from games.engine.view import SeatView

from .builtin import GreedyStrategy, RandomStrategy, SharkStrategy

MAX_SEED = 2**63
LEAD_SCALE = 150_000.0  # dollars of lead that count as a near-certain edge
DEFAULT_ITERATIONS = 1000  # about 0.2 s a decision compiled, on one core of the CI machine
DEFAULT_MS = 500.0  # the production cap, for slow or busy machines: half the ladder's 1,000 ms
DEFAULT_WIDTH = 10  # candidates searched; 5 until issue 31 (benchmarks/README.md, screens)
DEFAULT_ROLLOUT = "shark"  # how every seat plays a playout on: the strongest heuristic


class SearchStrategy:
    """Determinized information-set Monte Carlo search with UCB1 at the root.

    ``iterations`` and ``ms`` bound each decision, whichever comes first; ``ms=None``
    makes a decision depend only on the view and the RNG, for tests and fair
    benchmarks. Only the heuristic's best ``width`` actions are searched. The default,
    1,000 iterations over shark's best ten actions, with shark playing every seat of a
    playout, capped at 500 ms, plays as strongly on a busy worker as on an idle one
    with the compiled engine and strategies (about 0.2 s a decision on one core, 0.3 s
    early in a round) and fits the ladder's 1,000 ms time control
    (``LADDER_DECISION_MS``) with room to spare; the pure build reaches the cap first,
    at about half the iterations.
    """

    name: ClassVar[str] = "ismcts"
    searches: ClassVar[bool] = True  # it is handed the view's worlds

    def __init__(
        self,
        iterations: int | None = DEFAULT_ITERATIONS,
        ms: float | None = DEFAULT_MS,
        *,
        rollout: str = DEFAULT_ROLLOUT,
        horizon: int = 25,
        exploration: float = 0.7,
        width: int = DEFAULT_WIDTH,
        margin: float = 0.02,
    ) -> None:
        if iterations is None and ms is None:
            raise ValueError("a search needs a budget: iterations, ms or both")
        if iterations is not None and iterations < 1:
            raise ValueError("iterations must be at least 1")
        if ms is not None and ms <= 0:
            raise ValueError("ms must be positive")
        self.iterations = iterations
        self.ms = ms
        self.horizon = horizon
        self.exploration = exploration
        self.width = width
        self.margin = margin
        self.rollout = rollout
        self.policy = _ROLLOUTS[rollout]()
        self.prior = SharkStrategy()
        self.searched = 0  # iterations over this player's life (benchmarks read it)
        self.decisions = 0  # decisions it searched

    def settings(self) -> dict[str, object]:
        """How it plays, besides its budget: what a measurement of it is keyed by."""
        return {
            "rollout": self.rollout,
            "horizon": self.horizon,
            "exploration": self.exploration,
            "width": self.width,
            "margin": self.margin,
        }

    def choose(self, view: SeatView, rng: Random) -> int:
        legal = self.candidates(view, rng)
        if len(legal) == 1:
            return legal[0]
        worlds = view.worlds
        if worlds is None:
            raise ValueError("the search player needs a view with its worlds")
        seat = view.seat
        visits = [0] * len(legal)
        totals = [0.0] * len(legal)
        deadline = None if self.ms is None else perf_counter() + self.ms / 1000
        done = 0
        while self.iterations is None or done < self.iterations:
            if deadline is not None and done and perf_counter() >= deadline:
                break
            world = worlds.sample(int(rng.random() * MAX_SEED))
            i = self._select(visits, totals, done)
            after = apply(world, legal[i])[0]
            totals[i] += self._playout(after, seat, rng)
            visits[i] += 1
            done += 1
        self.searched += done
        self.decisions += 1
        means = [totals[k] / visits[k] if visits[k] else 0.0 for k in range(len(legal))]
        means[0] += self.margin  # the heuristic's choice, unless searching shows better
        best = max(range(len(legal)), key=lambda k: (means[k], -k))
        return legal[best]

    def candidates(self, view: SeatView, rng: Random) -> tuple[int, ...]:
        """The actions worth searching: shark's choice first, then greedy's best few.

        Searching every legal action spreads a small budget too thin (a turn may offer
        dozens of discards and challenges); the heuristic ranks them and the search
        decides between the best ``width``, keeping shark's choice unless the playouts
        show another is better by ``margin``.
        """
        legal = view.legal()
        if len(legal) <= 1:
            return legal
        first = self.prior.choose(view, rng)
        ranked = sorted(legal, key=lambda a: -self.prior.score(view, a))
        return (first, *[a for a in ranked if a != first][: self.width - 1])

    def _select(self, visits: list[int], totals: list[float], done: int) -> int:
        """UCB1: every action once (in order), then the best mean plus exploration."""
        for i, v in enumerate(visits):
            if v == 0:
                return i
        c = self.exploration * sqrt(log(done))
        scores = [totals[i] / v + c / sqrt(v) for i, v in enumerate(visits)]
        return max(range(len(scores)), key=scores.__getitem__)

    def _playout(self, state: State, seat: int, rng: Random) -> float:
        """Play the world on with the rollout policy; its value to ``seat`` in [0, 1]."""
        round_ = state.round
        policy = self.policy
        for _ in range(self.horizon):
            if state.over or state.round != round_:
                break
            to_act = state.to_act
            state = apply(state, policy.choose(SeatView(state, to_act), rng))[0]
        return value(state, seat)


def value(state: State, seat: int) -> float:
    """A position's worth to ``seat``: 1 or 0 once over, else its squashed dollar lead."""
    if state.over:
        return 1.0 if seat in state.winners else 0.0
    values = state.table.values
    money = [
        tally + sum(values[c] for aset in stack for c in aset.cards)
        for tally, stack in zip(state.tallies, state.stacks, strict=True)
    ]
    mine = money[seat]
    best_other = max(m for k, m in enumerate(money) if k != seat)
    return 0.5 + 0.5 * tanh((mine - best_other) / LEAD_SCALE)


_ROLLOUTS: dict[str, type[RandomStrategy] | type[GreedyStrategy]] = {
    "random": RandomStrategy,
    "greedy": GreedyStrategy,
    "shark": SharkStrategy,
}
