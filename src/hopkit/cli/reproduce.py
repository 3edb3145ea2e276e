"""``hopkit reproduce TABLE --llm NAME``: a published table's cells run in its setting, hopkit's number beside the
published one.

Each cell (a hopkit config on a benchmark) runs as a ``hopkit sweep`` cell does (:func:`hopkit.cli.sweep.cell_pipeline`),
with the table's retrieval config, top-k and first-N questions, on the stored dataset of the benchmark's name (or the
one ``--dataset-map`` names); it is a run like any other, so the same command resumes it. Then each published number
is printed beside hopkit's with its 95% interval, saying whether it falls outside, and every part of the setting
hopkit did not match (model, corpus, retriever, k, questions) is named, as the leaderboard's column names it.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from hopkit.cli.console import run_log
from hopkit.cli.executor import add_executor_arguments
from hopkit.cli.help_texts import llm_help, retrieval_help
from hopkit.cli.numbers import integer
from hopkit.cli.run import note_own_time, pipeline_config, run_exit_code
from hopkit.cli.store_access import existing_factory
from hopkit.cli.sweep import cell_pipeline
from hopkit.errors import ConfigError, HopkitError
from hopkit.methods.published import published_table, table_names
from hopkit.methods.registry import method_entry
from hopkit.pipelines.assembly import Assembly, refuse_unused_retrieval
from hopkit.report.leaderboard import NAMES
from hopkit.report.published_rows import differences, run_settings
from hopkit.report.table import Column, Table, to_text
from hopkit.reproduction import Cell, dataset_map, ingest_hint, table_cells, verdict
from hopkit.scoring_runs import score_run
from hopkit.store.store import Store
from hopkit.terminal import printable

COLUMNS = (Column("dataset", "dataset", "text"), Column("config", "hopkit config", "text"),
           Column("metric", "metric", "text"), Column("published", "published", "float"),
           Column("hopkit", "hopkit [95%]", "text"), Column("n", "n", "int"),
           Column("verdict", "published number", "text"), Column("row", "published as", "text"))


def add_arguments(reproduce: argparse.ArgumentParser) -> None:
    reproduce.add_argument("table", help="the published table: " + ", ".join(table_names())
                           + " (src/hopkit/methods/*/published.py; docs/standard-setting.md)")
    reproduce.add_argument("--llm", required=True, help=llm_help() + ": the model that answers every cell")
    reproduce.add_argument("--methods", nargs="+", metavar="NAME", help="only these rows: hopkit configs (oner, "
                                                                        "search-r1) or methods")
    reproduce.add_argument("--datasets", nargs="+", metavar="NAME", help="only these benchmarks (hotpotqa, nq...)")
    reproduce.add_argument("--dataset-map", nargs="+", metavar="BENCHMARK=STORED", default=[],
                           help="the stored dataset of a benchmark (default: the stored dataset of the benchmark's "
                                "name, as `hopkit ingest flashrag/NAME` stores it)")
    reproduce.add_argument("--retrieval", help=retrieval_help() + " (default: the table's, e.g. e5-wiki18-flat; "
                                                                  "another is named as a difference)")
    reproduce.add_argument("--first", type=integer(), help="only the first N questions (default: the table's "
                                                           "first N; fewer are named as a difference)")
    reproduce.add_argument("--batch-size", type=integer(), help="questions in flight at once (with a model server)")
    add_executor_arguments(reproduce)
    reproduce.add_argument("--quiet", action="store_true", help="no progress bars")


def _built(args: argparse.Namespace, cells: list[Cell], session_factory: Any) -> list[tuple[Cell, Assembly]]:
    """Each cell's run, built and checked before any question is asked."""
    built = []
    for cell in cells:
        entry = method_entry(cell.method)
        top_k = cell.setting.top_k if entry.retrieves and entry.top_k is not None else None
        options = argparse.Namespace(**{**vars(args), "retrieval": args.retrieval or cell.setting.retrieval})
        spec, source = pipeline_config(cell.run)
        built.append((cell, cell_pipeline(spec, source, cell.stored, options, session_factory, top_k)))
    refuse_unused_retrieval(args.retrieval, [assembly for _, assembly in built], f"table {args.table!r}")
    return built


def cmd_reproduce(args: argparse.Namespace) -> int:
    cells = table_cells(published_table(args.table), args.methods or (), args.datasets or (),
                        dataset_map(args.dataset_map))
    session_factory = existing_factory(args)
    store = Store(session_factory)
    stored = set(store.datasets())
    for cell in cells:
        if cell.stored not in stored:
            print(f"not run: {printable(cell.run)} on {printable(cell.dataset)}: no stored dataset "
                  f"{printable(cell.stored)!r}; store it with {ingest_hint(cell)}")
    ready = [cell for cell in cells if cell.stored in stored]
    if not ready:
        raise ConfigError(f"{args.table}: none of its {len(cells)} cell(s) has its dataset stored (above: how to "
                          "store each)")
    built = _built(args, ready, session_factory)
    print(f"reproduce {printable(args.table)}: {len(built)} cell(s) with {printable(args.llm)}", flush=True)
    rows, notes, codes = [], [], []
    with run_log("reproduce") as log_file:
        for number, (cell, assembly) in enumerate(built, 1):
            top_k = assembly.top_k
            first = args.first or cell.setting.questions.first
            print(f"[{number}/{len(built)}] {printable(cell.run)} on {printable(cell.stored)}: k {top_k or '-'}, "
                  f"first {first or 'all'} question(s)", flush=True)
            try:
                outcome = assembly.run(limit=first, progress=not args.quiet)
            except HopkitError as exc:  # this cell only: the others still run
                sys.stderr.write(f"hopkit: error: {printable(cell.run)} on {printable(cell.stored)}: {exc}\n")
                codes.append(2)
                continue
            note_own_time(outcome)
            codes.append(run_exit_code(outcome, log_file))
            summary, _ = score_run(store, store.run(outcome["run_id"]))
            for published in cell.published:
                estimate = summary.metrics.get(published.metric)
                rows.append((cell.dataset, cell.run, NAMES[published.metric], published.value,
                             "-" if estimate is None else f"{100 * estimate.mean:.1f} [{100 * estimate.low:.1f}, "
                                                          f"{100 * estimate.high:.1f}]", summary.n_questions,
                             "-" if estimate is None else verdict(published.value, estimate),
                             f"{published.row}, {published.setting.model.name}"))
            setting = run_settings([summary], lambda run_id: store.run(run_id).config,
                                   lambda dataset: store.corpus(dataset).corpus_name)[summary.run_id]
            for published_setting in dict.fromkeys(published.setting for published in cell.published):
                differs = differences(published_setting, method_entry(cell.method).retrieves, [setting])
                notes.append(f"{cell.run} on {cell.dataset} ({published_setting.model.name}): "
                             + ("; ".join(differs) if differs else "the published setting in every part compared"))
    if rows:
        print()
        print(to_text(Table(COLUMNS, tuple(rows))), end="")
        print("\nPublished numbers as read from their sources (published.py cites each); hopkit's with its 95% "
              "bootstrap interval. Setting differs from the published one in:")
        print("\n".join(f"- {printable(note)}" for note in notes))
    return max(codes, default=2)
