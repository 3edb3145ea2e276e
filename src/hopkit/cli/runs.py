"""``hopkit runs``, ``hopkit datasets`` and ``hopkit delete``: what the store holds."""

from __future__ import annotations

import argparse

from hopkit.cli.store_access import existing_factory, find_runs, reading_factory, runs_hint
from hopkit.store.store import Store
from hopkit.terminal import printable


def add_delete_arguments(delete: argparse.ArgumentParser) -> None:
    delete.add_argument("runs", nargs="+", help="run names, ids or id prefixes (every run a name matches)")


def cmd_runs(args: argparse.Namespace) -> int:
    store = Store(reading_factory(args))
    runs = store.runs()
    if not runs:
        print(f"no runs stored yet; {runs_hint(store)}")
        return 0
    print(f"{'id':<16}  {'name':<24} {'method':<9} {'dataset':<18} {'results':<22} created (UTC)")
    for run in runs:
        mark = "  STALE (dataset re-ingested since)" if run.stale else ""
        results = f"{run.finished} done, {run.failed} failed"
        print(f"{run.run_id}  {printable(run.name):<24} {printable(run.method):<9} {printable(run.dataset):<18} "
              f"{results:<22} {run.created_at:%Y-%m-%d %H:%M}{mark}")
    if any(run.stale for run in runs):
        print("STALE runs ran on a corpus that was replaced by `ingest --replace`; they are not scored. "
              "Rerun their configs to score them on the current corpus.")
    return 0


def cmd_datasets(args: argparse.Namespace) -> int:
    store = Store(reading_factory(args))
    names = store.datasets()
    if not names:
        print(f"no datasets stored yet in {store.location}; ingest one with `hopkit ingest FORMAT PATH` "
              "(another store: --db URL or $HOPKIT_DB_URL)")
    for name in names:
        print(f"{printable(name)}: {len(store.queries(name))} questions, {len(store.corpus(name))} paragraphs")
    return 0


def cmd_delete(args: argparse.Namespace) -> int:
    store = Store(existing_factory(args))
    runs = list({run.run_id: run for name in args.runs for run in find_runs(store, name)}.values())
    for run in runs:
        deleted = store.delete_run(run.run_id)
        print(f"deleted run {printable(run.name)} ({run.run_id}) on {printable(run.dataset)} and its "
              f"{deleted} result(s) and verdicts")
    return 0
