"""The built-ins' measured strength (bots/strength.py): the arena records what it printed,
a rerun replaces its own table, and the shipped file reads back whole."""

from __future__ import annotations

from pathlib import Path

import pytest

from bots import strength
from bots.strategies import arena


def test_the_arena_records_the_table_it_printed_with_the_command_that_reruns_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "strength.json"
    argv = ["--seat", "shark", "--seat", "random", "--deals", "3", "--jobs", "1"]

    assert arena.main([*argv, "--record", str(path)]) == 0

    printed = capsys.readouterr().out
    (table,) = strength.load(path)
    assert table.lineup == ("shark", "random")
    assert (table.preset, table.deals, table.games) == ("2021", 3, 6)
    assert (table.iterations, table.ms) == (None, None)  # no search player sat
    assert table.command.startswith("python -m bots.strategies.arena --seat shark")
    rows = {row.name: row for row in table.rows}
    assert rows["shark"].win + rows["random"].win == pytest.approx(1)
    for row in table.rows:
        assert f"{row.win:>8.1%} ±{row.win_ci95:>5.1%}" in printed


def test_a_search_table_keeps_its_budget(tmp_path: Path) -> None:
    path = tmp_path / "strength.json"
    arena.main(["--seat", "ismcts", "--seat", "random", "--deals", "1", "--iterations", "3",
                "--jobs", "1", "--record", str(path)])  # fmt: skip

    (table,) = strength.load(path)
    assert (table.iterations, table.ms) == (3, None)


def test_recording_a_line_up_again_replaces_only_its_own_table(tmp_path: Path) -> None:
    path = tmp_path / "strength.json"
    row = strength.Strength("shark", 1, 2, 0.5, 0.1, 1.5, 0.1, 25.0, 8.0)
    two = strength.measurement(["shark", "greedy"], "2021", 1, (None, None), "a", [row])
    three = strength.measurement(["shark", "greedy", "random"], "2021", 1, (None, None), "b", [])
    strength.record(three, path)
    strength.record(two, path)
    again = strength.measurement(["shark", "greedy"], "2021", 5, (None, None), "c", [row])

    strength.record(again, path)

    assert [(m.lineup, m.command) for m in strength.load(path)] == [
        (("shark", "greedy"), "c"),
        (("shark", "greedy", "random"), "b"),
    ]


def test_no_file_is_no_table(tmp_path: Path) -> None:
    assert strength.load(tmp_path / "missing.json") == []


def test_the_shipped_tables_read_back_whole() -> None:
    tables = strength.load()
    assert tables
    for table in tables:
        assert {row.name for row in table.rows} == set(table.lineup)
        assert sum(row.seats for row in table.rows) == len(table.lineup)
        assert all(row.games == table.games for row in table.rows)
        # the shares of a table's wins add up to one (figures kept to a tenth of a percent)
        assert sum(row.win * row.seats for row in table.rows) == pytest.approx(1, abs=0.005)
