"""Every result stored in benchmarks/results/runs reads through its method's payload and summary types:
the typed trace reads the traces of earlier runs.

The methods are the registry's, each checked on the saved runs of it; a registered method with no saved
run yet is skipped, saying so (no hand-kept list of them)."""

from __future__ import annotations

import functools
from pathlib import Path

import pytest

from hopkit.methods.registry import entries
from hopkit.store.export_format import read_records, result_line, run_line
from hopkit.store.records import QueryResult
from hopkit.traces import Trace

pytestmark = pytest.mark.unit

RUNS = sorted((Path(__file__).resolve().parents[2] / "benchmarks" / "results" / "runs").glob("*.jsonl.gz"))


@functools.cache
def saved_results() -> dict[str, list[tuple[str, QueryResult]]]:
    """The saved results of each method (by its registry name), each with where it was read."""
    by_method: dict[str, list[tuple[str, QueryResult]]] = {}
    for path in RUNS:
        methods: dict[str, str] = {}
        for number, record in read_records(path):
            where = f"{path.name}:{number}"
            if "run" in record:
                line = run_line(record["run"], where)
                methods[line.run_id] = line.spec.method.lower()
            elif "result" in record:
                run_id, result = result_line(record["result"], where)
                by_method.setdefault(methods[run_id], []).append((where, result))
    return by_method


@pytest.mark.skipif(not RUNS, reason="no stored runs in benchmarks/results/runs")
def test_every_saved_run_is_of_a_registered_method() -> None:
    assert saved_results() and set(saved_results()) <= set(entries()), sorted(set(saved_results()) - set(entries()))


@pytest.mark.skipif(not RUNS, reason="no stored runs in benchmarks/results/runs")
@pytest.mark.parametrize("method", sorted(entries()))
def test_every_stored_step_and_summary_reads_through_its_types(method: str) -> None:
    results = saved_results().get(method, [])
    if not results:
        pytest.skip(f"no saved run of {method} in benchmarks/results/runs yet")
    entry = entries()[method]
    summary_type = entry.summary_type
    assert summary_type is not None, method
    for where, result in results:
        for step in Trace.from_result_trace(result.trace).steps:
            assert entry.payload(step) is not None, (where, step.kind)
        if result.error is None:
            summary_type.from_result_trace(result.trace)
