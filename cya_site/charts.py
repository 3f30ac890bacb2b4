"""Charts as inline SVG drawn on the server: no script, no library, nothing to download.

Pure: numbers in, markup out. The caller translates every word (title, description, axis
labels, names) and formats the numbers (dollars in the page's language), so this module
knows neither Django nor the game, and its tests need no database.

Accessible by construction: each chart is an image with a name and a description
(``role="img"``, ``<title>``, ``<desc>``); each series differs by colour, dash pattern
and marker shape, so colour is never the only cue (WCAG 1.4.1), and the legend draws all
three beside each name. A viewBox lets a chart scale to its container: the stylesheet
gives it the width and the height follows, from a 360 px phone to a projector.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from html import escape

# The viewBox, in user units. 340 wide keeps 14-unit text at about 12 px on a 360 px phone,
# where a card leaves a chart some 290 px; the stylesheet shrinks the text on wide screens.
WIDTH, HEIGHT = 340, 230
FONT = 14
CHAR = 0.6 * FONT  # a generous average glyph width, to leave room for tick labels
TOP, BOTTOM, RIGHT = 28, 46, 12
MUTED = "#55605a"

# Okabe-Ito's colour-blind-safe palette, each at 3:1 or more against white (WCAG 1.4.11;
# its orange and sky blue fall short, so a dark ochre and the page's ink replace them).
COLOURS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#8A6500", "#1B1F1D")
DASHES = ("", "9 4", "2 4", "10 3 2 3", "5 5", "14 4")
MARKERS = ("circle", "square", "triangle", "diamond", "down", "plus")


@dataclass(frozen=True)
class Style:
    """How one series is drawn: three cues, so that any one of them tells it apart."""

    colour: str
    dash: str
    marker: str


def style(index: int) -> Style:
    """The style of the index-th series (a table has at most six seats: all distinct)."""
    return Style(
        COLOURS[index % len(COLOURS)], DASHES[index % len(DASHES)], MARKERS[index % len(MARKERS)]
    )


@dataclass(frozen=True)
class Key:
    """A legend entry: a label and a small decorative drawing of its series."""

    label: str
    swatch: str


@dataclass(frozen=True)
class Figure:
    """A chart and its legend (HTML beside the SVG, so it wraps on a narrow screen)."""

    svg: str
    legend: tuple[Key, ...]


@dataclass(frozen=True)
class Words:
    """A chart's words, already translated: its name, description and axis labels."""

    title: str
    desc: str
    x_axis: str
    y_axis: str


def ticks(top: float, floor: float = 1.0, low: float = 0.0) -> list[float]:
    """Round values from 0 (or below it, down to ``low`` when that is negative) to at
    least ``top`` (at least ``floor``), four or so steps of 1, 2, 2.5 or 5 times a power
    of ten. Tallies and points never go below 0; a rating (mu - 3 sigma) may."""
    top = max(top, floor, 1e-9)
    low = min(low, 0.0)
    raw = (top - low) / 4
    power = 10.0 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw * (1 - 1e-9))
    first = math.floor(low / step + 1e-9)
    count = math.ceil(top / step - 1e-9)
    return [round(i * step, 10) + 0.0 for i in range(first, count + 1)]


@dataclass(frozen=True)
class _Frame:
    """The plot area and its scales: x by category index, y by value."""

    left: float
    right: float
    top: float
    bottom: float
    count: int
    y_low: float
    y_top: float
    banded: bool  # bars sit in bands; points of a line chart run edge to edge

    def x(self, index: int) -> float:
        width = self.right - self.left
        if self.banded:
            return self.left + width * (index + 0.5) / self.count
        if self.count == 1:
            return self.left + width / 2
        return self.left + width * index / (self.count - 1)

    def y(self, value: float) -> float:
        share = (value - self.y_low) / (self.y_top - self.y_low)
        return self.bottom - (self.bottom - self.top) * share

    @property
    def band(self) -> float:
        return (self.right - self.left) / self.count


def _frame(
    count: int, values: Sequence[float], fmt: Callable[[float], str], banded: bool, floor: float
) -> tuple[_Frame, list[float]]:
    steps = ticks(max(values, default=0.0), floor, min(values, default=0.0))
    widest = max(len(fmt(v)) for v in steps)
    left = 12 + widest * CHAR
    frame = _Frame(
        left, WIDTH - RIGHT, TOP, HEIGHT - BOTTOM, max(count, 1), steps[0], steps[-1], banded
    )
    return frame, steps


