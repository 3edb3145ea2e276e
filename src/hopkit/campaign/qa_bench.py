"""QA benchmark: the campaign's method variants on the samples, answer and retrieval quality and cost.

Runs each method on the pooled corpus of each sample (BM25), stores every question as
it finishes (rerun the same command to resume), then writes the comparison table,
the time split and two plots into ``--out`` (default .hopkit-bench/sections); with
``--write-repository`` into docs/notebook.md and docs/img/ instead, and each run is also
saved into benchmarks/results/runs. Without it the repository is left as it was, whatever
store and data folder the command is pointed at.

    HOPKIT_DATA_DIR=../shared/data .venv/bin/hopkit campaign run \\
        --datasets hotpotqa 2wikimultihopqa musique --methods nor oner --limit 100 --write-repository

MIGRES and SearChain need their thresholds calibrated first (benchmarks/thresholds.json,
written by hopkit campaign calibrate-migres and hopkit campaign calibrate-searchain); the
benchmark refuses to start them otherwise and prints the command that calibrates them.
"""

from __future__ import annotations

import argparse
import os
import textwrap
import time
from typing import Any
from pathlib import Path

from hopkit.campaign.page_sections import command_line, write_section
from hopkit.campaign.bench_store import add_store_options, open_bench_store
from hopkit.campaign.environment import DOCS_IMG, NOTEBOOK_MD
from hopkit.campaign.method_models import MethodModels
from hopkit.campaign.qa_section import Cell, nothing_scored, score_section, section_body
from hopkit.campaign.qa_pipelines import METHODS, SKIPPED, YES_NO, check_calibrated, pipeline_for
from hopkit.campaign.qa_until_decided import MEMBERS, pair_tracks, section_limits
from hopkit.campaign.saved_runs import restore, save
from hopkit.campaign.thresholds import THRESHOLDS_FILE
from hopkit.campaign.variants import load_variant
from hopkit.cli.help_texts import KEEP_FAILED_HELP
from hopkit.cli.numbers import integer
from hopkit.cli.until_decided import add_arguments as add_until_decided_arguments
from hopkit.config import load_llm
from hopkit.data.corpus import pool_corpus
from hopkit.data.registry import load_dataset, sample_path
from hopkit.pipelines.base import GenerationPipeline
from hopkit.store.store import Store

STRATEGYQA_NOTE = ("On StrategyQA (gold answers \"yes\"/\"no\"): NoR and OneR read zero-shot with a yes/no "
                   "instruction, at most 8 tokens (the IRCoT authors have no StrategyQA demonstrations); "
                   "ITER-RETGEN's three demonstrations are sample questions past the first 30, written as chains "
                   "from their annotated facts; FLARE takes the authors' StrategyQA exemplars and settings; IRCoT "
                   "and the original ReAct are not run.")


def ingest(store: Store, dataset: str) -> None:
    """Store the dataset's pooled corpus (once), then the runs on it saved in the repository."""
    if dataset not in store.datasets():
        store.add_corpus(pool_corpus(dataset, load_dataset(dataset, sample_path(dataset))))
    restore(store, dataset)


def run_and_save(store: Store, pipeline: GenerationPipeline, limit: int, into_repository: bool = True,
                 keep_failed: bool = False) -> str:
    """Run (or resume) ``pipeline`` on the first ``limit`` questions; with ``into_repository``, save its results
    to the repository however the run ends; ``keep_failed`` as for :meth:`GenerationPipeline.run`. Returns the
    run id."""
    run_id = pipeline.run_spec().run_id
    try:
        pipeline.run(limit=limit, keep_failed=keep_failed)
    finally:
        if into_repository and any(run.run_id == run_id for run in store.runs()):
            save(store, run_id)
    return run_id


