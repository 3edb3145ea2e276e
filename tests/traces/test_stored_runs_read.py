"""Every result stored in benchmarks/results/runs reads through its method's payload and summary types:
the typed trace reads the traces of earlier runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from hopkit.methods.registry import entries
from hopkit.store.export_format import read_records, result_line, run_line
from hopkit.traces import Trace

pytestmark = pytest.mark.unit

RUNS = sorted((Path(__file__).resolve().parents[2] / "benchmarks" / "results" / "runs").glob("*.jsonl.gz"))
# Methods whose benchmark runs are not in the repository yet (none now: each method has saved runs).
NOT_RUN_YET: set[str] = set()


@pytest.mark.skipif(not RUNS, reason="no stored runs in benchmarks/results/runs")
def test_every_stored_step_and_summary_reads_through_its_types() -> None:
    read = dict.fromkeys(entries(), 0)
    for path in RUNS:
        methods: dict[str, str] = {}
        for number, record in read_records(path):
            where = f"{path.name}:{number}"
            if "run" in record:
                line = run_line(record["run"], where)
                methods[line.run_id] = line.spec.method.lower()
            elif "result" in record:
                run_id, result = result_line(record["result"], where)
                method = methods[run_id]
                for step in Trace.from_result_trace(result.trace).steps:
                    assert entries()[method].payload(step) is not None, (where, step.kind)
                summary_type = entries()[method].summary_type
                assert summary_type is not None, method
                if result.error is None:
                    summary_type.from_result_trace(result.trace)
                read[method] += 1
    assert all(count for method, count in read.items() if method not in NOT_RUN_YET), read
    assert not any(read[method] for method in NOT_RUN_YET), "runs were saved: take them out of NOT_RUN_YET"
