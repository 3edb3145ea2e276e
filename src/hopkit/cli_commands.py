"""What each ``hopkit`` subcommand does (argument parsing is in ``hopkit.cli``)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from hopkit.config import instantiate, load_named, load_yaml
from hopkit.data.corpus import pool_corpus
from hopkit.data.registry import load_dataset
from hopkit.errors import ConfigError, StoreError
from hopkit.paths import hopkit_home
from hopkit.pipelines.retrieval.base import RetrievalPipeline
from hopkit.report.plot import plot_comparison, plot_time_split
from hopkit.report.table import comparison_table, to_csv, to_markdown, to_text
from hopkit.scoring_runs import score_runs
from hopkit.store.connection import DBConnection
from hopkit.store.records import RunInfo
from hopkit.store.store import Store


def _session_factory(args: argparse.Namespace) -> Any:
    return DBConnection.from_config(args.db).get_session_factory()


def cmd_ingest(args: argparse.Namespace) -> int:
    examples = load_dataset(args.dataset, args.path, limit=args.limit, seed=args.seed)
    corpus = pool_corpus(args.name or args.dataset, examples)
    Store(_session_factory(args)).add_corpus(corpus, replace=args.replace)
    gold = sum(len(q.gold_paragraph_ids) for q in corpus.queries)
    print(f"ingested {corpus.name}: {len(corpus.queries)} questions, {len(corpus.paragraphs)} paragraphs "
          f"in the pooled corpus, {gold} gold paragraph links")
    return 0


def cmd_index(args: argparse.Namespace) -> int:
    pipeline = load_named("retrieval", args.retrieval, session_factory=_session_factory(args))
    if not isinstance(pipeline, RetrievalPipeline):
        raise ConfigError(f"retrieval config {args.retrieval!r} does not build a retrieval pipeline")
    pipeline.retriever(args.dataset)
    print(f"index {args.retrieval} ready")
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    spec = load_yaml(args.config)
    for option, value in (("dataset", args.dataset), ("llm", args.llm)):
        if value is not None:
            spec[option] = value
    config = instantiate(spec, args.config)
    if not hasattr(config, "build"):
        raise ConfigError(f"{args.config}: field '_target_' must name a pipeline config class with build()")
    pipeline = config.build(_session_factory(args))
    outcome = pipeline.run(top_k=args.top_k, limit=args.limit, progress=not args.quiet)
    print(f"run {pipeline.name} ({outcome['run_id']}): {outcome['total_queries']} questions, "
          f"{outcome['already_done']} already done, {outcome['finished']} answered now, {outcome['failed']} failed")
    return 0


def _select_runs(store: Store, names: list[str], dataset: str | None) -> list[RunInfo]:
    if not names:
        runs = store.runs(dataset)
    else:
        runs = [run for name in names for run in store.find_runs(name)
                if dataset is None or run.dataset == dataset]
    if not runs:
        raise StoreError("no run matches; list them with `hopkit runs`")
    return runs


def _write_report(summaries: list[Any], out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    table = comparison_table(summaries)
    (out / "comparison.md").write_text(to_markdown(table), encoding="utf-8")
    to_csv(table, out / "comparison.csv")
    plot_comparison(summaries, out / "comparison.png")
    plot_time_split(summaries, out / "time_split.png")
    print(f"wrote {out / 'comparison.md'}, comparison.csv, comparison.png and time_split.png")


def cmd_evaluate(args: argparse.Namespace) -> int:
    store = Store(_session_factory(args))
    summaries = score_runs(store, _select_runs(store, args.runs, args.dataset))
    print(to_text(comparison_table(summaries)))
    if args.out is not None:
        _write_report(summaries, args.out)
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    args = argparse.Namespace(**{**vars(args), "out": args.out or hopkit_home() / "reports"})
    return cmd_evaluate(args)


def cmd_runs(args: argparse.Namespace) -> int:
    for run in Store(_session_factory(args)).runs():
        print(f"{run.run_id}  {run.name:<24} {run.method:<8} {run.dataset:<18} "
              f"{run.finished} done, {run.failed} failed  {run.created_at:%Y-%m-%d %H:%M}")
    return 0


def cmd_datasets(args: argparse.Namespace) -> int:
    store = Store(_session_factory(args))
    for name in store.datasets():
        print(f"{name}: {len(store.queries(name))} questions, {len(store.paragraphs(name))} paragraphs")
    return 0


def cmd_quickstart(args: argparse.Namespace) -> int:
    from hopkit.quickstart.run import run_quickstart

    out = args.out or hopkit_home() / "reports" / "quickstart"
    summaries = run_quickstart(_session_factory(args), llm=args.llm, limit=args.limit)
    print(to_text(comparison_table(summaries)))
    _write_report(summaries, out)
    return 0
