"""benchmarks/strength.py's journal: a measure spread over sittings gives the figures of
one sitting (it plays a few tiny deals here; the measure itself takes hours)."""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks.strength import measure
from bots.strategies.arena import Maker
from bots.strategies.search import DEFAULT_WIDTH

BUDGET = Maker(3, None)  # search iterations a decision: enough to search, quick


def test_a_measure_goes_on_from_its_journal_and_gives_the_figures_of_one_sitting(
    tmp_path: Path,
) -> None:
    journal = tmp_path / "deals.jsonl"
    at_once = measure(2, 6, 11, BUDGET, 1, None)

    first = measure(2, 2, 11, BUDGET, 1, None, journal)  # one deal of the three
    assert first is not None
    assert first.games == 2
    assert [json.loads(line)["deal"] for line in journal.read_text().splitlines()] == [0]
    went_on = measure(2, 6, 11, BUDGET, 1, None, journal)  # plays deals 1 and 2 only

    assert went_on == at_once
    lines = [json.loads(line) for line in journal.read_text().splitlines()]
    assert sorted(line["deal"] for line in lines) == [0, 1, 2]
    assert {(line["iterations"], line["ms"], line["seed"]) for line in lines} == {(3, None, 11)}


def test_a_sitting_out_of_time_gives_no_figure_and_keeps_the_journal(tmp_path: Path) -> None:
    journal = tmp_path / "deals.jsonl"
    measure(2, 2, 11, BUDGET, 1, None, journal)
    kept = journal.read_text()

    assert measure(2, 6, 11, BUDGET, 1, None, journal, until=0.0) is None
    assert journal.read_text() == kept


def test_another_budget_or_seed_does_not_count_the_journals_deals(tmp_path: Path) -> None:
    journal = tmp_path / "deals.jsonl"
    measure(2, 2, 11, BUDGET, 1, None, journal)

    assert measure(2, 2, 12, BUDGET, 1, None, journal, until=0.0) is None
    assert measure(2, 2, 11, Maker(4, None), 1, None, journal, until=0.0) is None


def test_a_journal_line_of_another_search_setting_does_not_count(tmp_path: Path) -> None:
    journal = tmp_path / "deals.jsonl"
    measure(2, 2, 11, BUDGET, 1, None, journal)
    line = json.loads(journal.read_text())
    assert line["player"]["width"] == DEFAULT_WIDTH  # the search player's settings key the deal
    line["player"]["width"] = DEFAULT_WIDTH + 1  # as if played before the default changed
    journal.write_text(json.dumps(line) + "\n")

    assert measure(2, 2, 11, BUDGET, 1, None, journal, until=0.0) is None
