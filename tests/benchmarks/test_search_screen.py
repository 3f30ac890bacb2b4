"""benchmarks/search_screen.py: two settings on the same deals, kept in one journal that a
later sitting goes on from (tiny deals here; a screen takes hours)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import pytest

from benchmarks import search_screen
from benchmarks.search_screen import setting
from bots.strategies.search import DEFAULT_WIDTH


def screen(monkeypatch: pytest.MonkeyPatch, *args: str) -> None:
    monkeypatch.setattr(sys, "argv", ["search_screen.py", *args, "--jobs", "1", "--seed", "3"])
    search_screen.main()


def test_a_screen_plays_both_settings_on_the_same_deals_and_goes_on_from_its_journal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    journal = str(tmp_path / "screen.jsonl")
    screen(
        monkeypatch, "iterations=2", "iterations=3,width=2", "--deals", "1", "--journal", journal
    )
    first = capsys.readouterr().out.splitlines()[-1]
    assert first.endswith("deals=1")

    screen(
        monkeypatch, "iterations=2", "iterations=3,width=2", "--deals", "2", "--journal", journal
    )
    lines = [json.loads(line) for line in Path(journal).read_text().splitlines()]
    assert sorted((line["setting"], line["deal"]) for line in lines) == [
        ("iterations=2", 0), ("iterations=2", 1),
        ("iterations=3,width=2", 0), ("iterations=3,width=2", 1),
    ]  # fmt: skip
    assert {line["player"]["width"] for line in lines} == {2, DEFAULT_WIDTH}  # where not given
    assert capsys.readouterr().out.splitlines()[-1].endswith("deals=2")


def test_a_setting_is_read_with_a_clear_error_for_what_it_does_not_know() -> None:
    assert search_screen.spec(setting("width=8,iterations=200")) == "iterations=200,width=8"
    for bad, says in [
        ("iterations=200,speed=3", "the options are"),
        ("iterations=many", "takes a number"),
        ("width=8", "needs iterations"),
        ("iterations=2,iterations=3", "give each option once"),
    ]:
        with pytest.raises(argparse.ArgumentTypeError, match=says):
            setting(bad)
