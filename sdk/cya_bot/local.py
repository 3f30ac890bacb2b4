"""Playing your bot against the built-ins offline, on duplicate deals (``cya-bot play``).

Everything runs in this process with the platform's own engine and built-in strategies
(``games.engine``, ``bots.strategies``; the SDK ships those very modules). Each deal is
played once per rotation of the seats, so your bot plays every chair with the same
cards (``bots.strategies.duplicate``, as the arena measures the built-ins). The same
arguments give the same games, places and figures: the built-ins draw from a random
generator seeded by (deal, rotation, version), and the deals from ``--seed``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from random import Random

from bots.strategies import STRATEGIES, Strategy, decide, strategy
from bots.strategies.duplicate import Interval, deal_seeds, interval, rotation
from games.engine import RuleSet, State, apply, new_game, observe

from .decisions import DECISION_MS, TIME_BANK_MS, Choice, ask
from .webhook import Decide

YOU = 0  # your bot is entry 0; the built-ins follow in the order given


@dataclass(frozen=True)
class Fault:
    """A decision your bot got wrong: the engine's default was played instead."""

    game: int
    version: int
    fault: str
    detail: str


@dataclass(frozen=True)
class Game:
    """One game: its deal, rotation and seed, and every entry's seat, place and dollars."""

    number: int
    deal: int
    rotation: int
    seed: int
    seats: tuple[int, ...]  # by entry: the seat it played
    places: tuple[int, ...]  # by entry: 1 = first (tied seats share a place)
    dollars: tuple[int, ...]  # by entry
    winners: tuple[int, ...]  # the winning entries
    decisions: int  # decisions your bot made


@dataclass
class Clock:
    """How long your bot took: every answer, and those over the per-decision limit (on
    the ladder the excess comes out of the game's time bank, and a timeout is a strike)."""

    limit_ms: int
    answers: int = 0
    total_ms: float = 0.0
    longest_ms: float = 0.0
    over_limit: int = 0

    def add(self, elapsed_ms: float) -> None:
        self.answers += 1
        self.total_ms += elapsed_ms
        self.longest_ms = max(self.longest_ms, elapsed_ms)
        self.over_limit += elapsed_ms > self.limit_ms


@dataclass(frozen=True)
class Standing:
    """One entry's figures over the run: win share and average place, 95% over deals."""

    name: str
    win: Interval
    place: Interval


@dataclass
class Run:
    """A whole run: its games, each entry's standing, your bot's faults and clock."""

    entries: tuple[str, ...]
    rules: RuleSet
    seed: int
    deals: int
    games: list[Game] = field(default_factory=list)
    faults: list[Fault] = field(default_factory=list)
    clock: Clock = field(default_factory=lambda: Clock(DECISION_MS))
    standings: list[Standing] = field(default_factory=list)


def check_builtins(names: Sequence[str]) -> None:
    """ValueError naming the choices if any of ``names`` is not a built-in."""
    for name in names:
        if name not in STRATEGIES:
            raise ValueError(f"unknown built-in {name!r}: choose from {', '.join(STRATEGIES)}")


def play(
    bot: Decide,
    against: Sequence[str],
    *,
    rules: RuleSet,
    deals: int,
    seed: int,
    name: str = "your bot",
    decision_ms: int = DECISION_MS,
    time_bank_ms: int = TIME_BANK_MS,
    on_game: Callable[[Game], None] | None = None,
) -> Run:
    """Play ``deals`` deals, each once per rotation, of ``bot`` against the built-ins
    ``against`` (one per other seat); ``on_game`` sees each game as it ends."""
    check_builtins(against)
    if len(against) + 1 != rules.seats:
        raise ValueError(f"the rules seat {rules.seats}, not {len(against) + 1} players")
    run = Run((name, *against), rules, seed, deals, clock=Clock(decision_ms))
    players = [strategy(n) for n in against]
    n = rules.seats
    for d, deal_seed in enumerate(deal_seeds(seed, deals)):
        for r in range(n):
            table = _Table(run, bot, players, rotation(n, r), decision_ms, time_bank_ms)
            game = table.play(len(run.games) + 1, d + 1, r + 1, deal_seed)
            run.games.append(game)
            if on_game is not None:
                on_game(game)
    run.standings = standings(run.entries, run.games)
    return run


def standings(entries: Sequence[str], games: Sequence[Game]) -> list[Standing]:
    """Each entry's win share (a shared win counts 1/k to each of k winners) and average
    place, as means over deals with their 95% intervals."""
    by_deal: dict[int, list[Game]] = {}
    for game in games:
        by_deal.setdefault(game.deal, []).append(game)
    out = []
    for e, entry in enumerate(entries):
        wins = [sum(_won(g, e) for g in gs) / len(gs) for gs in by_deal.values()]
        places = [sum(g.places[e] for g in gs) / len(gs) for gs in by_deal.values()]
        out.append(Standing(entry, interval(wins), interval(places)))
    return out


def _won(game: Game, entry: int) -> float:
    return 1 / len(game.winners) if entry in game.winners else 0.0


class _Table:
    """One game: your bot in the seat the rotation gives it, built-ins in the others."""

    def __init__(
        self,
        run: Run,
        bot: Decide,
        players: list[Strategy],
        entry_at: list[int],
        decision_ms: int,
        time_bank_ms: int,
    ) -> None:
        self.run, self.bot, self.players, self.entry_at = run, bot, players, entry_at
        self.decision_ms, self.time_bank_ms = decision_ms, time_bank_ms

    def play(self, number: int, deal: int, rot: int, seed: int) -> Game:
        state = new_game(self.run.rules, seed)
        asked = 0
        while not state.over:
            seat = state.to_act
            entry = self.entry_at[seat]
            if entry == YOU:
                code = self._ask(state, number)
                asked += 1
            else:
                rng = Random(f"{seed}:{rot}:{state.version}")
                code = decide(self.players[entry - 1], state, seat, rng)
            state = apply(state, code)[0]
        return self._result(state, number, deal, rot, seed, asked)

    def _ask(self, state: State, number: int) -> int:
        choice: Choice = ask(
            self.bot, state, number, decision_ms=self.decision_ms, time_bank_ms=self.time_bank_ms
        )
        self.run.clock.add(choice.elapsed_ms)
        if choice.fault:
            self.run.faults.append(Fault(number, state.version, choice.fault, choice.detail))
        return choice.code

    def _result(
        self, state: State, number: int, deal: int, rot: int, seed: int, asked: int
    ) -> Game:
        n = len(self.entry_at)
        seat_of = [0] * n
        for seat, entry in enumerate(self.entry_at):
            seat_of[entry] = seat
        ranking = {row["seat"]: row for row in observe(state, None)["ranking"]}
        return Game(
            number=number,
            deal=deal,
            rotation=rot,
            seed=seed,
            seats=tuple(seat_of),
            places=tuple(ranking[seat_of[e]]["place"] for e in range(n)),
            dollars=tuple(ranking[seat_of[e]]["tally"] for e in range(n)),
            winners=tuple(sorted(self.entry_at[s] for s in state.winners)),
            decisions=asked,
        )
