"""The rule options of a table as a page form: the clubs' pages and the lobby share it.

It parses what was typed; the engine judges the rules (``InvalidRules`` shown beside the
option it names).
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from cya_site.forms import PageForm
from games.engine import InvalidRules, RuleSet

EDITIONS = (
    ("2021", _("2021 English edition (the official guide)")),
    ("2011", _("2011 original edition")),
    ("de2023", _("German edition (2023)")),
)
ENDINGS = (
    ("classic", _("First to the target (usually $1,000,000)")),
    ("quick", _("Quick game: one round")),
    ("highest_after_n", _("Highest tally after N rounds")),
    ("first_to_n_round_wins", _("First to win N rounds")),
)
TIE_POLICIES = (
    ("extra_round", _("Play another round")),
    ("shared_win", _("Tied players share the win")),
)


class RulesForm(PageForm):
    """The rules a club's tables play: edition, ending, ties, the cards that change the deck."""

    preset = forms.ChoiceField(label=_("Edition"), choices=EDITIONS, initial="2021")
    ending = forms.ChoiceField(label=_("How a game ends"), choices=ENDINGS, initial="classic")
    ending_rounds = forms.IntegerField(
        label=_("N (rounds, or round wins)"),
        min_value=1,
        max_value=20,
        required=False,
        help_text=_("For the two endings that count rounds; empty means 3 rounds or 2 wins."),
    )
    target = forms.IntegerField(
        label=_("Target in dollars"),
        min_value=10_000,
        max_value=10_000_000,
        initial=1_000_000,
        help_text=_("For the first-to-the-target ending."),
    )
    tie_policy = forms.ChoiceField(
        label=_("When players tie for the win"), choices=TIE_POLICIES, initial="extra_round"
    )
    penny_jar = forms.BooleanField(label=_("Penny Jars in the deck"), required=False)
    action_cards = forms.BooleanField(label=_("Swap and Move cards in the deck"), required=False)
    swap = forms.BooleanField(label=_("Swap cards in the deck"), required=False)
    move = forms.BooleanField(label=_("Move cards in the deck"), required=False)

    # the advanced switches this form shows (RuleSet.advanced), each a field of its name:
    # Swap and Move together, or each on its own (RULES #30-32)
    switches: tuple[str, ...] = ("penny_jar", "action_cards", "swap", "move")

    def options(self) -> dict[str, Any]:
        """The options typed, over the edition's preset (``advanced`` switch by switch)."""
        data = self.cleaned_data
        options: dict[str, Any] = {
            "ending": data["ending"],
            "target": data["target"] or 1_000_000,
            "tie_policy": data["tie_policy"],
            "advanced": {name: data[name] for name in self.switches},
        }
        if data["ending"] in ("highest_after_n", "first_to_n_round_wins"):
            options["ending_rounds"] = data["ending_rounds"]
        return options

    def rules(self, **fixed: Any) -> RuleSet | None:
        """The rule set asked for (with ``fixed`` options, e.g. ``seats``), or None with
        the reason added to the form."""
        try:
            return RuleSet.preset(self.cleaned_data["preset"], **self.options(), **fixed)
        except InvalidRules as error:
            field = str(error.field or "").removeprefix("advanced.")
            self.add_error(field if field in self.fields else None, str(error))
            return None
