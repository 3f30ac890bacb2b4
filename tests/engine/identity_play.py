"""Seeded games for the compiled engine's identity test (tests/engine/test_compiled.py).

Run as ``python -m tests.engine.identity_play FIRST COUNT`` with ``CYA_ENGINE`` set: the
first line says which engine ran (``pure`` or ``compiled``, and where ``state`` came from);
then one line per game: its seed, the actions played, and a digest of every state after
every action (and of the first), all hex. The choices come from ``random.Random(seed)``
over the legal list, so two engines that agree state by state print the same lines.
"""

from __future__ import annotations

import hashlib
import random
import sys

from games import engine
from games.engine import RuleSet, State, legal_actions, new_game, step
from games.engine import actions as act
from games.engine import state as state_module

ADVANCED = {
    "hand_six": True,
    "two_actions": True,
    "improve_set": True,
    "action_cards": True,
    "second_set_challenge": True,
    "penny_jar": True,
}
# a game's rules by seed: the common tables and every rule path, kept to a round or two
VARIANTS = (
    RuleSet.preset("2021", seats=4, ending="quick"),
    RuleSet.preset("2021", seats=2, ending="quick"),  # draft piles
    RuleSet.preset("2021", seats=3, ending="quick", advanced=ADVANCED),
    RuleSet.preset("2011", seats=5, ending="quick", first_player="random_each_round"),
    RuleSet.preset(
        "de2023",
        seats=4,
        ending="quick",
        advanced=ADVANCED,
        bottom_protection="first_formed",
        auto_yield="no_legal_card",
        discard_pair_wild="hand_wild_only",
    ),
    RuleSet.preset("2021", seats=2, ending="quick", advanced={**ADVANCED, "penny_jar_weight": 1}),
    RuleSet.preset("2021", seats=6, ending="highest_after_n", ending_rounds=2),
    RuleSet.preset("2021", seats=3, ending="quick", advanced={"swap": True, "two_actions": True}),
)
RESIGN_CHANCE = 0.002  # now and then the seat to act resigns instead (three or more left)


def fingerprint(s: State) -> bytes:
    """Every field of the state but caches, as text: equal text, equal states."""
    fields = (
        s.game,
        s.over,
        s.version,
        s.deck,
        s.drawn,
        s.discard_pile,
        s.removed,
        tuple([h.cards for h in s.hands]),
        s.stacks,
        s.tops,
        s.piles,
        s.log[0] if s.log is not None else None,  # the newest events; older ones were seen
        s.turn,
        s.action_no,
        s.to_act,
        s.kind,
        s.challenge,
        s.refill,
        s.bans,
        s.flips,
        s.moves,
        legal_actions(s),
    )
    return repr(fields).encode()


def play(seed: int) -> tuple[list[int], list[str]]:
    """One game: its actions and the digest of each state."""
    rules = VARIANTS[seed % len(VARIANTS)]
    rng = random.Random(seed)
    s = new_game(rules, seed)
    digests = [hashlib.blake2b(fingerprint(s), digest_size=8).hexdigest()]
    actions: list[int] = []
    while not s.over:
        live = s.table.seats - bin(s.game.resigned).count("1")
        if live > 2 and rng.random() < RESIGN_CHANCE:
            action = act.resign(s.to_act)
        else:
            legal = legal_actions(s)
            action = legal[int(rng.random() * len(legal))]
        s = step(s, action)[0]
        actions.append(action)
        digests.append(hashlib.blake2b(fingerprint(s), digest_size=8).hexdigest())
    return actions, digests


def main() -> None:
    first, count = int(sys.argv[1]), int(sys.argv[2])
    out = sys.stdout
    out.write(f"{engine.ENGINE_BUILD} {state_module.__file__}\n")
    for seed in range(first, first + count):
        actions, digests = play(seed)
        out.write(f"{seed} {','.join(map(str, actions))} {','.join(digests)}\n")
    out.flush()


if __name__ == "__main__":
    main()
