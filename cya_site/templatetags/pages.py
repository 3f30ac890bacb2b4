"""Template filters every page uses: dollars as people write them, in the page's language."""

from __future__ import annotations

from django import template
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
def thousands(amount: int | None) -> str:
    """Dollars in thousands, as the score sheet's fields take them (``300000`` -> ``300``)."""
    if amount is None:
        return ""
    return str(int(amount) // 1000)


@register.filter
def get(mapping: dict[object, object], key: object) -> object:
    """``mapping|get:key``: a dictionary lookup with a variable key."""
    return mapping.get(key) if mapping else None
