"""``hopkit sweep``: several pipeline configs over several datasets, into one store, resumable.

Every cell (config × dataset) is checked before the first question is asked, so a wrong
option stops the sweep at once (with ``--paper`` the names are declared experiments, each run with
its paper's settings for each dataset, :mod:`hopkit.pipelines.experiments`); then the cells run one after the other, each a run that
resumes by its configuration. A cell that fails does not stop the others.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from hopkit.cli.numbers import integer
from hopkit.cli.console import run_log
from hopkit.cli.executor import add_executor_arguments, executor_fields
from hopkit.cli.help_texts import llm_help, retrieval_help
from hopkit.cli.run import note_own_time, pipeline_config, run_exit_code
from hopkit.cli.store_access import existing_factory
from hopkit.cli.until_decided import add_arguments as add_until_decided_arguments, pairs_of, run_until_decided
from hopkit.errors import HopkitError
from hopkit.pipelines.experiments import load_experiment
from hopkit.pipelines.assembly import Assembly, Changes, assemble, refuse_unused_retrieval
from hopkit.terminal import printable


def add_arguments(sweep: argparse.ArgumentParser) -> None:
    sweep.add_argument("configs", nargs="+", help="pipeline configs: shipped names, method names or YAML files")
    sweep.add_argument("--datasets", nargs="+", required=True, help="stored datasets")
    sweep.add_argument("--paper", action="store_true",
                       help="the names are methods' declared experiments (nor, ircot, migres, flare, alce-vanilla, "
                            "...: docs/configs.md): each runs with its paper's settings for each dataset, and is left "
                            "out, saying why, where its paper does not run it")
    sweep.add_argument("--llm", help=llm_help() + " (overrides every config's)")
    sweep.add_argument("--retrieval", help=retrieval_help() + " (overrides the config of every method that "
                                                               "retrieves)")
    sweep.add_argument("--limit", type=integer(minimum=0), help="only the first N questions of each dataset")
    sweep.add_argument("--batch-size", type=integer(), help="questions in flight at once (with a model server)")
    add_executor_arguments(sweep)
    sweep.add_argument("--quiet", action="store_true", help="no progress bars")
    add_until_decided_arguments(sweep)


def _cells(args: argparse.Namespace, session_factory: Any) -> list[tuple[str, str, Assembly]]:
    """(config, dataset, assembly) for every cell, each built and checked; with ``--paper`` a cell whose experiment
    is not run on its dataset is left out, saying why."""
    cells = []
    for argument in args.configs:
        for dataset in args.datasets:
            if args.paper:
                experiment = load_experiment(argument, dataset)
                if experiment.skipped is not None:
                    print(f"not run: {printable(argument)} on {printable(dataset)}: {experiment.skipped}")
                    continue
                spec, source = {"experiment": argument, "name": argument}, f"experiment {argument!r}"
            else:
                spec, source = pipeline_config(argument)
            cells.append((argument, dataset, cell_pipeline(spec, source, dataset, args, session_factory)))
    refuse_unused_retrieval(args.retrieval, [assembly for _, _, assembly in cells], "the sweep")
    return cells


def cell_pipeline(spec: dict[str, Any], source: str, dataset: str, args: argparse.Namespace, session_factory: Any,
                  top_k: int | None = None) -> Assembly:
    """One cell's run, built and checked before any question is asked: the config ``spec`` (read from ``source``)
    on ``dataset``, with the command's ``--llm``, ``--batch-size``, ``--retrieval`` (for a method that retrieves)
    and executor options, and ``top_k`` where given (``hopkit reproduce`` runs cells this way too)."""
    changes = Changes(dataset=dataset, llm=args.llm, batch_size=args.batch_size, retrieval=args.retrieval,
                      executor=executor_fields(args), top_k=top_k)
    assembly = assemble(spec, source, lambda: session_factory, changes)
    if assembly.threshold:
        print(f"calibrated threshold: {printable(assembly.threshold)}", flush=True)
    assembly.check()
    return assembly


def cmd_sweep(args: argparse.Namespace) -> int:
    if getattr(args, "until_decided", None):
        pairs_of(args.until_decided, args.configs)  # a wrong pair stops the sweep before anything is built
    session_factory = existing_factory(args)
    cells = _cells(args, session_factory)
    print(f"sweep: {len(args.configs)} config(s) × {len(args.datasets)} dataset(s) = {len(cells)} run(s)", flush=True)
    rows: list[tuple[str, ...]] = []
    with run_log("sweep") as log_file:
        def run_cell(config: str, dataset: str, assembly: Assembly, limit: int | None) -> int:
            try:
                outcome = assembly.run(limit=limit, progress=not args.quiet)
            except HopkitError as exc:  # this cell only: the others still run
                sys.stderr.write(f"hopkit: error: {printable(config)} on {printable(dataset)}: {exc}\n")
                rows.append((config, dataset, "-", "-", "-", "-", "error"))
                return 2
            note_own_time(outcome)
            code = run_exit_code(outcome, log_file)
            rows.append((config, dataset, outcome["run_id"], str(outcome["already_done"] + outcome["finished"]),
                         str(outcome["finished"]), str(outcome["failed"]), "ok" if code == 0 else "no answers"))
            return code

        if getattr(args, "until_decided", None):
            return run_until_decided(args, cells, session_factory, run_cell)
        codes = []
        for number, (config, dataset, assembly) in enumerate(cells, 1):
            print(f"[{number}/{len(cells)}] {printable(config)} on {printable(dataset)}", flush=True)
            codes.append(run_cell(config, dataset, assembly, args.limit))
    _print_table(rows)
    return max(codes, default=0)


def _print_table(rows: list[tuple[str, ...]]) -> None:
    header = ("config", "dataset", "run", "answered", "now", "failed", "status")
    widths = [max(len(printable(str(row[i]))) for row in (header, *rows)) for i in range(len(header))]
    for row in (header, *rows):
        print("  ".join(printable(str(cell)).ljust(width) for cell, width in zip(row, widths)).rstrip())
