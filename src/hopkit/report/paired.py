"""Paired comparisons of runs as tables: one pair for ``hopkit compare``, a report section for many.

The statistics are :func:`hopkit.evaluation.compare.compare_scores`; this module
chooses the pairs, lays the numbers out in a :class:`~hopkit.report.table.Table`
and says in words what they mean.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from hopkit.errors import ComparisonError
from hopkit.evaluation.aggregate import RunSummary
from hopkit.evaluation.compare import (
    BINARY_METRICS,
    EXACT_SIGN_FLIPS_UP_TO,
    MetricComparison,
    PairedComparison,
    compare_scores,
)
from hopkit.evaluation.scoring import METRIC_NAMES, QuestionScores
from hopkit.report.escape import markdown_cell
from hopkit.report.table import Cell, Column, Table, metric_header, run_labels, to_markdown

__all__ = ["ALL_PAIRS_UP_TO", "ANYTIME_NOTE", "REPORT_METRICS", "ComparedPair", "ScoredRun", "anytime_cells",
           "paired_notes", "paired_section", "paired_table", "verdict_sentence"]

#: The metrics of the report's section (the CLI compares every metric the runs have):
#: the answer metrics, paragraph recall, and LLM-judged accuracy where the kit scores it.
REPORT_METRICS: tuple[str, ...] = tuple(
    m for m in ("em", "f1", "cover_em", "paragraph_recall", "llm_accuracy") if m in METRIC_NAMES)

#: Up to this many runs on a dataset the report compares every pair; above, each run
#: against the run with the highest mean F1 (six pairs stay readable, 45 do not).
ALL_PAIRS_UP_TO = 4


@dataclass(frozen=True)
class ScoredRun:
    """A run's summary with its per-question scores (what a paired comparison needs)."""

    summary: RunSummary
    scores: tuple[QuestionScores, ...]


@dataclass(frozen=True)
class ComparedPair:
    """Run A against run B, with the labels to show them by."""

    label_a: str
    label_b: str
    comparison: PairedComparison


#: What the anytime-valid columns mean (the report, ``hopkit compare`` and ``hopkit claims`` share it).
ANYTIME_NOTE = (
    "Anytime 95% CS: a confidence sequence for A-B (Waudby-Smith & Ramdas' hedged betting capital) that "
    "holds at every n at once, so it stays valid however often one looks and whenever one stops; it is "
    "wider than the fixed-n interval. Anytime p: its p-value, valid at any stopping time. Decided at n: the "
    "first question, in the dataset's stored order, after which the sequence excluded 0 (- : not by the "
    "last shared question). The fixed-n test stays the verdict for runs of a planned size.")


def _points(value: float) -> str:
    return f"{100 * value:+.1f}"


def _p(value: float) -> str:
    return "<0.001" if value < 0.001 else f"{value:.3f}"


def _verdict(m: MetricComparison, label_a: str, label_b: str) -> str:
    if not m.distinguishable:
        return "cannot tell"
    return f"{label_a if m.difference.mean > 0 else label_b} higher"


def anytime_cells(m: MetricComparison) -> tuple[str, str, str]:
    """The anytime-valid columns of one metric: the confidence sequence at n, its p-value, and the n at
    which it first excluded 0 ("-" when it has not; all "-" when the comparison has none)."""
    a = m.anytime
    if a is None:
        return "-", "-", "-"
    return (f"[{_points(a.low)}, {_points(a.high)}]", _p(a.p_value),
            "-" if a.decided_at is None else str(a.decided_at))


