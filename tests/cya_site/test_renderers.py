"""The CSV renderer (cya_site.renderers): a cell a spreadsheet would run as a formula is
written after a ``'``; numbers and plain-number text are data, written as they are."""

from __future__ import annotations

import csv
import io
from decimal import Decimal
from typing import Any

import pytest

from cya_site.renderers import CSVRenderer, neutralise


@pytest.mark.parametrize(
    ("cell", "written"),
    [
        ('=HYPERLINK("http://x","y")', '\'=HYPERLINK("http://x","y")'),
        ("+SUM(1,2)", "'+SUM(1,2)"),
        ("-2+3", "'-2+3"),
        ("@cmd", "'@cmd"),
        ("\t=1+1", "'\t=1+1"),
        ("\r=1+1", "'\r=1+1"),
        ("-", "'-"),
        ("-1e5", "'-1e5"),  # not a plain number: a spreadsheet would still compute it
        ("-5000", "-5000"),
        ("+42", "+42"),
        ("-0.25", "-0.25"),
        ("Alice", "Alice"),
        ("a=b", "a=b"),
        ("", ""),
        (-5000, -5000),
        (-0.5, -0.5),
        (Decimal("-1.5"), Decimal("-1.5")),
        (None, None),
    ],
)
def test_neutralise_quotes_what_a_spreadsheet_would_run(cell: Any, written: Any) -> None:
    assert neutralise(cell) == written


def test_the_renderer_neutralises_every_cell_it_writes() -> None:
    data = [{"name": "=1+1", "dollars": -5}, {"name": "@x", "dollars": 7}]

    body = CSVRenderer().render(data, renderer_context={"header": ["name", "dollars"]})

    rows = list(csv.reader(io.StringIO(body.decode(), newline="")))
    assert rows == [["name", "dollars"], ["'=1+1", "-5"], ["'@x", "7"]]
