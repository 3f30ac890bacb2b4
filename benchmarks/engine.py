"""Engine speed: random-legal full games in-process, against RLCard's UNO and OpenSpiel's hearts.

Run with ``python benchmarks/engine.py`` (``make bench`` installs RLCard and OpenSpiel,
benchmark-only dependencies). Each figure counts decisions per second of CPU time, where
one decision is ``legal_actions`` plus ``apply`` (plus one ``observe`` for the "with
observe" figure), played in full games from ``new_game`` to game over, seeds 0, 1, 2, ...

RLCard is measured the way its own ``examples/run_random.py`` plays: ``env.run`` with a
``RandomAgent`` in every seat, counting the actions taken. Engine and RLCard runs are
interleaved and each keeps its best of ``--trials`` so background load hits both alike.

OpenSpiel's hearts (C++, played from Python through ``pyspiel``) counts its players'
actions the same way: ``legal_actions`` and ``apply_action`` per decision, random legal
choices, whole games from ``new_initial_state``; its chance nodes (the deal, card by
card) are played too, at random, and not counted.

The engine figures are those of the engine ``games.engine`` loads: the compiled build when
``make engine`` made a fresh one (docs/engine.md), else the pure modules. With a compiled
build the pure engine is measured too, in a child process (``CYA_ENGINE=pure``) whose runs
are interleaved with the others.

``--callgrind GAMES`` counts work instead of timing it, for comparing two versions on a
noisy machine (docs/engine.md, "Speed").

The last line is read by tools:
``engine_decisions_per_s=<n> with_observe_per_s=<n> rlcard_uno_steps_per_s=<n> ratio=<n>
openspiel_hearts_actions_per_s=<n> ratio_openspiel=<n>`` (``ratio`` and ``ratio_openspiel``:
the engine's classic rate over the other's), followed by ``pure_decisions_per_s=<n>``
when a compiled build was measured.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.engine import ENGINE_BUILD, RuleSet, apply, legal_actions, new_game, observe

ALL_ADVANCED = {
    "hand_six": True,
    "two_actions": True,
    "improve_set": True,
    "action_cards": True,
    "second_set_challenge": True,
    "penny_jar": True,
}


def engine_rate(rules: RuleSet, seconds: float, *, with_observe: bool, seed0: int = 0) -> float:
    """Decisions per CPU second over whole games until ``seconds`` have passed."""
    rng = random.Random(seed0)
    pick = rng.random
    decisions = 0
    seed = seed0
    start = time.process_time()
    while time.process_time() - start < seconds:
        state = new_game(rules, seed)
        seed += 1
        while not state.over:
            acts = legal_actions(state)
            if with_observe:
                observe(state, state.to_act)
            state, _ = apply(state, acts[int(pick() * len(acts))])
            decisions += 1
    return decisions / (time.process_time() - start)


def rlcard_rate(seconds: float) -> float:
    """RLCard UNO steps per CPU second, played by ``env.run`` with random agents."""
    import rlcard
    from rlcard.agents import RandomAgent

    env = rlcard.make("uno", config={"seed": 42})
    env.set_agents([RandomAgent(num_actions=env.num_actions) for _ in range(env.num_players)])
    steps = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        trajectories, _ = env.run(is_training=False)
        # each seat's trajectory alternates state, action, ..., final state
        steps += sum(len(t) // 2 for t in trajectories)
    return steps / (time.process_time() - start)


def openspiel_rate(seconds: float, seed0: int = 0) -> float:
    """OpenSpiel hearts player actions per CPU second, random legal play, whole games."""
    import pyspiel

    game = pyspiel.load_game("hearts")
    pick = random.Random(seed0).random
    actions = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[int(pick() * len(outcomes))][0])
                continue
            legal = state.legal_actions()
            state.apply_action(legal[int(pick() * len(legal))])
            actions += 1
    return actions / (time.process_time() - start)


CLASSIC = RuleSet.preset("2021", seats=4)
ADVANCED = RuleSet.preset("2021", seats=4, advanced=ALL_ADVANCED)
# what the pure child measures, by the name the parent asks it for
ENGINE_RUNS = {
    "classic": (CLASSIC, False),
    "observe": (CLASSIC, True),
    "advanced": (ADVANCED, False),
}


def count_work(games: int) -> None:
    """``--callgrind N``: N seeded classic games played twice, the second under callgrind's
    instrumentation (run as ``valgrind --tool=callgrind --instr-atstart=no``): the first
    playing makes the interned hands those games meet, so the count is warm. Prints the
    decisions counted; instructions per decision are callgrind's total over them."""
    played = 0
    for instrumented in (False, True):
        if instrumented:
            subprocess.run(["callgrind_control", "-i", "on", str(os.getpid())], check=False)
        pick = random.Random(0).random
        played = 0
        for seed in range(games):
            state = new_game(CLASSIC, seed)
            while not state.over:
                acts = legal_actions(state)
                state, _ = apply(state, acts[int(pick() * len(acts))])
                played += 1
    subprocess.run(["callgrind_control", "-i", "off", str(os.getpid())], check=False)
    print(f"engine: {ENGINE_BUILD}, {games} games, {played} decisions counted")


