"""What each ``hopkit`` subcommand does (argument parsing is in ``hopkit.cli``)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from hopkit.config import instantiate, load_llm, load_named, load_yaml
from hopkit.data.corpus import pool_corpus
from hopkit.data.registry import load_dataset
from hopkit.environment import hopkit_home
from hopkit.errors import ConfigError, StoreError
from hopkit.evaluation.llm_judge import AccuracyJudge, JudgeIdentity
from hopkit.judging_runs import choose_judge, judge_run
from hopkit.pipelines.retrieval.base import RetrievalPipeline
from hopkit.report.files import write_report
from hopkit.report.table import comparison_table, to_text
from hopkit.scoring_runs import score_runs, split_scorable
from hopkit.store.connection import DBConnection
from hopkit.store.records import RunInfo
from hopkit.store.store import Store
from hopkit.store.verdicts import VerdictStore
from hopkit.store.transfer import export_runs, import_runs


def _session_factory(args: argparse.Namespace) -> Any:
    return DBConnection.from_config(args.db).get_session_factory()


def cmd_ingest(args: argparse.Namespace) -> int:
    examples = load_dataset(args.dataset, args.path, limit=args.limit, seed=args.seed)
    corpus = pool_corpus(args.name or args.dataset, examples)
    made_stale = Store(_session_factory(args)).add_corpus(corpus, replace=args.replace)
    gold = sum(len(q.gold_paragraph_ids) for q in corpus.queries)
    print(f"ingested {corpus.name}: {len(corpus.queries)} questions, {len(corpus.paragraphs)} paragraphs "
          f"in the pooled corpus, {gold} gold paragraph links")
    if made_stale:
        print(f"{made_stale} earlier run(s) on {corpus.name} ran on the replaced corpus and are now stale: "
              "evaluate and report skip them (`hopkit runs` marks them); rerun their configs to score "
              "them on the new corpus")
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
    for option, value in (("dataset", args.dataset), ("llm", args.llm), ("name", args.name)):
        if value is not None:
            spec[option] = value
    config = instantiate(spec, args.config, kind="pipelines")  # checks _target_ and every option first
    session_factory = _session_factory(args)
    pipeline = config.build(session_factory)
    outcome = pipeline.run(top_k=args.top_k, limit=args.limit, progress=not args.quiet)
    stored_name = Store(session_factory).run(outcome["run_id"]).name
    print(f"run {stored_name} ({outcome['run_id']}): {outcome['total_queries']} questions, "
          f"{outcome['already_done']} already done, {outcome['finished']} answered now, {outcome['failed']} failed")
    if stored_name != pipeline.name:
        print(f"(this configuration was first run as {stored_name!r}, the name it keeps; a run is "
              f"identified by its configuration, so naming it {pipeline.name!r} resumed that run)")
    return _run_exit_code(outcome)


def _run_exit_code(outcome: dict[str, Any]) -> int:
    """1 when every question attempted now failed (nothing answered), else 0; failures are reported.

    Failed questions are stored as failed and a rerun retries them. A run where some
    failed still exits 0 (its answers are usable; a filtered question may fail every
    time), with a warning; one where all failed exits 1, so scripts stop there.
    """
    failed, attempted = outcome["failed"], outcome["failed"] + outcome["finished"]
    if not failed:
        return 0
    cause = f" (first error: {outcome['first_error']})" if outcome.get("first_error") else ""
    if failed == attempted:
        sys.stderr.write(f"hopkit: error: all {failed} question(s) attempted failed{cause}; nothing was answered. "
                         "Fix the cause, then rerun the same command to retry them\n")
        return 1
    sys.stderr.write(f"hopkit: warning: {failed} of {attempted} question(s) attempted failed{cause}; "
                     "they are stored as failed and rerunning the same command retries them\n")
    return 0


def _select_runs(store: Store, names: list[str], dataset: str | None) -> list[RunInfo]:
    if not names:
        runs = store.runs(dataset)
    else:
        found = [run for name in names for run in store.find_runs(name)
                 if dataset is None or run.dataset == dataset]
        runs = list({run.run_id: run for run in found}.values())
    if not runs:
        raise StoreError("no run matches; list them with `hopkit runs`")
    scorable, skipped = split_scorable(runs)
    for skip in skipped:
        print(f"hopkit: skipped: {skip.reason}", file=sys.stderr)
    if not scorable:
        raise StoreError(f"none of the {len(runs)} selected run(s) can be scored (see above)")
    return scorable


def _write_report(summaries: list[Any], out: Path) -> None:
    paths = write_report(summaries, out)
    print(f"wrote {paths[0]}, " + ", ".join(p.name for p in paths[1:-1]) + f" and {paths[-1].name}")


def cmd_judge(args: argparse.Namespace) -> int:
    session_factory = _session_factory(args)
    store = Store(session_factory)
    runs = _select_runs(store, args.runs, None)
    judge = AccuracyJudge(load_llm(args.llm))
    verdicts = VerdictStore(session_factory)
    for run in runs:
        outcome = judge_run(store, verdicts, run, judge, progress=not args.quiet)
        print(f"judged {run.name} ({run.run_id}) with {outcome.judge}: {outcome.answered} answers, "
              f"{outcome.already} judged before, {outcome.judged_now} now, {outcome.unreadable} unreadable verdict(s)")
    print(f"`hopkit evaluate --judge {judge.identity.model_id}` reports their LLM accuracy")
    return 0


def _judge_note(judge: JudgeIdentity | None) -> str:
    if judge is None:
        return "LLM Acc: no LLM judge chosen (judge the runs with `hopkit judge RUN...`; name one with --judge)"
    return (f"LLM Acc: LLM-judged accuracy (the MIGRES paper's Acc\u2020, its Table 15 prompt), judged by {judge}; "
            "an unreadable verdict counts as not correct; - = not every question of the run judged")


def cmd_evaluate(args: argparse.Namespace) -> int:
    session_factory = _session_factory(args)
    store = Store(session_factory)
    runs = _select_runs(store, args.runs, args.dataset)
    verdicts = VerdictStore(session_factory)
    judge = choose_judge(verdicts, [run.run_id for run in runs], getattr(args, "judge", None))
    summaries = score_runs(store, runs, verdicts=verdicts, judge=judge)
    print(to_text(comparison_table(summaries)))
    print(_judge_note(judge))
    if args.out is not None:
        _write_report(summaries, args.out)
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    args = argparse.Namespace(**{**vars(args), "out": args.out or hopkit_home() / "reports"})
    return cmd_evaluate(args)


def cmd_runs(args: argparse.Namespace) -> int:
    runs = Store(_session_factory(args)).runs()
    for run in runs:
        mark = "  STALE (dataset re-ingested since)" if run.stale else ""
        print(f"{run.run_id}  {run.name:<24} {run.method:<8} {run.dataset:<18} "
              f"{run.finished} done, {run.failed} failed  {run.created_at:%Y-%m-%d %H:%M}{mark}")
    if any(run.stale for run in runs):
        print("STALE runs ran on a corpus that was replaced by `ingest --replace`; they are not scored. "
              "Rerun their configs to score them on the current corpus.")
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


def cmd_export(args: argparse.Namespace) -> int:
    store = Store(_session_factory(args))
    runs = [run for name in args.runs for run in store.find_runs(name)]
    written = export_runs(store, list(dict.fromkeys(run.run_id for run in runs)), args.out)
    print(f"wrote {len(runs)} run(s), {written} result(s) to {args.out}")
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    store = Store(_session_factory(args))
    imported = 0
    for path in args.files:
        summary = import_runs(store, path)
        imported += len(summary.runs)
        print(f"{path}: {len(summary.runs)} run(s), {summary.results_added} result(s) added, "
              f"{summary.results_kept} already here kept")
        for skipped in summary.skipped:
            print(f"hopkit: skipped run {skipped.name!r} ({skipped.run_id}): {skipped.reason}", file=sys.stderr)
    return 0 if imported else 1
