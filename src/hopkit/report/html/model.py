"""What the HTML report is built from: each run's summary, per-question scores and stored results,
with the questions and paragraphs they point to.

These records are gathered once (from a store by :func:`hopkit.report.html.collect.collect_report`,
or built by hand in tests and benchmarks) and then only read by the page builders.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Mapping, Sequence

from hopkit.evaluation.aggregate import RunSummary
from hopkit.evaluation.scoring import QuestionScores
from hopkit.records import Paragraph, Query
from hopkit.store.records import QueryResult

__all__ = ["HtmlReportInput", "HtmlRun"]


@dataclass(frozen=True)
class HtmlRun:
    """One run as the report shows it.

    Attributes:
        summary: the run's summary (metrics with their intervals, costs).
        scores: its per-question scores, by question id.
        results: its stored results (answer, trace, usage, error), by question id.
        label: the name the report shows (distinct among the runs of a dataset).
    """

    summary: RunSummary
    scores: Mapping[str, QuestionScores]
    results: Mapping[str, QueryResult]
    label: str


@dataclass(frozen=True)
class HtmlReportInput:
    """Everything the HTML report shows.

    Attributes:
        runs: the runs, in the order of the comparison table.
        questions: by dataset, the questions any run answered, in the dataset's order.
        paragraphs: by dataset, the paragraphs the questions' gold or the runs' traces
            name, by id (a paragraph missing here is shown by its id alone).
    """

    runs: Sequence[HtmlRun]
    questions: Mapping[str, Sequence[Query]]
    paragraphs: Mapping[str, Mapping[int, Paragraph]] = field(default_factory=lambda: MappingProxyType({}))

    def runs_on(self, dataset: str) -> list[HtmlRun]:
        """The runs on one dataset, in table order.

        Args:
            dataset: the dataset's name.

        Returns:
            Its runs (empty for an unknown dataset).
        """
        return [run for run in self.runs if run.summary.dataset == dataset]

    @property
    def datasets(self) -> list[str]:
        """The datasets, in the order of their first run."""
        return list(dict.fromkeys(run.summary.dataset for run in self.runs))
