"""What every club page needs: the signed-in user, accounts by name, rules in words."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied
from django.http import HttpRequest
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from accounts.models import User
from cya_site.templatetags.pages import format_dollars
from games.engine import RuleSet


def signed_in(request: HttpRequest) -> User:
    """The signed-in user (the view is login_required)."""
    if not isinstance(request.user, User):
        raise PermissionDenied
    return request.user


def is_htmx(request: HttpRequest) -> bool:
    """Whether htmx sent the request (it swaps in a fragment instead of a whole page)."""
    return request.headers.get("HX-Request") == "true"


def describe_rules(data: dict[str, Any]) -> list[str]:
    """The rule options a club cares about, as sentences (RULES.md #22-24, #27, #30)."""
    rules = RuleSet.from_json(data)
    editions = {
        "2021": _("2021 English edition"),
        "2011": _("2011 original edition"),
        "de2023": _("German edition (2023)"),
    }
    lines = [editions.get(rules.edition, rules.edition)]
    n = rules.effective_ending_rounds
    if rules.ending == "classic":
        lines.append(_("The first to %(target)s wins.") % {"target": format_dollars(rules.target)})
    elif rules.ending == "quick":
        lines.append(_("Quick game: one round decides it."))
    elif rules.ending == "highest_after_n":
        lines.append(
            ngettext(
                "The highest tally after %(n)d round wins.",
                "The highest tally after %(n)d rounds wins.",
                n,
            )
            % {"n": n}
        )
    else:
        lines.append(
            ngettext("The first to win %(n)d round wins.", "The first to win %(n)d rounds wins.", n)
            % {"n": n}
        )
    if rules.tie_policy == "shared_win":
        lines.append(_("Players tied for the win share it."))
    else:
        lines.append(_("Players tied for the win play another round."))
    if rules.advanced.penny_jar:
        lines.append(_("With Penny Jars."))
    if rules.advanced.has_swap and rules.advanced.has_move:
        lines.append(_("With Swap and Move cards."))
    elif rules.advanced.has_swap:
        lines.append(_("With Swap cards, without Move."))
    elif rules.advanced.has_move:
        lines.append(_("With Move cards, without Swap."))
    return lines
