"""The paired tables' shared parts: a run's stored results on the first questions, and one paired
comparison's cells (two means, the difference with its 95% interval, won/lost, p) per metric."""

from __future__ import annotations

from typing import Any

from hopkit.evaluation.compare import MetricComparison, PairedComparison
from hopkit.records import Query
from hopkit.store.records import QueryResult
from hopkit.store.store import Store

#: IRCoT's reference run in the paired tables: its reasoning, re-read by the paper's reader (:mod:`hopkit.campaign.rereads`).
REFERENCE_REASONING = "ircot-reasoning-reader"
METRICS = ("em", "f1", "cover_em")  # compare_scores reports them in METRIC_NAMES order, as here
LABELS = {"em": "EM", "f1": "F1", "cover_em": "cover-EM"}


def stored(store: Store, pipeline: Any, dataset: str, limit: int) -> dict[str, Any]:
    """The run's error-free results on the first ``limit`` questions, by question id."""
    first = {q.id for q in store.queries(dataset, limit=limit)}
    return {r.query_id: r for r in store.results(pipeline.run_spec().run_id) if r.query_id in first and r.error is None}


def stored_results(store: Store, run_id: str, queries: dict[str, Query]) -> dict[str, QueryResult]:
    """The run's error-free results on ``queries``, by question id (none when the store has no such run)."""
    known = {run.run_id for run in store.runs()}
    if run_id not in known:
        return {}
    return {r.query_id: r for r in store.results(run_id) if r.error is None and r.query_id in queries}


def comparison_header(first: str, second: str, difference: str) -> list[str]:
    """The column names of :func:`comparison_cells` for each metric."""
    header = []
    for metric in (LABELS[m] for m in METRICS):
        header += [f"{metric} {first}", f"{metric} {second}", f"{metric} {difference} [95%]", "won/lost", "p"]
    return header


def comparison_cells(comparison: PairedComparison) -> list[str]:
    if tuple(m.metric for m in comparison.metrics) != METRICS:
        raise AssertionError(f"expected the metrics {METRICS}, got {[m.metric for m in comparison.metrics]}")
    return [cell for m in comparison.metrics for cell in metric_cells(m)]


def metric_cells(m: MetricComparison) -> list[str]:
    """One metric's two means, paired difference [95% interval], won/lost and p, in percent."""
    d = m.difference
    return [f"{100 * m.mean_a:.1f}", f"{100 * m.mean_b:.1f}",
            f"{100 * d.mean:+.1f} [{100 * d.low:+.1f}, {100 * d.high:+.1f}]", f"{m.won}/{m.lost}", f"{m.p_value:.2f}"]
