"""Benchmark runs kept in the repository, so that a fresh clone resumes them.

A benchmark's store (``.hopkit-bench/``) is not committed: it holds the pooled corpora,
which come from the shared samples and stay out of the project. The runs' results are
committed instead, one ``hopkit export`` file per run in ``benchmarks/results/runs/``
(results, traces and usage; no corpus). Each benchmark restores them into its store
right after ingesting a dataset, and saves a run's file when the run stops, so hours of
model time survive a new machine. By hand::

    .venv/bin/python -m benchmarks.saved_runs            # save every run of the bench store
    hopkit --db sqlite:///.hopkit-bench/hopkit.db import benchmarks/results/runs/*.jsonl.gz
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from hopkit.store.connection import DBConnection
from hopkit.store.store import Store
from hopkit.store.transfer import export_runs, import_runs

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"
RUNS = RESULTS / "runs"
BENCH_HOME = ROOT / ".hopkit-bench"


def restore(store: Store, dataset: str) -> int:
    """Import the saved runs on ``dataset`` into ``store``; returns how many results were added."""
    added = 0
    for path in sorted(RUNS.glob("*.jsonl.gz")):
        summary = import_runs(store, path, datasets=[dataset])
        added += summary.results_added
        for skipped in summary.skipped:
            print(f"saved run {skipped.name} ({skipped.run_id}) not restored: {skipped.reason}")
    return added


def save(store: Store, run_id: str) -> Path:
    """Write ``run_id``'s results to its file in ``benchmarks/results/runs/``."""
    path = RUNS / f"{run_id}.jsonl.gz"
    export_runs(store, [run_id], path)
    return path


def main() -> int:
    parser = argparse.ArgumentParser(description="Save every run of a benchmark store to benchmarks/results/runs/")
    parser.add_argument("--db", default=None, help="default: the sqlite file in .hopkit-bench")
    args = parser.parse_args()
    os.environ.setdefault("HOPKIT_HOME", str(BENCH_HOME))
    store = Store(DBConnection.from_config(args.db).get_session_factory())
    for run in store.runs():
        if run.finished or run.failed:
            print(f"{save(store, run.run_id)}: {run.name} on {run.dataset}, {run.finished} answered")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
