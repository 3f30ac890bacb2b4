"""The API's CSV renderer: djangorestframework-csv's, with every cell safe to open in a
spreadsheet.

A spreadsheet runs a cell that starts with ``=``, ``+``, ``-`` or ``@`` (or a tab or
carriage return before one) as a formula, so a player named ``=HYPERLINK(...)`` could
make the organiser's copy of the standings fetch a URL or worse (CSV injection). As
OWASP advises, such a cell is written with a leading ``'``, which spreadsheets show as
text. Numbers are data, not formulas, and are written as they are, including a text
cell that is a plain number such as ``-5000``: it can run nothing, and a quote would turn
it into text in a numeric column. Every CSV export uses this renderer (ruff bans the
package's own).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from rest_framework_csv import renderers  # noqa: TID251 - the one place that may use it

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
PLAIN_NUMBER = re.compile(r"[+-]?[0-9]+(\.[0-9]+)?")


def neutralise(cell: Any) -> Any:
    """``cell`` as a spreadsheet may safely read it: ``'`` before text it would run."""
    if not isinstance(cell, str) or not cell.startswith(FORMULA_STARTS):
        return cell
    if PLAIN_NUMBER.fullmatch(cell):
        return cell
    return "'" + cell


class CSVRenderer(renderers.CSVRenderer):  # type: ignore[misc]  # the package ships no types
    """djangorestframework-csv's renderer, every cell (the header too) neutralised."""

    def tablize(
        self, data: Any, header: list[str] | None = None, labels: dict[str, str] | None = None
    ) -> Iterator[list[Any]]:
        """The package's rows, each cell through ``neutralise``."""
        for row in super().tablize(data, header=header, labels=labels):
            yield [neutralise(cell) for cell in row]
