"""The engine's refusals of recorded dollars, worded in the reader's language.

In English the words are the engine's own, letter for letter, so the API says the same
whichever layer words it; in German every refusal is German, with German dollars. The
code, details and status are always the engine's.
"""

from __future__ import annotations

import pytest
from django.utils import translation

from games.engine import RuleSet, ScoreError, recorded
from tournaments.refusals import score_refusal

JARS = RuleSet.preset("2021", seats=4, advanced={"penny_jar": True})
QUICK = RuleSet.preset("2021", seats=2, ending="quick")
CASES = [
    ("wrong_seat_count", JARS, [[10_000, 0]]),
    ("negative_dollars", JARS, [[-1_000, 0, 0, 0]]),
    ("impossible_dollars", JARS, [[151_500, 0, 0, 0]]),
    ("dollars_above_deck", JARS, [[1_500_000, 0, 0, 0]]),
    ("round_total_too_high", JARS, [[700_000, 690_000, 0, 0]]),
    ("impossible_total", JARS, [[7_000, 7_000, 0, 0]]),
    ("not_enough_cards", JARS, [[7_000, 7_000, 6_000, 0]]),
    ("game_already_ended", QUICK, [[100_000, 50_000], [10_000, 0]]),
]


def check_and_score(rules: RuleSet, rounds: list[list[int]]) -> None:
    """What recording asks of the engine: each round checked, then all of them scored."""
    for dollars in rounds:
        recorded.check_round(rules, dollars)
    recorded.outcome(rules, rounds)


def engine_refusal(rules: RuleSet, rounds: list[list[int]]) -> ScoreError:
    with pytest.raises(ScoreError) as error:
        check_and_score(rules, rounds)
    return error.value


@pytest.mark.parametrize(("code", "rules", "rounds"), CASES, ids=[c[0] for c in CASES])
def test_a_refusal_keeps_the_engine_s_code_and_is_worded_in_english_or_german(
    code: str, rules: RuleSet, rounds: list[list[int]]
) -> None:
    error = engine_refusal(rules, rounds)
    with translation.override("en"):
        english = score_refusal(error, rules)
    with translation.override("de"):
        german = score_refusal(error, rules)

    for refusal in (english, german):
        assert (refusal.code, refusal.details, refusal.http_status) == (code, error.details, 422)
    assert english.message == error.message  # the engine's words, letter for letter
    assert german.message != error.message
    assert "$" not in german.message or " $" in german.message  # 1.000 $, never $1,000
