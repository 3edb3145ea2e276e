"""``hopkit export`` and ``hopkit import``: runs and their results to and from a file."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from hopkit.cli.store_access import reading_factory, session_factory
from hopkit.store.store import Store
from hopkit.store.transfer import export_runs, import_runs
from hopkit.terminal import printable


def add_export_arguments(export: argparse.ArgumentParser) -> None:
    export.add_argument("runs", nargs="+", help="run names or ids")
    export.add_argument("--out", type=Path, required=True, help="the file (JSON Lines; gzip if it ends in .gz)")


def add_import_arguments(imported: argparse.ArgumentParser) -> None:
    imported.add_argument("files", nargs="+", type=Path, help="files written by `hopkit export`")


def cmd_export(args: argparse.Namespace) -> int:
    store = Store(reading_factory(args))
    runs = [run for name in args.runs for run in store.find_runs(name)]
    written = export_runs(store, list(dict.fromkeys(run.run_id for run in runs)), args.out)
    print(f"wrote {len(runs)} run(s), {written} result(s) to {args.out}")
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    store = Store(session_factory(args))
    imported = 0
    cut_off = False
    for path in args.files:
        summary = import_runs(store, path)
        imported += len(summary.runs)
        print(f"{path}: {len(summary.runs)} run(s), {summary.results_added} result(s) added, "
              f"{summary.results_kept} already here kept, {summary.verdicts_added} verdict(s) added")
        for skipped in summary.skipped:
            print(f"hopkit: skipped run {printable(repr(skipped.name))} ({skipped.run_id}): {printable(skipped.reason)}",
                  file=sys.stderr)
        if summary.truncated_after is not None:
            cut_off = True
            names = ", ".join(f"{printable(repr(name))} ({run_id})"
                              for name, run_id in zip(summary.run_names, summary.runs)) or "none"
            print(f"hopkit: error: {path} stops after line {summary.truncated_after} (cut off while written or "
                  f"copied); imported what it holds up to there, of runs: {names}. The last of them may lack "
                  "results: export the runs again and import the new file (what is here is kept)", file=sys.stderr)
    return 1 if cut_off or not imported else 0
