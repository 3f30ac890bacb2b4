"""A RuleSet compiled into the plain attributes the hot path reads (``compile_rules``)."""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from .shared_events import SharedEvents

if TYPE_CHECKING:
    from .rules import RuleSet


class Table:
    """A RuleSet compiled into the plain attributes the hot path reads."""

    __slots__ = (
        "rules",
        "seats",
        "hand",
        "deck",
        "values",
        "keys",
        "draft",
        "flip",
        "pair_wild_hand",
        "pair_wild_discard",
        "first_formed",
        "hide",
        "auto_yield_legal",
        "two_actions",
        "ban",
        "improve",
        "swap",
        "move",
        "actions",
        "second",
        "penny",
        "swap_bottom",
        "draft_needs_set",
        "ending",
        "ending_n",
        "target",
        "inclusive",
        "shared_win",
        "first_player",
        "plain_challenges",
        "plain_turns",
        "after",
        "others",
        "events",
    )

    def __init__(self, r: RuleSet) -> None:
        adv = r.advanced
        self.rules = r
        self.seats = r.seats
        self.hand = r.effective_hand_size
        self.deck = r.deck()
        self.values = r.edition_data.values
        self.keys = r.edition_data.keys
        self.draft = r.uses_draft_piles
        self.flip = r.initial_discard_flip
        self.pair_wild_hand = r.discard_pair_wild in ("both", "hand_wild_only")
        self.pair_wild_discard = r.discard_pair_wild == "both"
        self.first_formed = r.bottom_protection == "first_formed"
        self.hide = r.hide_tucked_wilds
        self.auto_yield_legal = r.auto_yield == "no_legal_card"
        self.two_actions = adv.two_actions
        self.ban = adv.two_actions and adv.no_rechallenge_after_loss
        self.improve = adv.improve_set
        self.swap = adv.has_swap
        self.move = adv.has_move
        self.actions = self.swap or self.move
        self.second = adv.second_set_challenge
        self.penny = adv.penny_jar and adv.penny_jar_weight == 2
        self.swap_bottom = r.swap_may_take_bottom_set
        self.draft_needs_set = r.draft_challenge_requires_own_set
        self.ending = r.ending
        self.ending_n = r.effective_ending_rounds
        self.target = r.target
        self.inclusive = r.target_inclusive
        self.shared_win = r.tie_policy == "shared_win"
        self.first_player = r.first_player
        # seats in turn order after each seat, ending with itself (turns pass to the left)
        self.events = SharedEvents(r.seats, self.hand, self.keys, self.hide)
        self.others = tuple(
            tuple(i for i in range(r.seats) if i != seat) for seat in range(r.seats)
        )
        self.after = tuple(
            tuple((seat + k) % r.seats for k in range(1, r.seats + 1)) for seat in range(r.seats)
        )
        # the common case, generated inline: positional protection, top sets only, no bans
        self.plain_challenges = not (self.first_formed or self.second or self.ban)
        # and the whole turn: classic rules, no draft piles, no advanced actions
        self.plain_turns = (
            self.plain_challenges
            and not (self.draft or self.actions or self.improve or self.two_actions)
            and r.discard_pair_wild == "both"
        )


@lru_cache(maxsize=256)
def compile_rules(rules: RuleSet) -> Table:
    """The compiled Table of a RuleSet (cached: RuleSets are frozen and hashable)."""
    return Table(rules)
