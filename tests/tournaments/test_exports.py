"""CSV exports are safe to open in a spreadsheet: a cell it would run as a formula (it
starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return) is written after a
``'``; numbers, and text that is a plain number, are written as they are.

Players are named through the API, as an organiser would type them; names with a leading
tab or carriage return cannot be typed any more (names are stripped), so those rows are
written as an older version stored them.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from typing import Any

import pytest
from rest_framework.test import APIClient

from accounts.models import User
from tests.tournaments.conftest import Club, settled_game
from tournaments.models import Competitor

Clients = Callable[[User], APIClient]

TYPED = {  # as typed -> as the CSV cell reads
    '=HYPERLINK("http://x","y")': '\'=HYPERLINK("http://x","y")',
    "+SUM(1,2)": "'+SUM(1,2)",
    "@cmd": "'@cmd",
    "-2+3": "'-2+3",
    "-5000": "-5000",  # a plain number runs nothing: data, as it is
    "Ann = Bob": "Ann = Bob",  # only the first character counts
}
STORED = {"\t=cmd|' /C calc'!A0": "'\t=cmd|' /C calc'!A0", "\r+1+1": "'\r+1+1"}


def csv_rows(response: Any) -> list[dict[str, str]]:
    """The CSV body's rows, read as a spreadsheet reads them (quoted fields keep their
    tabs and line breaks)."""
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    return list(csv.DictReader(io.StringIO(response.content.decode(), newline="")))


@pytest.fixture
def named(club: Club, olga: User, api_as: Clients) -> dict[str, Competitor]:
    """The club's competition with a competitor of each tricky name, two of them seated."""
    client = api_as(olga)
    url = f"/api/v1/competitions/{club.competition.pk}/competitors/"
    for name in TYPED:
        response = client.post(url, {"name": name}, format="json")
        assert response.status_code == 201, response.json()
    for number, name in enumerate(STORED, start=100):
        Competitor.objects.create(competition=club.competition, name=name, number=number)
    players = {c.name: c for c in Competitor.objects.filter(competition=club.competition)}
    club.players.update(players)
    settled_game(
        club, olga, ['=HYPERLINK("http://x","y")', "-2+3", "Alice"], [100_000, 50_000, 20_000]
    )
    return players


def test_the_standings_csv_neutralises_every_formula_and_keeps_plain_numbers(
    club: Club, named: dict[str, Competitor], api: APIClient
) -> None:
    url = f"/api/v1/competitions/{club.competition.pk}/standings/"

    rows = csv_rows(api.get(url, {"format": "csv"}))

    names = {row["name"] for row in rows}
    assert set({**TYPED, **STORED}.values()) <= names
    assert not {n for n in names if n.startswith(("=", "+", "@", "\t", "\r"))}
    by_name = {row["name"]: row for row in rows}
    assert by_name["'-2+3"]["competitor"] == str(named["-2+3"].pk)
    assert by_name["'-2+3"]["dollars"] == "50000"  # numbers untouched


def test_the_games_csv_neutralises_the_seated_names(
    club: Club, named: dict[str, Competitor], api: APIClient
) -> None:
    url = f"/api/v1/competitions/{club.competition.pk}/games/"

    rows = csv_rows(api.get(url, {"format": "csv"}))

    assert [(row["seat"], row["competitor"], row["dollars"]) for row in rows] == [
        ("0", '\'=HYPERLINK("http://x","y")', "100000"),
        ("1", "'-2+3", "50000"),
        ("2", "Alice", "20000"),
    ]


def test_the_json_exports_keep_names_exactly_as_typed(
    club: Club, named: dict[str, Competitor], api: APIClient
) -> None:
    standings = api.get(f"/api/v1/competitions/{club.competition.pk}/standings/").json()

    assert {**TYPED, **STORED}.keys() <= {row["name"] for row in standings}
