"""The overview page's numbers: per dataset, each run's metrics with intervals, its costs and its plot."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from markupsafe import Markup

from hopkit.evaluation.aggregate import Estimate, RunSummary
from hopkit.evaluation.cost_columns import COST_HEAD, CostColumn, time_parts
from hopkit.evaluation.scoring import METRIC_NAMES
from hopkit.report.html.model import HtmlReportInput, HtmlRun
from hopkit.report.html.pareto import pareto_front
from hopkit.report.html.svg import PlotPoint, quality_cost_svg

__all__ = ["COST_KEYS", "METRIC_LABELS", "DatasetOverview", "MetricCell", "RunRow", "TimePart", "overview"]

#: The metrics the overview shows, with their column titles; LLM-judged accuracy only where the
#: scorer has it.
METRIC_LABELS: dict[str, str] = {name: label for name, label in (
    ("em", "EM"), ("f1", "F1"), ("cover_em", "Cover-EM"), ("paragraph_recall", "Gold para recall@15"),
    ("llm_accuracy", "LLM-judged acc")) if name in METRIC_NAMES}

#: The cost columns the overview shows (of :data:`hopkit.evaluation.cost_columns.COST_HEAD`), before the time split.
COST_KEYS: tuple[str, ...] = ("seconds_per_q", "llm_calls_per_q", "prompt_tokens_per_q", "completion_tokens_per_q",
                              "cached_prompt_share")
_COST_COLUMNS: tuple[CostColumn, ...] = tuple(column for key in COST_KEYS for column in COST_HEAD if column.key == key)

#: The quality the plot sets against seconds per question.
PLOT_METRIC = "f1"


@dataclass(frozen=True)
class MetricCell:
    """A metric of a run in percent with its interval, or ``None`` fields where it does not apply."""

    mean: float | None
    low: float | None = None
    high: float | None = None
    best: bool = False


@dataclass(frozen=True)
class TimePart:
    """One part of a run's seconds per question (model calls, retrieval, a judge or label, other)."""

    name: str
    seconds: float
    share: float


@dataclass(frozen=True)
class RunRow:
    """One run's row of the overview table."""

    label: str
    run_id: str
    method: str
    n_questions: int
    n_failed: int
    metrics: dict[str, MetricCell]
    costs: tuple[str, ...]
    time_parts: tuple[TimePart, ...]
    on_front: bool


@dataclass(frozen=True)
class DatasetOverview:
    """One dataset's section: its runs, the metrics any of them has, and the plot."""

    dataset: str
    n_questions: int
    metrics: dict[str, str]
    cost_headers: tuple[str, ...]
    rows: tuple[RunRow, ...]
    plot: Markup
    confidence: str


def _cell(estimate: Estimate | None, best: float | None) -> MetricCell:
    if estimate is None:
        return MetricCell(None)
    return MetricCell(100 * estimate.mean, 100 * estimate.low, 100 * estimate.high,
                      best is not None and estimate.mean >= best)


def _costs(summary: RunSummary) -> tuple[str, ...]:
    return tuple(column.text(summary.cost.get(column.key, 0.0)) for column in _COST_COLUMNS)


def _time_parts(summaries: Sequence[RunSummary]) -> list[tuple[TimePart, ...]]:
    """Each run's time split over the parts any of ``summaries`` has (0 s where a run has none)."""
    parts = time_parts((name for s in summaries for name in s.components), [s.cost for s in summaries])
    split = []
    for i in range(len(summaries)):
        seconds = {name: max(0.0, values[i]) for name, values in parts.items()}
        total = sum(seconds.values())
        split.append(tuple(TimePart(name, value, value / total if total > 0 else 0.0)
                           for name, value in seconds.items()))
    return split


def _confidence(summaries: Sequence[RunSummary]) -> str:
    levels = sorted({e.confidence for s in summaries for e in s.metrics.values()}) or [0.95]
    return "/".join(f"{100 * level:g}%" for level in levels)


def _dataset(dataset: str, runs: Sequence[HtmlRun], n_questions: int) -> DatasetOverview:
    summaries = [run.summary for run in runs]
    metrics = {name: label for name, label in METRIC_LABELS.items()
               if any(name in s.metrics for s in summaries)}
    best = {name: max((s.metrics[name].mean for s in summaries if name in s.metrics), default=None)
            for name in metrics}
    plotted = [run for run in runs if PLOT_METRIC in run.summary.metrics]
    points = [PlotPoint(run.label, run.summary.seconds_per_q, run.summary.metrics[PLOT_METRIC].mean,
                        run.summary.metrics[PLOT_METRIC].low, run.summary.metrics[PLOT_METRIC].high)
              for run in plotted]
    front = {plotted[i].summary.run_id for i in pareto_front([(p.cost, p.quality) for p in points])}
    split = _time_parts(summaries)
    rows = tuple(RunRow(
        label=run.label, run_id=run.summary.run_id, method=run.summary.method,
        n_questions=run.summary.n_questions, n_failed=run.summary.n_failed,
        metrics={name: _cell(run.summary.metrics.get(name), best[name] if len(runs) > 1 else None)
                 for name in metrics},
        costs=_costs(run.summary), time_parts=split[i],
        on_front=run.summary.run_id in front) for i, run in enumerate(runs))
    plot = quality_cost_svg(points, cost_label="seconds per question",
                            quality_label=METRIC_LABELS.get(PLOT_METRIC, PLOT_METRIC))
    return DatasetOverview(dataset, n_questions, metrics, tuple(c.header for c in _COST_COLUMNS), rows, plot,
                           _confidence(summaries))


def overview(report: HtmlReportInput) -> list[DatasetOverview]:
    """The overview's sections, one per dataset in the order of its first run.

    Args:
        report: the report's input.

    Returns:
        The sections.
    """
    return [_dataset(dataset, report.runs_on(dataset), len(report.questions.get(dataset, ())))
            for dataset in report.datasets]
