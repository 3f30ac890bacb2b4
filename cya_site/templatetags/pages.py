"""Template filters every page uses: dollars as people write them, in the page's language."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from django import template
from django.utils.formats import number_format
from django.utils.translation import get_language

register = template.Library()


def format_dollars(amount: int | None, language: str | None = None) -> str:
    """``$1,385,000`` in English, ``1.385.000 $`` in German (as the German rulebook writes)."""
    if amount is None:
        return ""
    digits = f"{abs(int(amount)):,}"
    sign = "-" if amount < 0 else ""
    if (language or get_language() or "en").startswith("de"):
        return f"{sign}{digits.replace(',', '.')} $"
    return f"{sign}${digits}"


@register.filter
def dollars(amount: int | None) -> str:
    """An amount of dollars, formatted for the active language."""
    return format_dollars(amount)


@register.filter
def percent(share: float | None) -> str:
    """A share as a percentage to one decimal: ``0.531`` is ``53.1%`` (``53,1 %`` in German)."""
    if share is None:
        return ""
    figure = number_format(round(share * 100, 1), 1)
    if (get_language() or "en").startswith("de"):
        return f"{figure} %"
    return f"{figure}%"


@register.filter
def thousands(amount: int | None) -> str:
    """Dollars in thousands, as the score sheet's fields take them (``300000`` -> ``300``)."""
    if amount is None:
        return ""
    return str(int(amount) // 1000)


@register.filter
def get(container: Mapping[object, object] | Sequence[object], key: object) -> object:
    """``container|get:key``: a dictionary lookup, or a list's item, with a variable key."""
    if isinstance(container, Mapping):
        return container.get(key)
    if (
        isinstance(key, int)
        and isinstance(container, Sequence)
        and -len(container) <= key < len(container)
    ):
        return container[key]
    return None
