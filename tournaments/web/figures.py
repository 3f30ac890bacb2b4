"""The club's charts in words: a table's running tallies and a player's season, drawn by
``cya_site.charts`` from the read models, every label translated and every amount
written as the page's language writes dollars."""

from __future__ import annotations

from collections.abc import Sequence

from django.utils.formats import date_format, number_format
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from cya_site import charts
from cya_site.templatetags.pages import format_dollars
from tournaments.scoresheets import Sheet
from tournaments.selectors import PlayedGame


def _safe(figure: charts.Figure) -> charts.Figure:
    """The chart module escapes every word it draws, so the template prints it as is."""
    legend = tuple(charts.Key(k.label, mark_safe(k.swatch)) for k in figure.legend)
    return charts.Figure(mark_safe(figure.svg), legend)


def _dollars(value: float) -> str:
    return format_dollars(round(value))


def points(value: float) -> str:
    """Points as the standings show them, in the page's language: ``2.50``."""
    return number_format(value, decimal_pos=2)


def table_figure(sheet: Sheet) -> charts.Figure | None:
    """A table's running tallies, one line per player from $0; None before any round."""
    if not sheet.rounds:
        return None
    series = [
        (p.name, (0, *(r.tallies[i] for r in sheet.rounds))) for i, p in enumerate(sheet.players)
    ]
    n = len(sheet.rounds)
    tallies = ", ".join(
        f"{p.name} {_dollars(t)}" for p, t in zip(sheet.players, sheet.tallies, strict=True)
    )
    after = ngettext("After %(n)d round: %(tallies)s.", "After %(n)d rounds: %(tallies)s.", n)
    desc = after % {"n": n, "tallies": tallies}
    target = sheet.rules.target if sheet.rules.ending == "classic" else None
    if target is not None:
        desc += " " + _("The first to %(target)s wins; a dashed line marks it.") % {
            "target": _dollars(target)
        }
    figure = charts.line_chart(
        f"table-{sheet.game.pk}-chart",
        series,
        [_("Start"), *(str(r.number) for r in sheet.rounds)],
        charts.Words(_("Running tallies, round by round"), desc, _("Round"), _("Tally")),
        fmt=_dollars,
        target=target,
        target_label=_("Target %(amount)s") % {"amount": _dollars(target or 0)},
        floor=100_000,
    )
    return _safe(figure)


def season_figure(games: Sequence[PlayedGame], best_of: int | None) -> charts.Figure | None:
    """A player's points night by night (bars, hollow where a night does not count), and
    the running total of the points that count (a line); None before any game."""
    nights: dict[int | None, list[PlayedGame]] = {}
    for game in games:
        nights.setdefault(game.night.pk if game.night else None, []).append(game)
    if not nights:
        return None
    labels, bars, counted, running = [], [], [], []
    total = 0.0
    for played in nights.values():
        night = played[0].night
        labels.append(date_format(night.date, "j M") if night else "—")
        bars.append(sum(g.points for g in played))
        counted.append(played[0].counted)  # best_of keeps or drops a night whole
        total += bars[-1] if counted[-1] else 0.0
        running.append(total)
    desc = ngettext(
        "Points over %(n)d night; %(total)s points count.",
        "Points over %(n)d nights; %(total)s points count.",
        len(bars),
    ) % {"n": len(bars), "total": points(total)}
    if best_of and not all(counted):
        desc += " " + ngettext(
            "Only the best night counts; the others are drawn hollow.",
            "Only the best %(n)d nights count; the others are drawn hollow.",
            best_of,
        ) % {"n": best_of}
    figure = charts.bar_line_chart(
        "season-chart",
        labels,
        bars,
        counted,
        running,
        charts.Words(_("Points night by night"), desc, _("Night"), _("Points")),
        fmt=points,
        labels=(
            _("Points that night"),
            _("Points that night, not counted"),
            _("Running total of the points that count"),
        ),
    )
    return _safe(figure)
