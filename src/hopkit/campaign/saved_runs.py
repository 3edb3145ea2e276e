"""Benchmark runs kept in the repository, so that a fresh clone resumes them.

A benchmark's store (``.hopkit-bench/``) is not committed: it holds the pooled corpora,
which come from the shared samples and stay out of the project. The runs' results are
committed instead, one ``hopkit export`` file per run in ``benchmarks/results/runs/``
(results, traces, usage and verdicts; no corpus). Each benchmark restores them into its
store right after ingesting a dataset, and saves a run's file when the run stops, so
hours of model time survive a new machine. Only the bench store's runs are saved: a smoke
test in another store (``HOPKIT_HOME`` or ``--db`` elsewhere) leaves the repository alone.
By hand::

    .venv/bin/hopkit campaign save-runs            # save every run of the bench store
    hopkit --db sqlite:///.hopkit-bench/hopkit.db import benchmarks/results/runs/*.jsonl.gz
"""

from __future__ import annotations

import argparse
from pathlib import Path

from hopkit.campaign.environment import BENCH_STORE, RUNS
from hopkit.campaign.retired_runs import retired_run_ids
from hopkit.store.connection import DBConnection
from hopkit.store.store import Store
from hopkit.store.transfer import export_runs, import_runs


def is_bench_store(store: Store) -> bool:
    """Whether ``store`` is the benchmarks' own SQLite file, whose runs the repository keeps."""
    prefix = "sqlite:///"
    location = store.location
    bench_file = BENCH_STORE.resolve()
    return location.startswith(prefix) and Path(location[len(prefix):]).resolve() == bench_file


def open_bench_store() -> Store:
    """The benchmarks' own store, ``.hopkit-bench/hopkit.db``."""
    return Store(DBConnection(f"sqlite:///{BENCH_STORE}").get_session_factory())


def saved_run_files(runs: Path = RUNS) -> list[Path]:
    """The saved runs' files in the order to restore them: the retired runs first, so that a store's newest run of a
    cell (the one ``hopkit claims`` reads) is its rerun, as it was when both were made."""
    retired = retired_run_ids()
    return sorted(runs.glob("*.jsonl.gz"), key=lambda path: (path.name.removesuffix(".jsonl.gz") not in retired,
                                                             path.name))


def restore(store: Store, dataset: str) -> int:
    """Import the saved runs on ``dataset`` into the bench store; returns how many results were added."""
    added = 0
    if not is_bench_store(store):
        return added
    for path in saved_run_files():
        summary = import_runs(store, path, datasets=[dataset])
        added += summary.results_added
        for skipped in summary.skipped:
            print(f"saved run {skipped.name} ({skipped.run_id}) not restored: {skipped.reason}")
    return added


def save(store: Store, run_id: str) -> Path | None:
    """Write ``run_id``'s results to its file in ``benchmarks/results/runs/`` (None: not the
    bench store, nothing written)."""
    if not is_bench_store(store):
        return None
    path = RUNS / f"{run_id}.jsonl.gz"
    export_runs(store, [run_id], path)
    return path


def main(argv: list[str] | None = None) -> int:
    argparse.ArgumentParser(description="Save every run of the bench store (.hopkit-bench) to "
                                        "benchmarks/results/runs/").parse_args(argv)
    store = open_bench_store()
    for run in store.runs():
        if run.finished or run.failed:
            print(f"{save(store, run.run_id)}: {run.name} on {run.dataset}, {run.finished} answered")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
