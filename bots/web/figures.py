"""A bot in words and pictures: its kind and statuses said in the page's language, a
game's replay address, its rating history drawn by ``cya_site.charts``, and the
built-ins' measured strength (``bots.strength``) as the ladder page shows it."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any

from django.urls import reverse
from django.utils.formats import number_format
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from bots import strength
from bots.models import Bot, BotVersion, Match
from bots.selectors import RatingPoint
from cya_site import charts

STRATEGY_NAMES = {
    "random": gettext_lazy("Random (built-in: any legal move)"),
    "greedy": gettext_lazy("Greedy (built-in: the best move now)"),
    "shark": gettext_lazy("Shark (built-in: counts cards)"),
    "ismcts": gettext_lazy("Strong (built-in: searches ahead)"),
}
KIND_WORDS = {
    Bot.Kind.BUILTIN: gettext_lazy("built-in strategy, run by the platform"),
    Bot.Kind.WEBHOOK: gettext_lazy("webhook: the platform calls the bot's URL"),
    Bot.Kind.API_CLIENT: gettext_lazy("API client: the bot calls the action API"),
}
STATUS_WORDS = {
    BotVersion.Status.PENDING: gettext_lazy("pending: waiting for validation"),
    BotVersion.Status.VALIDATING: gettext_lazy("validating: its validation game is on"),
    BotVersion.Status.READY: gettext_lazy("ready: plays ranked games"),
    BotVersion.Status.FAILED: gettext_lazy("failed validation"),
    BotVersion.Status.PAUSED: gettext_lazy("paused: off the ladder until resumed"),
    BotVersion.Status.RETIRED: gettext_lazy("retired: a newer version replaced it"),
}
STATUS_BADGES = {
    BotVersion.Status.READY: "ok",
    BotVersion.Status.FAILED: "bad",
    BotVersion.Status.PAUSED: "bad",
    BotVersion.Status.PENDING: "warn",
    BotVersion.Status.VALIDATING: "warn",
}
MATCH_KIND_WORDS = {
    Match.Kind.LADDER: gettext_lazy("ladder"),
    Match.Kind.VALIDATION: gettext_lazy("validation"),
    Match.Kind.FRIENDLY: gettext_lazy("friendly, unrated"),
}
MATCH_STATUS_WORDS = {
    Match.Status.SCHEDULED: gettext_lazy("scheduled"),
    Match.Status.RUNNING: gettext_lazy("being played"),
    Match.Status.FINISHED: gettext_lazy("finished"),
    Match.Status.VOIDED: gettext_lazy("voided by a platform fault"),
}


def replay_path(game_id: int) -> str:
    """A game's replay page (games.web)."""
    return reverse("game-replay", kwargs={"pk": game_id})


def rating(value: float) -> str:
    """A rating as the pages show it, in the page's language: ``12.34``."""
    return number_format(value, decimal_pos=2)


def rating_figure(points: Sequence[RatingPoint]) -> charts.Figure | None:
    """The bot's rating (mu - 3 sigma) after each rated match, one line per version;
    None before its first rated match."""
    if not points:
        return None
    numbers = sorted({p.version for p in points})
    series = [(f"v{n}", [p.ordinal if p.version == n else None for p in points]) for n in numbers]
    last = points[-1]
    desc = ngettext(
        "After %(n)d rated match, v%(version)d's rating is %(rating)s.",
        "Over %(n)d rated matches, one line per version; v%(version)d's rating is now %(rating)s.",
        len(points),
    ) % {"n": len(points), "version": last.version, "rating": rating(last.ordinal)}
    figure = charts.line_chart(
        "rating-chart",
        series,
        [str(i) for i in range(1, len(points) + 1)],
        charts.Words(_("Rating after each rated match"), desc, _("Rated match"), _("Rating")),
        fmt=lambda v: number_format(v, decimal_pos=0 if v == int(v) else 1),
    )
    # cya_site.charts escapes every word it draws: the template prints it as it is.
    legend = tuple(charts.Key(k.label, mark_safe(k.swatch)) for k in figure.legend)
    return charts.Figure(mark_safe(figure.svg), legend)


@cache
def _measured() -> tuple[strength.Measurement, ...]:
    """The recorded tables, read once per process (the file changes only with a deploy)."""
    return tuple(strength.load())


def strength_tables() -> list[dict[str, Any]]:
    """Each recorded strength table, its strategies in words, strongest first."""
    return [
        {
            "table": m,
            "seats": len(m.lineup),
            "fair": 1 / len(m.lineup),
            "rows": [
                {"strength": row, "label": STRATEGY_NAMES.get(row.name, row.name)}
                for row in sorted(m.rows, key=lambda r: (-r.win, r.place))
            ],
        }
        for m in _measured()
    ]


PAUSE_WORDS = {
    BotVersion.PauseReason.STRIKES: gettext_lazy("its answers failed again and again"),
    BotVersion.PauseReason.AUTOPILOT: gettext_lazy("too many of its games went to the autopilot"),
    BotVersion.PauseReason.OWNER: gettext_lazy("its owner paused it"),
}
