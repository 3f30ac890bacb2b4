"""``{% table_chart sheet as figure %}``: a table's running tallies as an SVG chart, for
any page that has a score sheet (tournaments/_table_chart.html)."""

from __future__ import annotations

from django import template

from cya_site import charts
from tournaments.scoresheets import Sheet
from tournaments.web import figures

register = template.Library()


@register.simple_tag
def table_chart(sheet: Sheet) -> charts.Figure | None:
    """The chart of a score sheet's running tallies; None before its first round."""
    return figures.table_figure(sheet)