def paired_table(pairs: Sequence[ComparedPair], *, with_runs: bool = True, budget: int = 15) -> Table:
    """One row per (pair, metric): means, difference with interval, p-value, wins, and the anytime-valid
    confidence sequence with its p-value and the n at which it decided.

    Args:
        pairs: The compared pairs.
        with_runs: Start each row with the two runs' labels (leave out for one pair
            whose runs are named above the table).
        budget: The retrieval budget of the recall metrics (headers only).

    Returns:
        The table (no notes; see :func:`paired_notes`).
    """
    columns = [Column("run_a", "A", "text"), Column("run_b", "B", "text")] if with_runs else []
    columns += [
        Column("metric", "Metric", "text"),
        Column("n", "n", "int"),
        Column("mean_a", "A %", "float", 1, True),
        Column("mean_b", "B %", "float", 1, True),
        Column("difference", "A-B", "text"),
        Column("interval", "95% CI", "text"),
        Column("p_value", "p", "text"),
        Column("test", "Test", "text"),
        Column("won", "A won", "int"),
        Column("lost", "B won", "int"),
        Column("tied", "Tied", "int"),
        Column("verdict", "At 95%", "text"),
        Column("anytime_cs", "Anytime 95% CS", "text"),
        Column("anytime_p", "Anytime p", "text"),
        Column("decided_at", "Decided at n", "text"),
    ]
    rows: list[tuple[Cell, ...]] = []
    for pair in pairs:
        for m in pair.comparison.metrics:
            runs: list[Cell] = [pair.label_a, pair.label_b] if with_runs else []
            rows.append((*runs, metric_header(m.metric, budget), m.n, m.mean_a, m.mean_b,
                         _points(m.difference.mean),
                         f"[{_points(m.difference.low)}, {_points(m.difference.high)}]",
                         _p(m.p_value), m.test, m.won, m.lost, m.tied,
                         _verdict(m, pair.label_a, pair.label_b), *anytime_cells(m)))
    return Table(tuple(columns), tuple(rows))


def paired_notes(budget: int = 15) -> tuple[str, ...]:
    """What the columns of :func:`paired_table` mean and which test gives each p-value.

    Args:
        budget: The retrieval budget of the recall metrics (metric names only).

    Returns:
        One sentence group per note.
    """
    binary = ", ".join(metric_header(m, budget) for m in METRIC_NAMES if m in BINARY_METRICS)
    graded = ", ".join(metric_header(m, budget) for m in METRIC_NAMES if m not in BINARY_METRICS)
    return (
        "Each pair is compared on the questions both runs attempted (a failed one scores 0). A % and "
        "B % are the runs' means "
        "there, A-B their difference in points, 95% CI its paired bootstrap interval (1,000 "
        "resamples of the shared questions); A won / B won / Tied count the questions where A "
        "scored higher / lower / the same.",
        f"p: {binary} are 0 or 1 per question, tested with the exact McNemar test (a two-sided sign "
        f"test on the questions where exactly one run scores 1); {graded} with the paired sign-flip "
        f"permutation test on the per-question differences (exact up to {EXACT_SIGN_FLIPS_UP_TO} "
        "differing questions, else 20,000 random sign flips with a fixed seed).",
        "At 95%: a difference with p < 0.05 is distinguishable from noise (the higher run is named); "
        "otherwise these questions cannot tell the runs apart. The verdict follows the test; with "
        "few questions the approximate bootstrap interval can exclude 0 where the test does not reject.",
        ANYTIME_NOTE,
    )


def verdict_sentence(pair: ComparedPair, budget: int = 15) -> str:
    """The comparison of one pair in plain words, e.g. "At 95%, oner is higher than nor on F1
    (by 9.5 points, p = 0.012). EM, Cover-EM: no difference distinguishable from noise at 95%."

    Args:
        pair: The compared pair.
        budget: The retrieval budget of the recall metrics (metric names only).

    Returns:
        One sentence (two when some metrics differ and others do not).
    """
    a, b = pair.label_a, pair.label_b
    found = []
    for higher, lower, sign in ((a, b, 1.0), (b, a, -1.0)):
        metrics = [f"{metric_header(m.metric, budget)} (by {abs(100 * m.difference.mean):.1f} points, "
                   f"p = {_p(m.p_value)})" for m in pair.comparison.metrics
                   if m.distinguishable and sign * m.difference.mean > 0]
        if metrics:
            listed = metrics[0] if len(metrics) == 1 else ", ".join(metrics[:-1]) + " and " + metrics[-1]
            found.append(f"{higher} is higher than {lower} on {listed}")
    noise = [metric_header(m.metric, budget) for m in pair.comparison.metrics if not m.distinguishable]
    parts = []
    if found:
        parts.append("At 95%, " + "; ".join(found) + ".")
    if noise:
        parts.append(f"{', '.join(noise)}: no difference distinguishable from noise at 95%.")
    return " ".join(parts)


