"""Comparison plots of runs, written as PNG files without a display.

Figures are drawn on matplotlib's Agg canvas directly (``Figure`` plus
``FigureCanvasAgg``), so plotting never touches the global pyplot state or needs
a display, and works the same in threads, on servers and in CI.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from hopkit.errors import UnknownNameError
from hopkit.evaluation.aggregate import Estimate, RunSummary
from hopkit.evaluation.cost_columns import time_parts
from hopkit.evaluation.scoring import METRIC_NAMES
from hopkit.report.palette import run_mark
from hopkit.report.table import run_labels

__all__ = ["DATASET_LABELS", "METRIC_LABELS", "RecallCurve", "plot_comparison", "plot_recall_curves", "plot_time_split",
           "time_split_parts"]

#: Display names of the metrics, for axis titles.
METRIC_LABELS: dict[str, str] = {
    "em": "Exact match",
    "f1": "F1",
    "cover_em": "Cover-EM",
    "paragraph_recall": "Gold paragraph recall",
    "title_recall": "Gold title recall",
    "answer_recall": "Answer recall",
}

#: Short display names of the benchmarks, so grouped axis labels do not run together.
DATASET_LABELS: dict[str, str] = {
    "hotpotqa": "HotpotQA",
    "2wikimultihopqa": "2Wiki",
    "musique": "MuSiQue",
    "iirc": "IIRC",
    "strategyqa": "StrategyQA",
}

_TIME_COLOURS = {"LLM": "#0072B2", "retrieval": "#E69F00", "other": "#BBBBBB"}
# Colours of the components besides the model and retrieval (judges, methods' labels), cycled.
_COMPONENT_COLOURS = ("#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000")
_DPI = 120


def _unique(items: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(items))


def _index_runs(summaries: Sequence[RunSummary],
                labels: Sequence[str]) -> dict[tuple[str, str], RunSummary]:
    """The runs keyed by (dataset, label); :func:`run_labels` makes the keys distinct
    unless the same run is given twice."""
    runs: dict[tuple[str, str], RunSummary] = {}
    for s, label in zip(summaries, labels):
        if (s.dataset, label) in runs:
            raise ValueError(f"run {s.run_id} ({s.name!r} on {s.dataset!r}) is given twice; "
                             "pass each run once")
        runs[(s.dataset, label)] = s
    return runs


def _hide_top_right(ax: Axes) -> None:
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)


def _legend_handles(axes: Sequence[Axes]) -> dict[str, Artist]:
    """Each label drawn on any of ``axes`` with its first handle, in drawing order."""
    handles: dict[str, Artist] = {}
    for ax in axes:
        for handle, label in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(label, handle)
    return handles


def _save(fig: Figure, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    FigureCanvasAgg(fig)
    fig.savefig(path, format="png", dpi=_DPI)
    return path


def _draw_metric(ax: Axes, metric: str, datasets: list[str], names: list[str],
                 runs: dict[tuple[str, str], RunSummary], annotate: bool) -> None:
    width = 0.8 / len(names)
    drawn = False
    for j, name in enumerate(names):
        xs: list[float] = []
        means: list[float] = []
        below: list[float] = []
        above: list[float] = []
        for i, dataset in enumerate(datasets):
            run = runs.get((dataset, name))
            est: Estimate | None = run.metrics.get(metric) if run is not None else None
            if est is None:
                continue
            xs.append(i - 0.4 + width * (j + 0.5))
            means.append(100 * est.mean)
            below.append(100 * (est.mean - est.low))
            above.append(100 * (est.high - est.mean))
        if not xs:
            continue
        drawn = True
        mark = run_mark(j)
        ax.bar(xs, means, width * 0.92, yerr=[below, above], capsize=3, color=mark.colour, hatch=mark.hatch,
               edgecolor="white" if mark.hatch else None, label=name, error_kw={"elinewidth": 1})
        if annotate:
            for x, m, up in zip(xs, means, above):
                ax.text(x, m + up + 1.5, f"{m:.0f}", ha="center", va="bottom", fontsize=7)
    if not drawn:
        ax.text(0.5, 0.5, "no run has this metric", transform=ax.transAxes, ha="center",
                va="center", fontsize=9, color="#666666")
    ax.set_title(METRIC_LABELS[metric], fontsize=10)
    ax.set_xticks(range(len(datasets)), [DATASET_LABELS.get(d, d) for d in datasets], fontsize=9)
    ax.set_xlim(-0.5, len(datasets) - 0.5)
    ax.set_ylim(0, 110)
    ax.set_yticks(range(0, 101, 20))
    ax.yaxis.grid(True, linewidth=0.5, alpha=0.5)
    ax.set_axisbelow(True)
    _hide_top_right(ax)


def plot_comparison(summaries: Sequence[RunSummary], path: Path,
                    metrics: Sequence[str] = ("em", "f1", "paragraph_recall")) -> Path:
    """Grouped bar chart: one panel per metric, bars grouped by dataset, one colour per run.

    Bars show the mean in percent with its bootstrap interval as an error bar; a
    run without the metric (NoR has no recall) has no bar there.

    Args:
        summaries: The runs to compare; runs sharing a name on one dataset are
            labelled ``name (run-id prefix)`` (see :func:`hopkit.report.table.run_labels`).
        path: Where to write the PNG; parent folders are created.
        metrics: Metric names to plot, one panel each.

    Returns:
        ``path``.

    Raises:
        ValueError: No runs or no metrics, or one run given twice.
        UnknownNameError: A metric name is not known.
        OSError: The file cannot be written.
    """
    if not summaries:
        raise ValueError("plot_comparison: no runs to plot")
    if not metrics:
        raise ValueError("plot_comparison: no metrics to plot")
    for metric in metrics:
        if metric not in METRIC_NAMES:
            raise UnknownNameError("metric", metric, METRIC_NAMES)
    labels = run_labels(summaries)
    runs = _index_runs(summaries, labels)
    datasets = _unique([s.dataset for s in summaries])
    names = _unique(labels)
    panel_width = min(9.0, max(3.2, 0.9 + 0.32 * len(datasets) * len(names)))
    fig_width, fig_height = panel_width * len(metrics), 4.2
    fig = Figure(figsize=(fig_width, fig_height))
    axes = fig.subplots(1, len(metrics), squeeze=False)[0]
    annotate = len(datasets) * len(names) <= 12
    for ax, metric in zip(axes, metrics):
        _draw_metric(ax, metric, datasets, names, runs, annotate)
    axes[0].set_ylabel("% (mean, 95% bootstrap CI)" if _all_95(summaries) else "% (mean, bootstrap CI)")
    handles = _legend_handles(axes)
    legend_cols = min(len(names), max(1, math.floor(panel_width * len(metrics) / 1.8)))
    ordered = [name for name in names if name in handles]
    fig.legend([handles[n] for n in ordered], ordered, loc="lower center", ncols=legend_cols,
               frameon=False, fontsize=9)
    rows_of_legend = math.ceil(len(names) / legend_cols)
    # Margins in inches, so the axis label and the legend fit whatever the width.
    fig.subplots_adjust(left=0.75 / fig_width, right=1 - 0.15 / fig_width,
                        bottom=(0.45 + 0.3 * rows_of_legend) / fig_height,
                        top=1 - 0.4 / fig_height, wspace=0.25)
    return _save(fig, path)


def _all_95(summaries: Sequence[RunSummary]) -> bool:
    return all(e.confidence == 0.95 for s in summaries for e in s.metrics.values())


def time_split_parts(summaries: Sequence[RunSummary]) -> dict[str, list[float]]:
    """The stacked parts of :func:`plot_time_split`, in drawing order, each with one value
    (seconds per question) per run: the time-split columns of
    :func:`hopkit.evaluation.cost_columns.cost_columns` (``LLM``, ``retrieval``, each other
    component any run entered, sorted by name, 0 for runs without it, ``other``).

    Args:
        summaries: The runs.

    Returns:
        The parts by label.
    """
    return time_parts((name for s in summaries for name in s.components), [s.cost for s in summaries])


def plot_time_split(summaries: Sequence[RunSummary], path: Path) -> Path:
    """Horizontal stacked bars of seconds per question: LLM, retrieval, each other
    component the runs timed (judges, when any), and other time.

    One bar per run, labelled with the run's name (see
    :func:`hopkit.report.table.run_labels`) and dataset, with its total
    seconds per question at the end.

    Args:
        summaries: The runs.
        path: Where to write the PNG; parent folders are created.

    Returns:
        ``path``.

    Raises:
        ValueError: No runs.
        OSError: The file cannot be written.
    """
    if not summaries:
        raise ValueError("plot_time_split: no runs to plot")
    labels = [f"{label} ({s.dataset})" for s, label in zip(summaries, run_labels(summaries))]
    parts = time_split_parts(summaries)
    extra = [part for part in parts if part not in _TIME_COLOURS]
    colours = {**_TIME_COLOURS, **{name: _COMPONENT_COLOURS[i % len(_COMPONENT_COLOURS)]
                                   for i, name in enumerate(extra)}}
    fig = Figure(figsize=(8.0, 1.4 + 0.45 * len(summaries)))
    ax = fig.subplots()
    ys = list(range(len(summaries)))[::-1]
    left = [0.0] * len(summaries)
    for part, values in parts.items():
        ax.barh(ys, values, 0.6, left=left, color=colours[part], label=part)
        left = [a + b for a, b in zip(left, values)]
    longest = max(left) if max(left) > 0 else 1.0
    for y, total in zip(ys, left):
        ax.text(total + 0.01 * longest, y, f"{total:.2f} s", va="center", fontsize=8)
    ax.set_yticks(ys, labels, fontsize=9)
    ax.set_xlim(0, longest * 1.15)
    ax.set_xlabel("seconds per question")
    ax.xaxis.grid(True, linewidth=0.5, alpha=0.5)
    ax.set_axisbelow(True)
    _hide_top_right(ax)
    ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncols=min(len(parts), 4), fontsize=8,
              frameon=False)
    fig.tight_layout()
    return _save(fig, path)


@dataclass(frozen=True)
class RecallCurve:
    """One dataset's one-step recall at each budget, and the iterative runs to set beside it.

    Attributes:
        dataset: the dataset's name.
        one_step: recall (0-1) of one retrieval with the question, at K = 1, 2, ...
        runs: (label, mean paragraphs collected, mean recall 0-1) of each iterative run.
    """

    dataset: str
    one_step: Sequence[float]
    runs: Sequence[tuple[str, float, float]]


def plot_recall_curves(curves: Sequence[RecallCurve], path: Path) -> Path:
    """One panel per dataset: the one-step recall curve over K, and each run as a point.

    A run above the curve recalls more gold paragraphs than one retrieval given as many
    paragraphs (the IRCoT paper's fixed-budget comparison).

    Args:
        curves: one per dataset.
        path: where to write the PNG; parent folders are created.

    Returns:
        ``path``.

    Raises:
        ValueError: no curves, or a curve without points.
    """
    if not curves:
        raise ValueError("plot_recall_curves: no datasets to plot")
    fig = Figure(figsize=(3.6 * len(curves), 3.6))
    axes = fig.subplots(1, len(curves), squeeze=False)[0]
    labels = _unique([label for curve in curves for label, _, _ in curve.runs])
    for ax, curve in zip(axes, curves):
        if not curve.one_step:
            raise ValueError(f"plot_recall_curves: no one-step recall for {curve.dataset!r}")
        ks = range(1, len(curve.one_step) + 1)
        ax.plot(ks, [100 * r for r in curve.one_step], color="#555555", marker=".", label="one-step BM25")
        for label, count, recall in curve.runs:
            mark = run_mark(labels.index(label))
            ax.scatter([count], [100 * recall], s=60, color=mark.colour, marker=mark.marker, zorder=3, label=label)
        ax.set_title(DATASET_LABELS.get(curve.dataset, curve.dataset), fontsize=10)
        ax.set_xlabel("paragraphs retrieved", fontsize=9)
        ax.set_xlim(0, len(curve.one_step) + 1)
        ax.set_ylim(0, 105)
        ax.grid(True, linewidth=0.5, alpha=0.5)
        _hide_top_right(ax)
    axes[0].set_ylabel("gold paragraph recall (%)")
    handles = _legend_handles(axes)
    fig.legend(list(handles.values()), list(handles), loc="lower center", ncols=min(len(handles), 4),
               frameon=False, fontsize=9)
    fig.subplots_adjust(left=0.08, right=0.98, bottom=0.3, top=0.9, wspace=0.25)
    return _save(fig, path)
