"""Gather what the HTML report shows from a store: results, questions and the paragraphs they name."""

from __future__ import annotations

from typing import Any, Iterator, Mapping, Sequence

from hopkit.evaluation.aggregate import RunSummary
from hopkit.evaluation.scoring import QuestionScores
from hopkit.records import Paragraph, Query
from hopkit.report.html.model import HtmlReportInput, HtmlRun
from hopkit.report.table import run_labels
from hopkit.store.records import QueryResult
from hopkit.store.store import Store

__all__ = ["collect_report", "referenced_paragraph_ids"]

# Keys under which a trace names paragraphs (the typed trace's fields and the methods' outcomes).
_ID_KEYS = frozenset({"paragraph_id", "paragraph_ids", "kept"})


def _ints(value: Any) -> Iterator[int]:
    if isinstance(value, int) and not isinstance(value, bool):
        yield value
    elif isinstance(value, list):
        for item in value:
            if isinstance(item, int) and not isinstance(item, bool):
                yield item


def _walk(value: Any) -> Iterator[int]:
    if isinstance(value, dict):
        for key, item in value.items():
            if key in _ID_KEYS:
                yield from _ints(item)
            yield from _walk(item)
    elif isinstance(value, list):
        for item in value:
            yield from _walk(item)


def referenced_paragraph_ids(result: QueryResult) -> set[int]:
    """Every paragraph id a result names: its collected paragraphs and those its trace mentions.

    Args:
        result: a stored result.

    Returns:
        The ids (``paragraph_id``, ``paragraph_ids`` and IRCoT's ``kept`` anywhere in the trace).
    """
    return set(result.chunk_ids) | set(_walk(dict(result.trace)))


def collect_report(store: Store, summaries: Sequence[RunSummary],
                   scores: Mapping[str, Sequence[QuestionScores]]) -> HtmlReportInput:
    """Read from ``store`` what the HTML report of ``summaries`` shows.

    Args:
        store: the store holding the runs.
        summaries: the runs, in table order.
        scores: per-question scores by run id (a run missing here shows no per-question scores).

    Returns:
        The report's input: each run's results, the questions they answered and every paragraph
        their gold or traces name.

    Raises:
        StoreError: a run or its dataset is unknown, or a trace names a paragraph its corpus lacks.
    """
    runs: list[HtmlRun] = []
    for summary, label in zip(summaries, run_labels(summaries)):
        results = {result.query_id: result for result in store.results(summary.run_id)}
        by_id = {s.query_id: s for s in scores.get(summary.run_id, ())}
        runs.append(HtmlRun(summary, by_id, results, label))
    questions: dict[str, list[Query]] = {}
    paragraphs: dict[str, dict[int, Paragraph]] = {}
    for dataset in dict.fromkeys(s.dataset for s in summaries):
        on_it = [run for run in runs if run.summary.dataset == dataset]
        answered = {qid for run in on_it for qid in run.results}
        asked = [q for q in store.queries(dataset) if q.id in answered]
        wanted: set[int] = {pid for q in asked for pid in q.gold_paragraph_ids}
        for run in on_it:
            for result in run.results.values():
                wanted |= referenced_paragraph_ids(result)
        questions[dataset] = asked
        paragraphs[dataset] = {p.id: p for p in store.paragraphs_by_ids(dataset, sorted(wanted))}
    return HtmlReportInput(runs, questions, paragraphs)
