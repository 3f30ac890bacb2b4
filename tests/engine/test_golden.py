"""Golden tests: legal-action counts at set positions ("perft") and recorded whole games.

Perft (SC perft): at each position below, the number of legal actions (depth 1, each
worked out by hand in the comment) and the number of action sequences of length 2 and 3
(recorded from the engine) are fixed. A change in any count is a change in the rules the
engine plays.

Recorded games (SC snapshot suites): ``golden/<name>.json`` holds one complete game per
preset (and two advanced ones): its rules, seed, action log as JSON action dicts, and the
outcome. The test replays each log with the stored rules and compares the outcome, so
stored games keep replaying as the engine changes. To re-record them after a deliberate
rule change (review the diff!), run:

    UPDATE_GOLDEN=1 .venv/bin/pytest tests/engine/test_golden.py

which plays each game in ``GOLDEN_GAMES`` again (random-legal choices from its choice
seed) and rewrites its file.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from games.engine import (
    Advanced,
    RuleSet,
    State,
    action_from_json,
    action_to_json,
    apply,
    legal_actions,
    replay,
)
from games.engine.simulate import ALL_ADVANCED
from tests.engine.builders import in_challenge, position
from tests.engine.strategies import Game, playout

GOLDEN = Path(__file__).parent / "golden"
UPDATE = os.environ.get("UPDATE_GOLDEN") == "1"
DECK = ["toy_train", "scooter", "cabin", "gold", "piano", "jewels"] * 8


def perft(state: State, depth: int) -> int:
    """The number of action sequences of length ``depth`` from ``state``."""
    if depth == 0 or state.over:
        return 1
    return sum(perft(apply(state, a)[0], depth - 1) for a in legal_actions(state))


def classic_turn() -> State:
    """RULES #6, #7, #10, #11, #13, #14: a 2021 turn with pairs, discard pairs, challenges.

    Seat 0 holds piano x2, jewels, silver, gold; jewels on the discard. Pairs: piano with
    piano, silver or gold, jewels with silver or gold (5). Discard pairs: jewels, silver,
    gold with the jewels on top (3). Discards: 4 distinct cards. Challenges: seat 1's top
    piano set with piano, silver or gold (3), seat 2's top jewels set likewise (3); seat
    3's lone set is protected. 18 in all.
    """
    rules = RuleSet()
    return position(
        rules,
        hands={
            0: ["piano", "piano", "jewels", "silver", "gold"],
            1: ["comic_books"] * 5,
            2: ["cabin"] * 5,
            3: ["scooter"] * 5,
        },
        stacks={
            0: [["cabin", "cabin"]],
            1: [["comic_books", "comic_books"], ["piano", "silver"]],
            2: [["jewels", "jewels"], ["jewels", "gold"]],
            3: [["toy_train", "toy_train"]],
        },
        discard=["jewels"],
        deck=DECK,
    )


def penny_jar_defence() -> State:
    """RULES #27, 2.8.1: a lone Penny Jar opened against seat 1's piano set: weight 2.

    Seat 1 holds piano x2, silver, gold, Penny Jar, cabin. Answers: the Penny Jar (1), or
    two weight-1 cards from piano, piano, silver, gold: piano+piano, piano+silver,
    piano+gold, silver+gold (4); or concede (1). 6 in all.
    """
    rules = RuleSet(advanced=Advanced(penny_jar=True))
    challenge = in_challenge(
        rules,
        challenger=0,
        holder=1,
        played=["penny_jar"],
        responder=1,
        kind="piano",
        demand=2,
    )
    return position(
        rules,
        hands={0: ["cabin"] * 4, 1: ["piano", "piano", "silver", "gold", "penny_jar", "cabin"]},
        stacks={0: [["cabin", "cabin"]], 1: [["toy_train", "toy_train"], ["piano", "piano"]]},
        deck=DECK,
        to_act=1,
        turn=0,
        kind="defend",
        challenge=challenge,
    )


def second_from_top() -> State:
    """RULES #28, #27: openings against the second set from the top.

    Seat 0 holds jewels x2, silver, Penny Jar, scooter; seat 1's stack is cabin, jewels,
    piano (top). Pairs: jewels with jewels, silver or Penny Jar, scooter with silver or
    Penny Jar (5). Discards: 4. Top challenges on piano: silver, Penny Jar (2). Second
    from top (jewels): jewels+jewels, jewels+silver, or a lone Penny Jar (3). 14 in all.
    """
    rules = RuleSet(advanced=Advanced(penny_jar=True, second_set_challenge=True))
    return position(
        rules,
        hands={
            0: ["jewels", "jewels", "silver", "penny_jar", "scooter"],
            1: ["piano"] * 5,
            2: ["cabin"] * 5,
            3: ["toy_train"] * 5,
        },
        stacks={
            0: [["toy_train", "toy_train"]],
            1: [["cabin", "cabin"], ["jewels", "jewels"], ["piano", "piano"]],
        },
        deck=DECK,
    )


def two_player_draft() -> State:
    """RULES #34: one hand card plus any of the three pile tops (piano, silver, jewels).

    Seat 0 holds piano, jewels, gold, scooter x2, toy train. Drafts: piano with {piano},
    {silver}, {piano, silver} (3); jewels with {silver}, {jewels}, {silver, jewels} (3);
    gold with {piano}, {jewels}, {piano, silver}, {silver, jewels} (4: gold with silver
    alone has no asset); scooter and toy train with {silver} (2). 12 drafts, 5 pairs
    (scooter twin, and gold with each of four assets), 5 discards, and 2 challenges on
    seat 1's scooter set (scooter, gold). 24 in all.
    """
    rules = RuleSet(seats=2)
    return position(
        rules,
        hands={
            0: ["piano", "jewels", "gold", "scooter", "scooter", "toy_train"],
            1: ["toy_train"] * 6,
        },
        stacks={
            0: [["comic_books", "comic_books"]],
            1: [["cabin", "cabin"], ["scooter", "scooter"]],
        },
        piles=[["jewels", "piano"], ["cabin", "silver"], ["cabin", "jewels"]],
        deck=DECK,
    )


def three_player_draft() -> State:
    """RULES #34: seat 1 drafts one top from an adjacent pile (0: silver, 1: cabin).

    Seat 1 holds cabin, piano, gold, jewels x2. Drafts: silver with cabin, piano or
    jewels (3); cabin with cabin or gold (2); pile 2's piano is not beside seat 1. 5
    drafts, 4 pairs (jewels twin, gold with cabin, piano, jewels), 4 discards. 13 in all.
    """
    rules = RuleSet(seats=3)
    return position(
        rules,
        hands={
            0: ["toy_train"] * 5,
            1: ["cabin", "piano", "gold", "jewels", "jewels"],
            2: ["scooter"] * 5,
        },
        piles=[["jewels", "silver"], ["piano", "cabin"], ["cabin", "piano"]],
        deck=DECK,
        to_act=1,
    )


def second_action() -> State:
    """RULES #26, #29, #30, #31, 2.8.4: a second action after losing a challenge to seat 2.

    Seat 0 holds Swap, Move, piano, gold; its top set is piano. Pair piano+gold (1); 4
    discards; improve with piano (1); Swap with seat 1 or 2 (2); Move on seat 0's or seat
    2's stack, either way (4); end the turn (1). No challenge: seat 1's lone set is safe
    and seat 2 is banned. 13 in all.
    """
    rules = RuleSet(advanced=Advanced(two_actions=True, action_cards=True, improve_set=True))
    return position(
        rules,
        hands={
            0: ["swap", "move", "piano", "gold"],
            1: ["jewels"] * 5,
            2: ["cabin"] * 5,
            3: ["scooter"] * 5,
        },
        stacks={
            0: [["cabin", "cabin"], ["piano", "piano"]],
            1: [["jewels", "jewels"]],
            2: [["toy_train", "toy_train"], ["scooter", "gold"]],
        },
        deck=DECK,
        kind="second_action",
        action_no=2,
        bans=[(0, 2)],
    )


@pytest.mark.parametrize(
    ("build", "counts"),
    [
        (classic_turn, (18, 32, 66)),
        (penny_jar_defence, (6, 21, 54)),
        (second_from_top, (14, 27, 58)),
        (two_player_draft, (24, 48, 484)),
        (three_player_draft, (13, 22, 62)),
        (second_action, (13, 40, 194)),
    ],
    ids=lambda v: getattr(v, "__name__", ""),
)
def test_perft_counts_at_set_positions(build: Any, counts: tuple[int, int, int]) -> None:
    """Legal-action counts at depth 1 (worked out in each builder's docstring), 2 and 3."""
    state = build()
    assert tuple(perft(state, depth) for depth in (1, 2, 3)) == counts


# --- Recorded games ---------------------------------------------------------------------

GOLDEN_GAMES = {
    "2021": Game(RuleSet.preset("2021"), seed=2021, choices=1),
    "2011": Game(RuleSet.preset("2011"), seed=2011, choices=2),
    "de2023": Game(RuleSet.preset("de2023", seats=3), seed=2023, choices=3),
    "2021-2p-advanced": Game(
        RuleSet.preset("2021", seats=2, advanced=dict(ALL_ADVANCED)), seed=22, choices=4
    ),
    "2021-6p-advanced-resignation": Game(
        RuleSet.preset(
            "2021", seats=6, ending="first_to_n_round_wins", advanced=dict(ALL_ADVANCED)
        ),
        seed=66,
        choices=5,
        resignations=((150, 4),),
    ),
}


def outcome(state: State) -> dict[str, Any]:
    """What a recorded game must end with."""
    return {
        "over": state.over,
        "rounds": state.round,
        "round_scores": [list(r) for r in state.scores],
        "tallies": list(state.tallies),
        "round_wins": list(state.wins),
        "winners": list(state.winners),
    }


def record(game: Game) -> dict[str, Any]:
    """Play a golden game and describe it as the JSON its file holds."""
    log = []
    state = None
    for step in playout(game):
        log.append(step.action)
        state = step.after
    assert state is not None
    assert state.over
    edition = game.rules.edition
    return {
        "rules": game.rules.to_json(),
        "seed": game.seed,
        "choices": game.choices,
        "resignations": [list(r) for r in game.resignations],
        **outcome(state),
        "log": [action_to_json(a, edition) for a in log],
    }


def write(path: Path, data: dict[str, Any]) -> None:
    """One top-level field per line and one logged action per line: reviewable diffs."""
    lines = [f"  {json.dumps(k)}: {json.dumps(v)}," for k, v in data.items() if k != "log"]
    log = ",\n".join(f"    {json.dumps(a)}" for a in data["log"])
    path.write_text("{\n" + "\n".join(lines) + '\n  "log": [\n' + log + "\n  ]\n}\n")


@pytest.mark.parametrize("name", sorted(GOLDEN_GAMES))
def test_recorded_game_replays_to_its_recorded_outcome(name: str) -> None:
    """Each golden game's stored log replays, with its stored rules, to its outcome."""
    path = GOLDEN / f"{name}.json"
    if UPDATE:
        write(path, record(GOLDEN_GAMES[name]))
    data = json.loads(path.read_text())
    rules = RuleSet.from_json(data["rules"])
    log = [action_from_json(a, rules.edition) for a in data["log"]]
    final = replay(rules, data["seed"], log)
    assert outcome(final) == {k: data[k] for k in outcome(final)}


def test_every_golden_file_belongs_to_a_recorded_game() -> None:
    """No stale golden file: each one is in GOLDEN_GAMES, and each game has a file."""
    assert sorted(p.stem for p in GOLDEN.glob("*.json")) == sorted(GOLDEN_GAMES)
