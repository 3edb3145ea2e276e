"""The overview's paired comparisons per dataset, laid out from :mod:`hopkit.evaluation.compare`.

The statistics (paired bootstrap interval, McNemar or sign-flip test, won/lost/tied) are
:func:`hopkit.evaluation.compare.compare_scores`'s and the table is
:func:`hopkit.report.paired.paired_table`'s; this module only picks the pairs (the rule of the
Markdown report's section) and turns the table's cells into text for the page.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

from hopkit.errors import ComparisonError
from hopkit.evaluation.aggregate import Estimate
from hopkit.evaluation.compare import compare_scores
from hopkit.report.html.model import HtmlReportInput, HtmlRun
from hopkit.report.paired import (REPORT_METRICS, ComparedPair, comparison_pairs, paired_notes, paired_table,
                                  reference_reason, verdict_sentence)
from hopkit.report.table import Cell, Column

__all__ = ["PairedTable", "PairedView", "paired_views"]


@dataclass(frozen=True)
class PairedTable:
    """One compared pair as a table: headers, rows of text cells, and its verdict in words."""

    title: str
    headers: Sequence[str]
    rows: Sequence[Sequence[str]]
    sentence: str = ""


@dataclass(frozen=True)
class PairedView:
    """A dataset's paired comparisons: a note on what was compared, and one table per pair."""

    note: str
    tables: Sequence[PairedTable]


def _text(cell: Cell, column: Column) -> str:
    if cell is None:
        return "–"
    if isinstance(cell, Estimate):
        cell = cell.mean
    if isinstance(cell, float):
        return f"{(100 * cell if column.percent else cell):.{column.digits}f}"
    return str(cell)


def _view(runs: Sequence[HtmlRun]) -> PairedView:
    if len(runs) < 2:
        return PairedView("One run on this dataset, nothing to compare.", ())
    index_pairs, against_best = comparison_pairs([run.summary for run in runs])
    tables: list[PairedTable] = []
    for i, j in index_pairs:
        a, b = runs[i], runs[j]
        title = f"{a.label} (A) against {b.label} (B)"
        try:
            comparison = compare_scores(list(a.scores.values()), list(b.scores.values()), metrics=REPORT_METRICS)
        except ComparisonError:
            tables.append(PairedTable(title, (), (), "They share no attempted question; not compared."))
            continue
        pair = ComparedPair(a.label, b.label, comparison)
        table = paired_table([pair], with_runs=False)
        rows = [[_text(cell, column) for cell, column in zip(row, table.columns)] for row in table.rows]
        tables.append(PairedTable(f"{title}, {comparison.shared} shared questions",
                                  [column.header for column in table.columns], rows, verdict_sentence(pair)))
    note = " ".join(paired_notes())
    if against_best:
        best = index_pairs[0][0]
        reason = reference_reason([run.summary for run in runs], best)
        note = f"{len(runs)} runs: each against {runs[best].label} ({reason}). " + note
    return PairedView(note, tables)


def paired_views(report: HtmlReportInput) -> Mapping[str, PairedView]:
    """The paired comparisons of each dataset's runs, by dataset.

    Args:
        report: the report's input (runs without per-question scores are left out).

    Returns:
        By dataset, its view.
    """
    return {dataset: _view([run for run in report.runs_on(dataset) if run.scores])
            for dataset in report.datasets}
