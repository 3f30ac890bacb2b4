"""Refusals of recorded dollars, in the reader's language.

The engine (games.engine.recorded) decides whether the deck and the ending rules can
explain a round, and says why in English with a stable ``code`` and ``details``. A
score sheet is read at a club table in its own language, so this words the same
refusal through gettext; the code, the details and the status stay the engine's.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from django.utils.translation import gettext as _

from cya_site.errors import DomainError
from cya_site.templatetags.pages import format_dollars
from games.engine import RuleSet, ScoreError


def score_refusal(error: ScoreError, rules: RuleSet) -> DomainError:
    """The engine's refusal as a DomainError, worded for the active language."""
    words = _WORDS.get(error.code)
    message = words(error.details, rules) if words else error.message
    return DomainError(error.code, message, error.details, status=error.http_status)


def _seat_count(d: Mapping[str, Any], rules: RuleSet) -> str:
    return _("Give dollars for all %(seats)d seats.") % {"seats": d["seats"]}


def _negative(d: Mapping[str, Any], rules: RuleSet) -> str:
    return _("Dollars cannot be negative.")


def _impossible(d: Mapping[str, Any], rules: RuleSet) -> str:
    return _(
        "No stack of this deck is worth %(dollars)s: values come in steps of %(unit)s and "
        "the smallest set is worth %(cheapest)s."
    ) % {
        "dollars": format_dollars(d["dollars"]),
        "unit": format_dollars(d["unit"]),
        "cheapest": format_dollars(d["cheapest_set"]),
    }


def _above_deck(d: Mapping[str, Any], rules: RuleSet) -> str:
    return _("No seat can hold %(dollars)s: the whole deck is worth %(deck)s.") % {
        "dollars": format_dollars(d["dollars"]),
        "deck": format_dollars(d["deck_total"]),
    }


def _too_high(d: Mapping[str, Any], rules: RuleSet) -> str:
    return _("The seats hold %(total)s together, but the whole deck is worth %(deck)s.") % {
        "total": format_dollars(d["total"]),
        "deck": format_dollars(d["deck_total"]),
    }


def _total(d: Mapping[str, Any], rules: RuleSet) -> str:
    return _("No part of this deck adds up to %(total)s.") % {"total": format_dollars(d["total"])}


def _not_enough(d: Mapping[str, Any], rules: RuleSet) -> str:
    names = ", ".join(rules.edition_data.card(key).name for key in d["cards"])
    return _(
        "Together the seats need at least %(needed)d cards worth %(value)s (%(cards)s), "
        "but the deck holds only %(count)d."
    ) % {
        "needed": d["needed"],
        "value": format_dollars(d["value"]),
        "cards": names,
        "count": d["deck_count"],
    }


def _ended(d: Mapping[str, Any], rules: RuleSet) -> str:
    return _("The game ended after round %(ended)d; round %(next)d cannot be added.") % {
        "ended": d["ended_after"],
        "next": d["ended_after"] + 1,
    }


_WORDS: dict[str, Callable[[Mapping[str, Any], RuleSet], str]] = {
    "wrong_seat_count": _seat_count,
    "negative_dollars": _negative,
    "impossible_dollars": _impossible,
    "dollars_above_deck": _above_deck,
    "round_total_too_high": _too_high,
    "impossible_total": _total,
    "not_enough_cards": _not_enough,
    "game_already_ended": _ended,
}