def _n(value: float) -> str:
    """A coordinate: one decimal is finer than any screen needs."""
    return f"{value:.1f}"


def _text(x: float, y: float, words: str, anchor: str = "middle", cls: str = "") -> str:
    klass = f' class="{cls}"' if cls else ""
    return (
        f'<text x="{_n(x)}" y="{_n(y)}" text-anchor="{anchor}" font-size="{FONT}" '
        f'fill="{MUTED}"{klass}>{escape(words)}</text>'
    )


def _axes(
    frame: _Frame,
    steps: Sequence[float],
    x_labels: Sequence[str],
    words: Words,
    fmt: Callable[[float], str],
) -> list[str]:
    """Grid lines with their values, the category labels (thinned to fit), axis names."""
    out = ['<g class="axes">']
    for value in steps:
        y = frame.y(value)
        out.append(
            f'<line x1="{_n(frame.left)}" y1="{_n(y)}" x2="{_n(frame.right)}" y2="{_n(y)}" '
            f'stroke="#d6d9d2" stroke-width="1"/>'
        )
        out.append(_text(frame.left - 8, y + FONT * 0.35, fmt(value), "end"))
    widest = max((len(label) for label in x_labels), default=1)
    room = frame.band if frame.banded else (frame.right - frame.left) / max(len(x_labels), 1)
    every = max(1, math.ceil((widest * CHAR + 6) / max(room, 1)))
    for index, label in enumerate(x_labels):
        if index % every == 0:
            out.append(_text(frame.x(index), frame.bottom + FONT + 4, label))
    out.append(_text(frame.left, TOP - 12, words.y_axis, "start", "axis-label"))
    out.append(_text((frame.left + frame.right) / 2, HEIGHT - 6, words.x_axis, cls="axis-label"))
    out.append("</g>")
    return out


def _marker(shape: str, x: float, y: float, colour: str, r: float = 4.5) -> str:
    paint = f'fill="{colour}" stroke="#fff" stroke-width="1"'
    if shape == "circle":
        return f'<circle cx="{_n(x)}" cy="{_n(y)}" r="{_n(r)}" {paint}/>'
    if shape == "square":
        side = _n(2 * r)
        return f'<rect x="{_n(x - r)}" y="{_n(y - r)}" width="{side}" height="{side}" {paint}/>'
    w = r * 0.45
    corners = {
        "triangle": ((0, -1.3 * r), (1.2 * r, 0.9 * r), (-1.2 * r, 0.9 * r)),
        "down": ((0, 1.3 * r), (1.2 * r, -0.9 * r), (-1.2 * r, -0.9 * r)),
        "diamond": ((0, -1.35 * r), (1.35 * r, 0), (0, 1.35 * r), (-1.35 * r, 0)),
        "plus": ((-w, -r), (w, -r), (w, -w), (r, -w), (r, w), (w, w), (w, r), (-w, r),
                 (-w, w), (-r, w), (-r, -w), (-w, -w)),
    }[shape]  # fmt: skip
    points = " ".join(f"{_n(x + dx)},{_n(y + dy)}" for dx, dy in corners)
    return f'<polygon points="{points}" {paint}/>'


def _stroke(s: Style, width: float = 2.5) -> str:
    dash = f' stroke-dasharray="{s.dash}"' if s.dash else ""
    return (
        f'fill="none" stroke="{s.colour}" stroke-width="{width}"{dash} '
        f'stroke-linejoin="round" stroke-linecap="butt"'
    )


def _line(frame: _Frame, values: Sequence[float | None], s: Style, name: str) -> str:
    """One series: exactly one path, and a marker at each value; a None is a gap (the
    series has no value there), and the line starts again after it."""
    d, markers, pen = [], [], "M"
    for index, value in enumerate(values):
        if value is None:
            pen = "M"
            continue
        x, y = frame.x(index), frame.y(value)
        d.append(f"{pen}{_n(x)} {_n(y)}")
        markers.append(_marker(s.marker, x, y, s.colour))
        pen = "L"
    return (
        f'<g class="series" data-name="{escape(name)}"><path d="{" ".join(d)}" {_stroke(s)}/>'
        f"{''.join(markers)}</g>"
    )


