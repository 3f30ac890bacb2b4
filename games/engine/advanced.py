"""The advanced rules of EN21 ("try adding one or all of these"), each on its own switch."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Advanced:
    """EN21 advanced rules, each on its own switch (RULES #26-33)."""

    hand_six: bool = False  # RULES #33
    two_actions: bool = False  # RULES #26
    no_rechallenge_after_loss: bool = True  # RULES #26 (False = the DE reading)
    improve_set: bool = False  # RULES #29
    action_cards: bool = False  # Swap and Move together: the grouped switch (RULES #30-32)
    swap: bool = False  # Swap alone in the deck, playable (RULES #2, #30, #32)
    move: bool = False  # Move alone in the deck, playable (RULES #2, #31, #32)
    second_set_challenge: bool = False  # RULES #28
    penny_jar: bool = False  # RULES #27
    penny_jar_weight: int = 2  # RULES #27

    @property
    def has_swap(self) -> bool:
        """Swap cards are in the deck: on their own switch or with Move (RULES #30)."""
        return self.action_cards or self.swap

    @property
    def has_move(self) -> bool:
        """Move cards are in the deck: on their own switch or with Swap (RULES #31)."""
        return self.action_cards or self.move