def comparison_pairs(summaries: Sequence[RunSummary]) -> tuple[list[tuple[int, int]], bool]:
    """The index pairs of runs to compare: every pair up to :data:`ALL_PAIRS_UP_TO` runs, else each
    run against the one with the highest F1 (the first such); and whether it is the latter."""
    if len(summaries) <= ALL_PAIRS_UP_TO:
        return [(i, j) for i in range(len(summaries)) for j in range(i + 1, len(summaries))], False
    f1 = _f1s(summaries)
    best = max(range(len(summaries)), key=lambda i: (f1[i], -i))
    return [(best, j) for j in range(len(summaries)) if j != best], True


def _f1s(summaries: Sequence[RunSummary]) -> list[float]:
    return [s.metrics["f1"].mean if "f1" in s.metrics else float("-inf") for s in summaries]


def reference_reason(summaries: Sequence[RunSummary], best: int) -> str:
    """Why run ``best`` is the one every other is compared with: it has the highest F1, or, when
    several share the highest (every F1 0 with a tiny model), it is the first of them."""
    f1 = _f1s(summaries)
    tied = sum(value == f1[best] for value in f1)
    if tied == 1:
        return "the highest F1"
    if tied == len(f1):
        return f"the first run: every run has F1 {100 * f1[best]:.1f}" if f1[best] > float("-inf") else "the first run"
    return f"the first of the {tied} runs tied at the highest F1, {100 * f1[best]:.1f}"


def paired_section(runs: Sequence[ScoredRun], *, metrics: Sequence[str] = REPORT_METRICS,
                   budget: int = 15) -> str:
    """The report's "Paired comparisons" section, in Markdown.

    For each dataset (in the order of its first run) the runs on it are compared in
    pairs: every pair when there are at most :data:`ALL_PAIRS_UP_TO`, else each run
    against the one with the highest mean F1 (the section says which). Runs are
    labelled as in the comparison table (:func:`hopkit.report.table.run_labels`), written by
    :func:`~hopkit.report.escape.markdown_cell`.

    Args:
        runs: The runs with their per-question scores, in table order.
        metrics: The metrics to compare, where both runs of a pair have them.
        budget: The retrieval budget of the recall metrics (headers only).

    Returns:
        The section, starting with its heading and ending with a newline.
    """
    labels = run_labels([run.summary for run in runs])
    datasets = list(dict.fromkeys(run.summary.dataset for run in runs))
    shown = ", ".join(metric_header(m, budget) for m in METRIC_NAMES if m in metrics)
    lines = ["## Paired comparisons", "",
             f"Runs on the same dataset, compared question by question on {shown} (where both runs "
             f"have the metric): every pair when a dataset has at most {ALL_PAIRS_UP_TO} runs, "
             "else each run against the run with the highest F1. No correction for multiple "
             "comparisons: among many comparisons of runs that do not differ, about 1 in 20 "
             "still shows p < 0.05.", ""]
    for dataset in datasets:
        on_it = [(label, run) for label, run in zip(labels, runs) if run.summary.dataset == dataset]
        lines += [f"### {markdown_cell(dataset)}", ""]
        if len(on_it) < 2:
            lines += [f"One run ({markdown_cell(on_it[0][0])}), nothing to compare.", ""]
            continue
        index_pairs, against_best = comparison_pairs([run.summary for _, run in on_it])
        if against_best:
            best = index_pairs[0][0]
            reason = reference_reason([run.summary for _, run in on_it], best)
            lines += [f"{len(on_it)} runs: each against {markdown_cell(on_it[best][0])} ({reason}).", ""]
        compared: list[ComparedPair] = []
        for i, j in index_pairs:
            (label_a, a), (label_b, b) = on_it[i], on_it[j]
            try:
                comparison = compare_scores(a.scores, b.scores, metrics=metrics)
            except ComparisonError:
                lines += [f"{markdown_cell(label_a)} and {markdown_cell(label_b)} share no attempted question; "
                          "not compared.", ""]
                continue
            compared.append(ComparedPair(label_a, label_b, comparison))
        if compared:
            lines.append(to_markdown(paired_table(compared, budget=budget)))
    lines.append("\n\n".join(paired_notes(budget)))
    return "\n".join(lines) + "\n"
