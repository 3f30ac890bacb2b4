"""Ending the game: the $1M target, ties, the four ending modes and the final ranking.

RULES #22 (target, inclusive), #23 (tie policy), #24 (ending modes) and 2.8.8 (extra
rounds). Each test ends a round from a built position: seat 0 discards the last card,
the stacks score what ``worth`` gives them, and the tallies held before are stated.
"""

from __future__ import annotations

from typing import Any

from games.engine import RuleSet, State, apply, decision, legal_actions, new_game, observe, resign
from games.engine import actions as act
from games.engine.cards import GOLD
from tests.engine.builders import Cards, ids, position

R = RuleSet()
CABIN = ids(R, ["cabin"])[0]
M = 1_000_000


def worth(dollars: int) -> list[Cards]:
    """A stack scoring exactly ``dollars`` (a multiple of $5,000) in the 2021 deck."""
    return [["piano"] * (dollars // 5_000)] if dollars else []


def end_round(
    rules: RuleSet,
    scores: list[int],
    *,
    tallies: list[int] | None = None,
    wins: list[int] | None = None,
    round_no: int = 1,
) -> tuple[State, dict[str, Any]]:
    """Finish round ``round_no`` with these round scores over these earlier tallies and
    round wins; return the state after it and the round_end event."""
    s = position(
        rules,
        hands={0: ["comic_books"]},
        stacks={seat: worth(dollars) for seat, dollars in enumerate(scores)},
        tallies=tallies,
        round_no=round_no,
    )
    if wins is not None:
        s.game = s.game._replace(wins=tuple(wins))
    s, events = apply(s, act.discard(0))
    end = next(e for e in events if e["type"] == "round_end")
    return s, end


def game_end(s: State) -> dict[str, Any]:
    """The game_end event of a finished game."""
    return next(e for e in reversed(s.history) if e["type"] == "game_end")


def continues(s: State, round_no: int) -> bool:
    """Whether the game went on into round ``round_no``, with every seat dealt in."""
    return (
        not s.over
        and s.round == round_no
        and s.winners == ()
        and all(h.size == s.rules.effective_hand_size for h in s.hands)
    )


# --- RULES #22: the target ------------------------------------------------------------


def test_reaching_exactly_one_million_wins_the_classic_game() -> None:
    """RULES #22: the default is >= $1,000,000 (``target_inclusive=True``)."""
    s, _ = end_round(R, [10_000, 0, 0, 0], tallies=[990_000, 500_000, 0, 0])
    assert s.over
    assert s.winners == (0,)
    assert s.tallies == (M, 500_000, 0, 0)
    assert decision(s) is None
    assert legal_actions(s) == ()


def test_without_inclusive_target_exactly_one_million_plays_on() -> None:
    """RULES #22 ``target_inclusive=False``: the total must pass $1,000,000."""
    rules = R.with_options(target_inclusive=False)
    s, _ = end_round(rules, [10_000, 0, 0, 0], tallies=[990_000, 0, 0, 0])
    assert continues(s, 2)
    s, _ = end_round(rules, [15_000, 0, 0, 0], tallies=[990_000, 0, 0, 0])
    assert s.winners == (0,)


def test_the_target_is_configurable() -> None:
    """RULES #22 ``target``: a $500,000 game ends at $500,000."""
    rules = R.with_options(target=500_000)
    s, _ = end_round(rules, [0, 20_000, 0, 0], tallies=[0, 480_000, 0, 0])
    assert s.winners == (1,)
    s, _ = end_round(rules, [0, 15_000, 0, 0], tallies=[0, 480_000, 0, 0])
    assert continues(s, 2)


def test_below_the_target_the_next_round_is_dealt_with_the_tallies_carried() -> None:
    """RULES #22, #24 classic: rounds go on until someone reaches the target."""
    s, end = end_round(R, [70_000, 10_000, 0, 0], tallies=[900_000, 0, 0, 0])
    assert continues(s, 2)
    assert s.tallies == tuple(end["tallies"]) == (970_000, 10_000, 0, 0)


def test_the_target_is_checked_only_at_the_end_of_a_round() -> None:
    """RULES #22: a stack worth more than the target mid-round ends nothing."""
    rules = R.with_options(target=10_000)
    s = position(
        rules, hands={0: ["cabin", "gold", "piano", "piano", "piano"]}, deck=["piano"] * 30
    )
    s, events = apply(s, act.pair(CABIN, GOLD))
    assert not s.over
    assert s.tallies == (0, 0, 0, 0)
    assert "round_end" not in [e["type"] for e in events]


# --- RULES #23: several players past the target, and ties -------------------------------


def test_the_highest_total_wins_when_several_pass_the_target() -> None:
    """RULES #23: more money wins."""
    s, _ = end_round(R, [0, 0, 0, 0], tallies=[1_100_000, 1_200_000, 1_150_000, 0])
    assert s.winners == (1,)


def test_a_tie_below_the_top_does_not_matter() -> None:
    """RULES #23: only a tie for the highest total is a tie."""
    s, _ = end_round(R, [0, 0, 0, 0], tallies=[1_200_000, 1_100_000, 1_100_000, 0])
    assert s.winners == (0,)


def test_a_tie_at_the_top_plays_another_round_by_default() -> None:
    """RULES #23 ``extra_round`` (default): a perfect tie at the top means another round."""
    s, _ = end_round(R, [0, 0, 0, 0], tallies=[1_100_000, 1_100_000, 0, 0])
    assert continues(s, 2)


def test_extra_rounds_repeat_while_the_top_stays_tied() -> None:
    """RULES #23: repeat while tied; the next untied round decides on the totals."""
    tied = [1_100_000, 1_100_000, 0, 0]
    s, _ = end_round(R, [20_000, 20_000, 0, 0], tallies=tied, round_no=2)
    assert continues(s, 3)
    s, _ = end_round(R, [20_000, 25_000, 0, 0], tallies=tied, round_no=3)
    assert s.winners == (1,)


def test_shared_win_ends_a_tied_game_with_every_leader_winning() -> None:
    """RULES #23 ``shared_win``: tied leaders all win."""
    rules = R.with_options(tie_policy="shared_win")
    s, _ = end_round(rules, [0, 0, 0, 0], tallies=[1_100_000, 1_100_000, 900_000, 0])
    assert s.winners == (0, 1)
    assert game_end(s)["winners"] == [0, 1]


# --- RULES 2.8.8: extra rounds ------------------------------------------------------------


def test_everyone_stays_in_an_extra_round_and_any_seat_may_win_it() -> None:
    """RULES 2.8.8: after a tie the next round adds to the tallies and everyone plays;
    the ending is decided again on the cumulative totals."""
    s, _ = end_round(R, [0, 0, 0, 0], tallies=[1_100_000, 1_100_000, 950_000, 0])
    assert continues(s, 2)
    s, _ = end_round(R, [0, 0, 200_000, 0], tallies=list(s.tallies), round_no=2)
    assert s.winners == (2,)
    assert s.tallies == (1_100_000, 1_100_000, 1_150_000, 0)


def test_every_tied_round_leader_is_credited_with_the_round_win() -> None:
    """RULES 2.8.8, #24: round wins credit every tied round leader, in every mode."""
    for ending in ("classic", "quick", "highest_after_n", "first_to_n_round_wins"):
        rules = R.with_options(ending=ending)
        s, end = end_round(rules, [20_000, 20_000, 5_000, 0], tallies=[0, 0, 30_000, 0])
        assert end["round_winners"] == [0, 1]
        assert s.wins == (1, 1, 0, 0)


# --- RULES #24: the ending modes ----------------------------------------------------------


def test_quick_game_ends_after_one_round_with_the_highest_score_winning() -> None:
    """RULES #24 ``quick``: one round; the target plays no part."""
    s, _ = end_round(R.with_options(ending="quick"), [50_000, 90_000, 10_000, 0])
    assert s.over
    assert s.winners == (1,)


def test_a_tied_quick_game_plays_an_extra_round_on_the_cumulative_totals() -> None:
    """RULES #24, 2.8.8: ties use ``tie_policy``; the extra round adds to the tallies."""
    rules = R.with_options(ending="quick")
    s, _ = end_round(rules, [90_000, 90_000, 10_000, 0])
    assert continues(s, 2)
    s, _ = end_round(rules, [0, 5_000, 100_000, 0], tallies=list(s.tallies), round_no=2)
    assert s.winners == (2,)


def test_a_tied_quick_game_with_shared_win_ends_at_once() -> None:
    """RULES #24 with ``tie_policy=shared_win``."""
    rules = R.with_options(ending="quick", tie_policy="shared_win")
    s, _ = end_round(rules, [90_000, 90_000, 10_000, 0])
    assert s.winners == (0, 1)


def test_highest_after_three_rounds_ignores_the_target_until_round_three() -> None:
    """RULES #24 ``highest_after_n`` (N=3): passing $1M early ends nothing."""
    rules = R.with_options(ending="highest_after_n")
    s, _ = end_round(rules, [100_000, 0, 0, 0], tallies=[1_500_000, 0, 0, 0])
    assert continues(s, 2)
    s, _ = end_round(rules, [0, 0, 0, 0], tallies=[1_600_000, 0, 0, 0], round_no=2)
    assert continues(s, 3)
    s, _ = end_round(rules, [0, 300_000, 0, 0], tallies=[500_000, 400_000, 0, 0], round_no=3)
    assert s.winners == (1,)


def test_highest_after_n_takes_its_n_from_ending_rounds() -> None:
    """RULES #24 ``ending_rounds``: highest after 2 rounds ends after round 2."""
    rules = R.with_options(ending="highest_after_n", ending_rounds=2)
    s, _ = end_round(rules, [0, 0, 0, 0], tallies=[0, 0, 100_000, 0], round_no=2)
    assert s.winners == (2,)


def test_a_tie_after_n_rounds_plays_on_until_broken() -> None:
    """RULES #24, 2.8.8: a tie after round 3 plays round 4, decided on the totals."""
    rules = R.with_options(ending="highest_after_n")
    s, _ = end_round(rules, [0, 0, 0, 0], tallies=[400_000, 400_000, 0, 0], round_no=3)
    assert continues(s, 4)
    s, _ = end_round(rules, [5_000, 0, 0, 0], tallies=[400_000, 400_000, 0, 0], round_no=4)
    assert s.winners == (0,)


def test_first_to_two_round_wins_counts_round_wins_not_money() -> None:
    """RULES #24 ``first_to_n_round_wins`` (N=2): only round winners are recorded; a seat
    with one win and the most money plays on."""
    rules = R.with_options(ending="first_to_n_round_wins")
    s, _ = end_round(rules, [100_000, 0, 0, 0], tallies=[2_000_000, 0, 0, 0])
    assert continues(s, 2)
    assert s.wins == (1, 0, 0, 0)
    s, _ = end_round(
        rules, [0, 10_000, 0, 0], tallies=[2_000_000, 0, 0, 0], wins=[1, 1, 0, 0], round_no=2
    )
    assert s.winners == (1,)
    assert s.wins == (1, 2, 0, 0)


def test_first_to_n_round_wins_takes_its_n_from_ending_rounds() -> None:
    """RULES #24 ``ending_rounds=3``: two round wins are not enough."""
    rules = R.with_options(ending="first_to_n_round_wins", ending_rounds=3)
    s, _ = end_round(rules, [10_000, 0, 0, 0], wins=[1, 0, 0, 0], round_no=2)
    assert continues(s, 3)
    s, _ = end_round(rules, [10_000, 0, 0, 0], wins=[2, 1, 1, 0], round_no=3)
    assert s.winners == (0,)


def test_when_two_players_reach_n_round_wins_together_more_money_wins() -> None:
    """RULES #24: tied round leaders both reach 2 wins; compare cumulative money."""
    rules = R.with_options(ending="first_to_n_round_wins")
    s, _ = end_round(
        rules,
        [20_000, 20_000, 0, 0],
        tallies=[300_000, 350_000, 900_000, 0],
        wins=[1, 1, 0, 0],
        round_no=2,
    )
    assert s.wins == (2, 2, 0, 0)
    assert s.winners == (1,)  # seat 2 has more money but fewer wins


def test_equal_round_wins_and_money_fall_to_the_tie_policy() -> None:
    """RULES #24, 2.8.8: equal wins and equal money: another round (default), then
    (round wins, money) among the seats with N wins decides; or a shared win."""
    rules = R.with_options(ending="first_to_n_round_wins")
    before = {"tallies": [300_000, 300_000, 0, 0], "wins": [1, 1, 0, 0], "round_no": 2}
    s, _ = end_round(rules, [20_000, 20_000, 0, 0], **before)  # type: ignore[arg-type]
    assert continues(s, 3)
    assert s.wins == (2, 2, 0, 0)
    s, _ = end_round(
        rules, [0, 5_000, 0, 0], tallies=list(s.tallies), wins=list(s.wins), round_no=3
    )
    assert s.winners == (1,)
    assert s.wins == (2, 3, 0, 0)
    shared = rules.with_options(tie_policy="shared_win")
    s, _ = end_round(shared, [20_000, 20_000, 0, 0], **before)  # type: ignore[arg-type]
    assert s.winners == (0, 1)


# --- The final ranking --------------------------------------------------------------------


def test_final_ranking_puts_winners_first_then_orders_by_total_sharing_places_on_ties() -> None:
    """RULES #22-24: the game_end ranking lists every seat once, winners first."""
    s, _ = end_round(R, [0, 10_000, 0, 0], tallies=[1_000_000, 1_190_000, 500_000, 500_000])
    ranking = game_end(s)["ranking"]
    assert [(r["seat"], r["place"], r["winner"]) for r in ranking] == [
        (1, 1, True),
        (0, 2, False),
        (2, 3, False),
        (3, 3, False),
    ]
    assert ranking[0] == {
        "seat": 1,
        "place": 1,
        "tally": 1_200_000,
        "round_wins": 1,
        "winner": True,
        "resigned": False,
    }


def test_shared_winners_share_first_place() -> None:
    """RULES #23 ``shared_win``: tied winners rank together."""
    rules = R.with_options(tie_policy="shared_win")
    s, _ = end_round(rules, [0, 0, 0, 0], tallies=[1_100_000, 1_100_000, 0, 0])
    places = [(r["seat"], r["place"]) for r in game_end(s)["ranking"]]
    assert places == [(0, 1), (1, 1), (2, 3), (3, 3)]


def test_first_to_n_ranking_orders_by_round_wins_before_money() -> None:
    """RULES #24: in first-to-N, round wins rank ahead of money."""
    rules = R.with_options(ending="first_to_n_round_wins")
    s, _ = end_round(
        rules, [10_000, 0, 0, 0], tallies=[0, 900_000, 500_000, 0], wins=[1, 1, 0, 0], round_no=2
    )
    assert [r["seat"] for r in game_end(s)["ranking"]] == [0, 1, 2, 3]


def test_every_seat_observes_the_final_ranking() -> None:
    """The finished game shows its winners and ranking to every seat; nobody must act."""
    s, _ = end_round(R, [0, 0, 0, 0], tallies=[0, 1_200_000, 0, 0])
    for seat in range(4):
        view = observe(s, seat)
        assert (view["over"], view["winners"], view["decision"]) == (True, [1], None)
        assert view["ranking"] == game_end(s)["ranking"]


def test_a_resigned_seat_ranks_last_and_cannot_win() -> None:
    """A seat that resigned ranks below every other seat, whatever its total."""
    s = position(R, hands={0: ["comic_books"]}, tallies=[1_000_000, 0, 0, 1_500_000])
    s, _ = resign(s, 3)
    s, _ = apply(s, act.discard(0))
    ranking = game_end(s)["ranking"]
    assert s.winners == (0,)
    assert (ranking[-1]["seat"], ranking[-1]["resigned"]) == (3, True)


def test_a_whole_quick_game_ends_after_its_first_round() -> None:
    """RULES #24 ``quick``, played from the deal (always the first listed action, which
    forms sets when it can): the game is over when round 1 ends."""
    s = new_game(RuleSet(seats=3, draft_piles=False, ending="quick"), seed=4)
    for _ in range(500):
        if s.over:
            break
        s, _ = apply(s, legal_actions(s)[0])
    assert s.over
    assert s.round == 1
    assert s.winners == tuple(game_end(s)["winners"])
