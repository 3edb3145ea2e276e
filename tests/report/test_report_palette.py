"""Runs past the palette's eight colours stay apart: same colour, another hatch, marker or shape."""

from __future__ import annotations

import pytest
from matplotlib.figure import Figure

from hopkit.evaluation.aggregate import Estimate, RunSummary
from hopkit.report.html.svg import PlotPoint, quality_cost_svg
from hopkit.report.palette import PALETTE, run_mark
from hopkit.report.plot import _draw_metric

pytestmark = pytest.mark.unit


def test_the_first_32_runs_are_drawn_each_its_own_way() -> None:
    marks = [run_mark(i) for i in range(32)]
    assert len({(m.colour, m.hatch) for m in marks}) == 32
    assert len({(m.colour, m.marker) for m in marks}) == 32
    assert len({(m.colour, m.shape) for m in marks}) == 32
    assert [m.colour for m in marks[:8]] == list(PALETTE) and all(m.hatch == "" for m in marks[:8])
    assert run_mark(8).colour == run_mark(0).colour and run_mark(8).hatch != run_mark(0).hatch


def test_a_negative_position_is_refused() -> None:
    with pytest.raises(ValueError, match="position must be 0 or more, got -1"):
        run_mark(-1)


def test_the_bar_chart_hatches_the_runs_past_the_eighth() -> None:
    names = [f"run {i}" for i in range(10)]
    runs = {("hotpotqa", name): RunSummary(f"id-{i}", name, "m", "hotpotqa", 30, 0,
                                           {"em": Estimate(0.3, 0.2, 0.4, 30)}, {}, ())
            for i, name in enumerate(names)}
    ax = Figure().subplots()
    _draw_metric(ax, "em", ["hotpotqa"], names, runs, annotate=False)
    bars = [(patch.get_facecolor(), patch.get_hatch() or "") for patch in ax.patches]
    assert len(bars) == 10 and len(set(bars)) == 10
    assert bars[8][0] == bars[0][0] and bars[8][1] and not bars[0][1]


def test_the_svg_plot_draws_the_ninth_run_as_a_square() -> None:
    points = [PlotPoint(f"run {i}", float(i + 1), 0.1 + 0.05 * i, 0.05 * i, 0.2 + 0.05 * i) for i in range(9)]
    svg = str(quality_cost_svg(points, cost_label="seconds per question", quality_label="F1"))
    assert svg.count("<rect ") == 2  # the ninth run's point and its legend entry
    assert svg.count("<circle ") == 16
    assert f'stroke="{PALETTE[0]}"' in svg.split("run 8:")[1]
