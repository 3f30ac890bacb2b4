"""``{% load bot_pages %}``: a version's status in words and the colour of its badge."""

from __future__ import annotations

from django import template

from bots.models import BotVersion
from bots.web import figures

register = template.Library()


@register.filter
def status_words(version: BotVersion) -> str:
    """The version's status said in the page's language: ``ready: plays ranked games``."""
    return str(figures.STATUS_WORDS[BotVersion.Status(version.status)])


@register.filter
def status_badge(version: BotVersion) -> str:
    """The badge class of the version's status: ok, warn, bad, or none (retired)."""
    return figures.STATUS_BADGES.get(BotVersion.Status(version.status), "")


@register.filter
def pause_words(version: BotVersion) -> str:
    """Why a paused version was paused, in the page's language."""
    if not version.pause_reason:
        return ""
    return str(figures.PAUSE_WORDS[BotVersion.PauseReason(version.pause_reason)])