def worker() -> None:
    """The pure engine's child: one ``<run> <seconds>`` per line in, its rate per line out."""
    for line in sys.stdin:
        name, seconds = line.split()
        rules, with_observe = ENGINE_RUNS[name]
        print(engine_rate(rules, float(seconds), with_observe=with_observe), flush=True)


class PureChild:
    """This script again, as a child process running the pure engine (``--worker``)."""

    def __init__(self) -> None:
        env = {**os.environ, "CYA_ENGINE": "pure"}
        self.proc = subprocess.Popen(
            [sys.executable, __file__, "--worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )

    def rate(self, name: str, seconds: float) -> float:
        assert self.proc.stdin is not None
        assert self.proc.stdout is not None
        self.proc.stdin.write(f"{name} {seconds}\n")
        self.proc.stdin.flush()
        return float(self.proc.stdout.readline())

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="CPU seconds per run")
    parser.add_argument("--trials", type=int, default=3, help="interleaved runs; best is kept")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument(
        "--callgrind", type=int, metavar="GAMES", help="count work under callgrind instead"
    )
    args = parser.parse_args()
    if args.worker:
        worker()
        return
    if args.callgrind:
        count_work(args.callgrind)
        return

    classic, advanced = CLASSIC, ADVANCED
    runs: dict[str, Callable[[], float]] = {
        "classic": lambda: engine_rate(classic, args.seconds, with_observe=False),
        "rlcard": lambda: rlcard_rate(args.seconds),
        "openspiel": lambda: openspiel_rate(args.seconds),
        "observe": lambda: engine_rate(classic, args.seconds, with_observe=True),
        "advanced": lambda: engine_rate(advanced, args.seconds, with_observe=False),
    }
    compiled = ENGINE_BUILD == "compiled"
    child = PureChild() if compiled else None
    if child is not None:
        for name in ENGINE_RUNS:
            runs[f"pure_{name}"] = lambda name=name: child.rate(name, args.seconds)  # type: ignore[misc]
    best = dict.fromkeys(runs, 0.0)
    for trial in range(args.trials):
        for name, run in runs.items():
            best[name] = max(best[name], run())
        print(
            f"trial {trial + 1}: " + " ".join(f"{k}={v:,.0f}" for k, v in best.items()), flush=True
        )

    if child is not None:
        child.close()

    print(f"engine: {ENGINE_BUILD}")
    print(f"2021 classic, 4 seats:         {best['classic']:>10,.0f} decisions/s")
    print(f"  with one observe each:       {best['observe']:>10,.0f} decisions/s")
    print(f"every advanced rule, 4 seats:  {best['advanced']:>10,.0f} decisions/s")
    if compiled:
        print(f"pure engine, 2021 classic:     {best['pure_classic']:>10,.0f} decisions/s")
        print(f"  with one observe each:       {best['pure_observe']:>10,.0f} decisions/s")
        print(f"  every advanced rule:         {best['pure_advanced']:>10,.0f} decisions/s")
    print(f"RLCard UNO, random agents:     {best['rlcard']:>10,.0f} steps/s")
    print(f"OpenSpiel hearts (C++):        {best['openspiel']:>10,.0f} actions/s")
    ratio = best["classic"] / best["rlcard"]
    ratio_openspiel = best["classic"] / best["openspiel"]
    print(
        f"engine_decisions_per_s={best['classic']:.0f} with_observe_per_s={best['observe']:.0f} "
        f"rlcard_uno_steps_per_s={best['rlcard']:.0f} ratio={ratio:.2f} "
        f"openspiel_hearts_actions_per_s={best['openspiel']:.0f} "
        f"ratio_openspiel={ratio_openspiel:.2f}"
        + (f" pure_decisions_per_s={best['pure_classic']:.0f}" if compiled else "")
    )


if __name__ == "__main__":
    main()
