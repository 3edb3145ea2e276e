"""The quality-versus-cost plot of one dataset's runs, as inline SVG (no image file, no script)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

from markupsafe import Markup, escape

from hopkit.report.html.pareto import pareto_front
from hopkit.report.palette import run_mark

__all__ = ["PlotPoint", "quality_cost_svg"]

_WIDTH, _HEIGHT = 560, 340
_LEFT, _RIGHT, _TOP, _BOTTOM = 58, 150, 18, 46
# The polygon points' corners, in units of the point's size.
_CORNERS = {"triangle": ((0, -1.2), (1.1, 0.9), (-1.1, 0.9)), "diamond": ((0, -1.3), (1.3, 0), (0, 1.3), (-1.3, 0))}


@dataclass(frozen=True)
class PlotPoint:
    """One run in the plot: its cost, its quality (a fraction) with the interval's ends."""

    label: str
    cost: float
    quality: float
    low: float
    high: float


def _ticks(low: float, high: float, count: int = 5) -> list[float]:
    span = high - low
    if span <= 0:
        return [low]
    raw = span / count
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw)
    first = math.ceil(low / step) * step
    # up to the first tick at or above ``high``, so the axis ends on a labelled tick
    return [first + i * step for i in range(math.ceil((high - first) / step - 1e-9) + 1)]


def _marker(position: int, cx: float, cy: float, size: float, filled: bool) -> str:
    """The run's point: its colour, and past the palette's eight colours another shape, hollow unless
    ``filled``."""
    mark = run_mark(position)
    paint = f'stroke="{mark.colour}" fill="{mark.colour if filled else "white"}"'
    if mark.shape == "circle":
        return f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{size}" {paint}/>'
    if mark.shape == "square":
        return f'<rect x="{cx - size:.1f}" y="{cy - size:.1f}" width="{2 * size}" height="{2 * size}" {paint}/>'
    points = " ".join(f"{cx + dx * size:.1f},{cy + dy * size:.1f}" for dx, dy in _CORNERS[mark.shape])
    return f'<polygon points="{points}" {paint}/>'


def _number(value: float) -> str:
    return f"{value:.3g}" if abs(value) < 1000 else f"{value:,.0f}"


def quality_cost_svg(points: Sequence[PlotPoint], *, cost_label: str, quality_label: str) -> Markup:
    """Each run as a point (with its interval as a vertical bar); the Pareto front joined and marked.

    Args:
        points: the runs; a run without the quality metric is left out by the caller.
        cost_label: the x axis title (lower is better).
        quality_label: the y axis title (higher is better), in percent.

    Returns:
        The ``<svg>`` element, safe to put in a page as is.
    """
    if not points:
        return Markup('<p class="muted">No run has this metric.</p>')
    plot_w, plot_h = _WIDTH - _LEFT - _RIGHT, _HEIGHT - _TOP - _BOTTOM
    max_cost = max(p.cost for p in points) or 1.0
    x_ticks = _ticks(0.0, max_cost * 1.05)
    x_max = x_ticks[-1]
    lows = [100 * p.low for p in points]
    highs = [100 * p.high for p in points]
    y_ticks = _ticks(max(0.0, math.floor(min(lows) / 10) * 10), min(100.0, math.ceil(max(highs) / 10) * 10 or 10))
    y_min, y_max = y_ticks[0], max(y_ticks[-1], max(highs), y_ticks[0] + 1)

    def x(value: float) -> float:
        return _LEFT + plot_w * value / x_max

    def y(value: float) -> float:
        return _TOP + plot_h * (1 - (value - y_min) / (y_max - y_min))

    parts = [f'<svg class="plot" viewBox="0 0 {_WIDTH} {_HEIGHT}" width="{_WIDTH}" height="{_HEIGHT}" '
             f'role="img" aria-label="{escape(quality_label)} against {escape(cost_label)}">']
    for tick in x_ticks:
        parts.append(f'<line class="grid" x1="{x(tick):.1f}" y1="{_TOP}" x2="{x(tick):.1f}" y2="{_TOP + plot_h}"/>'
                     f'<text class="tick" x="{x(tick):.1f}" y="{_TOP + plot_h + 16}" text-anchor="middle">'
                     f'{_number(tick)}</text>')
    for tick in y_ticks:
        parts.append(f'<line class="grid" x1="{_LEFT}" y1="{y(tick):.1f}" x2="{_LEFT + plot_w}" y2="{y(tick):.1f}"/>'
                     f'<text class="tick" x="{_LEFT - 6}" y="{y(tick) + 4:.1f}" text-anchor="end">'
                     f'{_number(tick)}</text>')
    parts.append(f'<text class="axis" x="{_LEFT + plot_w / 2:.1f}" y="{_HEIGHT - 8}" text-anchor="middle">'
                 f'{escape(cost_label)} (lower is better)</text>')
    parts.append(f'<text class="axis" transform="translate(14 {_TOP + plot_h / 2:.1f}) rotate(-90)" '
                 f'text-anchor="middle">{escape(quality_label)} % (higher is better)</text>')
    front = pareto_front([(p.cost, p.quality) for p in points])
    path = " ".join(f"{x(points[i].cost):.1f},{y(100 * points[i].quality):.1f}" for i in front)
    parts.append(f'<polyline class="front" points="{path}"/>')
    for i, p in enumerate(points):
        colour = run_mark(i).colour
        px, py = x(p.cost), y(100 * p.quality)
        on_front = i in front
        parts.append(f'<g class="point{" on-front" if on_front else ""}"><title>{escape(p.label)}: '
                     f'{escape(quality_label)} {100 * p.quality:.1f}% [{100 * p.low:.1f}, {100 * p.high:.1f}], '
                     f'{_number(p.cost)} {escape(cost_label)}'
                     f'{" (Pareto front)" if on_front else ""}</title>'
                     f'<line x1="{px:.1f}" y1="{y(100 * p.low):.1f}" x2="{px:.1f}" y2="{y(100 * p.high):.1f}" '
                     f'stroke="{colour}"/>{_marker(i, px, py, 6, on_front)}</g>')
    legend_y = _TOP + 6
    for i, p in enumerate(points):
        ly = legend_y + 18 * i
        parts.append(f'{_marker(i, _LEFT + plot_w + 18, ly, 5, i in front)}'
                     f'<text class="legend" x="{_LEFT + plot_w + 28}" y="{ly + 4}">{escape(p.label)}</text>')
    ly = legend_y + 18 * len(points) + 8
    parts.append(f'<line class="front" x1="{_LEFT + plot_w + 12}" y1="{ly}" x2="{_LEFT + plot_w + 24}" y2="{ly}"/>'
                 f'<text class="legend" x="{_LEFT + plot_w + 28}" y="{ly + 4}">Pareto front (filled)</text>')
    parts.append("</svg>")
    return Markup("".join(parts))
