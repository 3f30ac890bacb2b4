"""The operator's summary on the admin's index (staff only: the admin lets no one else in)."""

from __future__ import annotations

from typing import Any

from django import template
from django.utils import timezone

from cya_site import status

register = template.Library()


@register.inclusion_tag("cya/admin/status.html")
def site_status() -> dict[str, Any]:
    """``manage.py status``'s report, rendered for the admin's index."""
    return {"report": status.site_status(timezone.now())}


@register.filter
def age(seconds: float) -> str:
    """An age in seconds as ``5 min`` (cya_site.status.age_text)."""
    return status.age_text(seconds)
