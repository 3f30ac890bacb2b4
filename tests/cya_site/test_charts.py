"""Charts as server-rendered SVG (cya_site.charts): pure functions, no database.

Every chart must parse as XML, carry a name and a description for screen readers, draw
one path per series whose styles differ in colour, dash and marker, and put each value
where its scale says, whatever the data: one round, nothing but zeros, ties, 2-6 players.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Sequence

import pytest

from cya_site import charts

SVG = "{http://www.w3.org/2000/svg}"
WORDS = charts.Words("Running tallies", "After 2 rounds: Alice $600,000.", "Round", "Tally")


def dollars(value: float) -> str:
    return f"${round(value):,}"


def tallies(series: Sequence[tuple[str, Sequence[float]]], **options: object) -> charts.Figure:
    labels = ["Start", *(str(n) for n in range(1, len(series[0][1])))]
    return charts.line_chart("t", series, labels, WORDS, fmt=dollars, **options)  # type: ignore[arg-type]


def parse(figure: charts.Figure) -> ET.Element:
    return ET.fromstring(figure.svg)


def lines(root: ET.Element) -> list[ET.Element]:
    return root.findall(f".//{SVG}path")


def points(path: ET.Element) -> list[tuple[float, float]]:
    """The (x, y) of each vertex of an M/L path."""
    return [
        (float(x), float(y)) for x, y in re.findall(r"[ML]([\d.]+) ([\d.]+)", path.get("d", ""))
    ]


def gridline_y(root: ET.Element, label: str) -> float:
    """The y of the grid line whose value reads ``label``."""
    texts = root.findall(f".//{SVG}text")
    tick = next(t for t in texts if t.text == label)
    return float(tick.get("y", "0")) - charts.FONT * 0.35


def test_a_chart_is_well_formed_svg_named_and_described_for_screen_readers() -> None:
    root = parse(tallies([("Alice", [0, 300_000, 600_000]), ("Bob", [0, 100_000, 150_000])]))

    assert root.tag == f"{SVG}svg"
    assert root.get("role") == "img"
    assert root.get("viewBox") == f"0 0 {charts.WIDTH} {charts.HEIGHT}"
    title, desc = root.find(f"{SVG}title"), root.find(f"{SVG}desc")
    assert title is not None
    assert desc is not None
    assert title.text == "Running tallies"
    assert desc.text == "After 2 rounds: Alice $600,000."
    assert root.get("aria-labelledby") == f"{title.get('id')} {desc.get('id')}"
    words = [t.text for t in root.findall(f".//{SVG}text")]
    assert "Round" in words
    assert "Tally" in words
    assert "$600,000" in words


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_each_player_gets_one_path_and_a_style_that_differs_in_dash_and_marker_too(
    players: int,
) -> None:
    series = [(f"P{i}", [0, 100_000 * i]) for i in range(players)]
    figure = tallies(series)
    paths = lines(parse(figure))

    assert len(paths) == players
    styles = [charts.style(i) for i in range(players)]
    assert len({s.colour for s in styles}) == players
    assert len({s.dash for s in styles}) == players
    assert len({s.marker for s in styles}) == players
    assert [k.label for k in figure.legend] == [f"P{i}" for i in range(players)]
    for key, s in zip(figure.legend, styles, strict=True):
        swatch = ET.fromstring(key.swatch)
        assert swatch.get("aria-hidden") == "true"
        assert s.colour in key.swatch


def test_values_sit_where_the_scale_says_and_the_target_line_at_the_target() -> None:
    root = parse(
        tallies(
            [("Alice", [0, 500_000, 1_000_000])], target=1_000_000, target_label="Target $1,000,000"
        )
    )
    (path,) = lines(root)
    start, middle, end = points(path)
    zero, million = gridline_y(root, "$0"), gridline_y(root, "$1,000,000")
    target = root.find(f".//{SVG}line[@class='target']")

    assert start[1] == pytest.approx(zero, abs=0.1)
    assert end[1] == pytest.approx(million, abs=0.1)
    assert middle[1] == pytest.approx((zero + million) / 2, abs=0.1)
    assert middle[0] - start[0] == pytest.approx(end[0] - middle[0], abs=0.1)  # rounds evenly
    assert target is not None
    assert float(target.get("y1", "0")) == pytest.approx(million, abs=0.1)
    assert target.get("stroke-dasharray")
    assert "Target $1,000,000" in [t.text for t in root.findall(f".//{SVG}text")]


def test_the_scale_reaches_the_target_even_when_nobody_is_near_it() -> None:
    root = parse(tallies([("Alice", [0, 200_000])], target=1_000_000, target_label="Target"))
    (path,) = lines(root)

    assert "$1,000,000" in [t.text for t in root.findall(f".//{SVG}text")]
    assert points(path)[-1][1] > gridline_y(root, "$1,000,000")  # below it, on screen


def test_one_round_draws_from_the_start_to_that_round() -> None:
    root = parse(tallies([("Alice", [0, 400_000]), ("Bob", [0, 200_000])]))

    assert all(len(points(p)) == 2 for p in lines(root))


def test_a_single_point_sits_in_the_middle() -> None:
    figure = charts.line_chart("one", [("Alice", [5])], ["1"], WORDS, fmt=str)
    ((x, _y),) = points(lines(parse(figure))[0])

    assert 0 < x < charts.WIDTH


def test_nothing_but_zeros_still_draws_a_scale_and_no_nan() -> None:
    figure = tallies([("Alice", [0, 0, 0]), ("Bob", [0, 0, 0])], floor=100_000)
    root = parse(figure)

    assert "nan" not in figure.svg.lower()
    assert "inf" not in figure.svg.lower()
    assert [points(p)[-1][1] for p in lines(root)] == pytest.approx([gridline_y(root, "$0")] * 2)
    assert "$100,000" in [t.text for t in root.findall(f".//{SVG}text")]


def test_tied_players_are_both_drawn_and_told_apart() -> None:
    figure = tallies([("Alice", [0, 300_000]), ("Bob", [0, 300_000])])
    paths = lines(parse(figure))

    assert points(paths[0]) == points(paths[1])
    assert paths[0].get("stroke") != paths[1].get("stroke")
    assert paths[0].get("stroke-dasharray") != paths[1].get("stroke-dasharray")
    assert [k.label for k in figure.legend] == ["Alice", "Bob"]


def test_names_and_words_are_escaped() -> None:
    words = charts.Words("<b>", "Bob & <i>Co</i>", "x", "y")
    figure = charts.line_chart("c", [("<script>", [1, 2])], ["a", "b"], words, fmt=str)
    root = parse(figure)

    assert "<script>" not in figure.svg
    assert root.find(f"{SVG}desc") is not None
    assert root.find(f".//{SVG}g[@data-name='<script>']") is not None


@pytest.mark.parametrize(
    ("top", "expected"),
    [
        (1_000_000, [0, 250_000, 500_000, 750_000, 1_000_000]),
        (1_050_000, [0, 500_000, 1_000_000, 1_500_000]),
        (0, [0, 0.25, 0.5, 0.75, 1]),
        (3.5, [0, 1, 2, 3, 4]),
    ],
)
def test_ticks_are_round_and_reach_the_top(top: float, expected: list[float]) -> None:
    assert charts.ticks(top) == expected


def test_many_rounds_thin_the_round_labels_so_they_do_not_overlap() -> None:
    labels = [f"Round {n}" for n in range(30)]
    figure = charts.line_chart("many", [("A", list(range(30)))], labels, WORDS, fmt=str)
    shown = [
        t.text
        for t in parse(figure).findall(f".//{SVG}text")
        if (t.text or "").startswith("Round ")
    ]

    assert 2 <= len(shown) < 30
    assert shown[0] == "Round 0"


def test_a_season_chart_draws_a_bar_per_night_hollow_where_it_does_not_count() -> None:
    figure = charts.bar_line_chart(
        "season",
        ["3 Mar", "10 Mar", "17 Mar"],
        [1.5, 0.5, 2.0],
        [True, False, True],
        [1.5, 1.5, 3.5],
        WORDS,
        fmt=str,
        labels=("Points that night", "Not counted", "Running total"),
    )
    root = parse(figure)
    bars = [r for r in root.findall(f".//{SVG}rect") if "bar" in r.get("class", "")]
    (line,) = lines(root)

    assert [b.get("class") for b in bars] == ["bar", "bar uncounted", "bar"]
    heights = [float(b.get("height", "0")) for b in bars]
    assert heights[0] == pytest.approx(3 * heights[1], abs=0.2)
    assert points(line)[-1][1] < points(line)[0][1]  # the running total rises
    assert [k.label for k in figure.legend] == ["Points that night", "Not counted", "Running total"]


def test_a_season_where_every_night_counts_has_no_uncounted_key() -> None:
    figure = charts.bar_line_chart(
        "s", ["a"], [1.0], [True], [1.0], WORDS, fmt=str, labels=("Bars", "Hollow", "Line")
    )

    assert [k.label for k in figure.legend] == ["Bars", "Line"]


@pytest.mark.parametrize(
    ("top", "low", "expected"),
    [
        (10, -3, [-5, 0, 5, 10]),
        (2.5, -2.5, [-4, -2, 0, 2, 4]),
        (20, 4, [0, 5, 10, 15, 20]),  # a positive low still starts at 0
    ],
)
def test_ticks_reach_below_zero_for_negative_values(
    top: float, low: float, expected: list[float]
) -> None:
    assert charts.ticks(top, low=low) == expected


def test_negative_values_sit_below_the_zero_line_inside_the_plot() -> None:
    figure = charts.line_chart("r", [("v1", [-4.0, 0.0, 6.0])], ["1", "2", "3"], WORDS, fmt=str)
    root = parse(figure)
    (line,) = lines(root)
    ys = [y for _, y in points(line)]

    assert ys[0] > gridline_y(root, "0.0") > ys[2]
    assert ys[1] == pytest.approx(gridline_y(root, "0.0"), abs=0.1)
    assert all(charts.TOP <= y <= charts.HEIGHT - charts.BOTTOM for y in ys)


def test_a_series_with_gaps_draws_only_its_values_and_starts_again_after_a_gap() -> None:
    figure = charts.line_chart(
        "g",
        [("v1", [1.0, 2.0, None, None]), ("v2", [None, None, 3.0, 4.0])],
        ["1", "2", "3", "4"],
        WORDS,
        fmt=str,
    )
    first, second = lines(parse(figure))

    assert first.get("d", "").count("M") == 1
    assert len(points(first)) == 2
    assert len(points(second)) == 2
    assert points(second)[0][0] > points(first)[1][0]  # v2 begins where v1 left off