def swatch(s: Style, bar: str = "") -> str:
    """A legend's drawing of a series: its line and marker, or a bar (``filled``/``hollow``)."""
    head = '<svg class="key" viewBox="0 0 32 16" width="32" height="16" aria-hidden="true">'
    if bar == "filled":
        return f'{head}<rect x="9" y="2" width="14" height="12" fill="{s.colour}"/></svg>'
    if bar == "hollow":
        return (
            f'{head}<rect x="9.5" y="2.5" width="13" height="11" fill="#fff" '
            f'stroke="{s.colour}" stroke-width="1.5" stroke-dasharray="3 2"/></svg>'
        )
    return (
        f'{head}<line x1="1" y1="8" x2="31" y2="8" {_stroke(s, 2)}/>'
        f"{_marker(s.marker, 16, 8, s.colour, 4)}</svg>"
    )


def _svg(chart_id: str, words: Words, body: Sequence[str]) -> str:
    ident = escape(chart_id)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'role="img" aria-labelledby="{ident}-title {ident}-desc" id="{ident}">'
        f'<title id="{ident}-title">{escape(words.title)}</title>'
        f'<desc id="{ident}-desc">{escape(words.desc)}</desc>' + "".join(body) + "</svg>"
    )


def line_chart(
    chart_id: str,
    series: Sequence[tuple[str, Sequence[float | None]]],
    x_labels: Sequence[str],
    words: Words,
    *,
    fmt: Callable[[float], str],
    target: float | None = None,
    target_label: str = "",
    floor: float = 1.0,
) -> Figure:
    """One line per named series over the categories ``x_labels`` (values align with
    them; None where a series has none), with a dashed reference line at ``target`` when
    given. The scale starts at 0, or below it for negative values."""
    values = [v for _, vs in series for v in vs if v is not None]
    values += [target] if target is not None else []
    frame, steps = _frame(len(x_labels), values, fmt, banded=False, floor=floor)
    body = _axes(frame, steps, x_labels, words, fmt)
    if target is not None:
        y = frame.y(target)
        body.append(
            f'<line class="target" x1="{_n(frame.left)}" y1="{_n(y)}" x2="{_n(frame.right)}" '
            f'y2="{_n(y)}" stroke="{MUTED}" stroke-width="1.5" stroke-dasharray="6 4"/>'
        )
        # At the left, above the line: every tally starts at $0, so nothing is there yet.
        body.append(_text(frame.left + 4, y - 5, target_label, "start", "target-label"))
    styles = [style(i) for i in range(len(series))]
    body += [_line(frame, vs, s, name) for (name, vs), s in zip(series, styles, strict=True)]
    legend = tuple(Key(name, swatch(s)) for (name, _), s in zip(series, styles, strict=True))
    return Figure(_svg(chart_id, words, body), legend)


def bar_line_chart(
    chart_id: str,
    x_labels: Sequence[str],
    bars: Sequence[float],
    counted: Sequence[bool],
    line: Sequence[float],
    words: Words,
    *,
    fmt: Callable[[float], str],
    labels: tuple[str, str, str],
    floor: float = 1.0,
) -> Figure:
    """A bar per category (hollow and dashed where ``counted`` is false) and a line over
    them; ``labels`` name the counted bars, the uncounted ones and the line."""
    frame, steps = _frame(len(x_labels), [*bars, *line], fmt, banded=True, floor=floor)
    body = _axes(frame, steps, x_labels, words, fmt)
    bar_style, line_style = style(0), style(1)
    width = min(frame.band * 0.6, 48)
    for index, (value, kept) in enumerate(zip(bars, counted, strict=True)):
        x, y = frame.x(index) - width / 2, frame.y(value)
        paint = (
            f'class="bar" fill="{bar_style.colour}"'
            if kept
            else f'class="bar uncounted" fill="#fff" stroke="{bar_style.colour}" '
            f'stroke-width="1.5" stroke-dasharray="3 2"'
        )
        body.append(
            f'<rect x="{_n(x)}" y="{_n(y)}" width="{_n(width)}" '
            f'height="{_n(frame.bottom - y)}" {paint}/>'
        )
    body.append(_line(frame, line, line_style, labels[2]))
    legend = [Key(labels[0], swatch(bar_style, "filled"))]
    if not all(counted):
        legend.append(Key(labels[1], swatch(bar_style, "hollow")))
    legend.append(Key(labels[2], swatch(line_style)))
    return Figure(_svg(chart_id, words, body), tuple(legend))