def command_parser() -> argparse.ArgumentParser:
    """The command line (hopkit campaign sections reads each section's command with it)."""
    description = (f"{__doc__.splitlines()[0]} Rerun the same command to resume. The variants (--methods), each a "
                   f"file of src/hopkit/campaign/variants/ or a declared experiment: {', '.join(METHODS)}.")
    parser = argparse.ArgumentParser(prog="hopkit campaign run", formatter_class=argparse.RawDescriptionHelpFormatter,
                                     description=textwrap.fill(description, 79, break_on_hyphens=False))
    parser.add_argument("--datasets", nargs="+", default=["hotpotqa", "2wikimultihopqa", "musique"],
                        help="the samples to run on (default: hotpotqa 2wikimultihopqa musique)")
    parser.add_argument("--methods", nargs="+", default=["nor", "oner"], choices=METHODS, metavar="VARIANT",
                        help="the variants to run, listed above (default: nor oner)")
    parser.add_argument("--limit", type=integer(minimum=1), default=100,
                        help="the first N questions of each sample (with --until-decided: the most a pair asks; "
                             "default 100)")
    add_store_options(parser)
    parser.add_argument("--section", default="qa", help="section of docs/notebook.md to write")
    parser.add_argument("--write-repository", action="store_true",
                        help="write the section into docs/notebook.md (its plots into docs/img) and save the runs "
                             "into benchmarks/results/runs; without it the section and plots go to --out and the runs "
                             "stay in the store, so benchmarking other questions leaves the repository as it was")
    parser.add_argument("--out", type=Path, default=Path(".hopkit-bench") / "sections",
                        help="where the section and its plots go without --write-repository (default "
                             ".hopkit-bench/sections)")
    parser.add_argument("--report-only", action="store_true",
                        help="score what is stored, run nothing (exit 1 when no stored run answered the section's "
                             "questions)")
    parser.add_argument("--keep-failed", action="store_true", help=KEEP_FAILED_HELP)
    parser.add_argument("--thresholds", type=Path, default=THRESHOLDS_FILE,
                        help="the calibrated thresholds of MIGRES and SearChain (default: benchmarks/thresholds.json)")
    add_until_decided_arguments(parser, MEMBERS)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = command_parser().parse_args(argv)
    uncalibrated = check_calibrated(args.methods, args.datasets, args.llm, args.thresholds)
    if uncalibrated:
        raise SystemExit("\n".join(uncalibrated))
    if args.until_decided:
        pair_tracks(args, [])  # a wrong pair stops the campaign before a model is loaded
    session_factory, store = open_bench_store(args)
    models = MethodModels(args.llm, load_llm)  # also for --report-only: the run ids depend on the loaded model
    cells: list[Cell] = []
    pipelines: dict[tuple[str, str], GenerationPipeline] = {}
    retrievers: set[str] = set()
    twins: dict[str, set[str]] = {}  # another model config than --llm -> the variants that answered with it
    started = time.time()
    for dataset in args.datasets:
        ingest(store, dataset)
        for method in args.methods:
            if (method, dataset) in SKIPPED:
                print(f"not run: {method} on {dataset}: {SKIPPED[method, dataset]}")
                continue
            llm_name = models.name_for(method, dataset)
            if llm_name != args.llm:
                twins.setdefault(llm_name, set()).add(method)
            pipeline = models.pipeline(method, dataset, session_factory, thresholds=args.thresholds)
            run_id = (pipeline.run_spec().run_id if args.report_only or args.until_decided
                      else run_and_save(store, pipeline, args.limit, args.write_repository, args.keep_failed))
            retrievers.add(retriever_label(pipeline))
            cells.append(Cell(method, dataset, run_id))
            pipelines[method, dataset] = pipeline

    def ask(method: str, dataset: str, limit: int) -> int:
        run_and_save(store, pipelines[method, dataset], limit, args.write_repository, args.keep_failed)
        return 0

    limit, opening = section_limits(store, args, cells, None if args.report_only else ask)
    scored = score_section(store, cells, args.datasets, limit)
    if not scored.summaries:
        raise SystemExit(nothing_scored(args.section, scored.missing, args.report_only))
    command = command_line()
    img_dir = DOCS_IMG if args.write_repository else args.out / "img"
    img_dir.mkdir(parents=True, exist_ok=True)
    target = NOTEBOOK_MD if args.write_repository else args.out / f"{args.section}.md"
    write_section(args.section, "\n\n".join([
        f"## QA: {', '.join(args.methods)} with {args.llm}"
        + "".join(f" ({', '.join(sorted(variants))} with {name}, the same model file through the transformers backend)"
                  for name, variants in sorted(twins.items()))
        + f" ({', '.join(sorted(retrievers - {''}))}, pooled sample corpora, "
        + (f"questions until decided, at most {args.limit} of each sample)" if args.until_decided
           else f"first {args.limit} questions of each sample)"),
        f"Command: `{command}`  \nMachine: {os.cpu_count()} cores, no GPU. "
        + ("Table rebuilt from the stored results (`--report-only`); s/q is what the runs took. "
           if args.report_only else
           f"Wall time of the last invocation: {time.time() - started:.0f} s (finished questions are "
           "resumed, not redone). ")
        + ("Demonstrations: the IRCoT authors' files of the dataset (M=2 distractors, codex).\n\n"
           if uses_demonstrations(args.methods, args.datasets) else "\n\n")
        + "\n".join(f"- {described(method, args.datasets)}" for method in args.methods)
        + (f"\n\n{STRATEGYQA_NOTE}" if YES_NO in args.datasets else ""),
        *opening, *section_body(session_factory, store, scored, args.section, img_dir),
    ]), target)
    print(f"wrote the section {args.section} to {target}, its plots to {img_dir}"
          + ("" if args.write_repository else " (--write-repository writes docs/notebook.md and saves the runs)"))
    return 0


def uses_demonstrations(methods: list[str], datasets: list[str]) -> bool:
    """Whether any of the methods reads the IRCoT authors' demonstrations on any of the datasets."""
    return any(isinstance(load_variant(method, dataset).config.get("demonstrations"), dict)
               for method in methods for dataset in datasets if (method, dataset) not in SKIPPED)


def described(method: str, datasets: list[str]) -> str:
    """The variant's description on the first dataset it runs on, and where another runs it otherwise, that one's."""
    run_on = [dataset for dataset in datasets if (method, dataset) not in SKIPPED] or list(datasets)
    first = load_variant(method, run_on[0]).description
    others = {dataset: load_variant(method, dataset).description for dataset in run_on[1:]}
    return "; ".join([first, *(f"on {dataset}: {text}" for dataset, text in others.items() if text != first)])


def retriever_label(pipeline: Any) -> str:
    """``BM25``, ``dense (EMBEDDER)`` or ``hybrid (EMBEDDER)`` for a pipeline that retrieves; ``''`` otherwise."""
    retrieval = pipeline.retrieval_pipeline
    if retrieval is None:
        return ""
    embedder = retrieval.options.get("embedder")
    return "BM25" if retrieval.kind == "bm25" else f"{retrieval.kind} ({embedder})"


if __name__ == "__main__":
    raise SystemExit(main())
