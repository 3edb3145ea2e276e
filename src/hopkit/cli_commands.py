"""What each ``hopkit`` subcommand does (argument parsing is in ``hopkit.cli``)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from hopkit.cli_calibrate import cmd_calibrate
from hopkit.cli_claims import cmd_claims  # noqa: F401 (main finds commands here by name)
from hopkit.cli_index import cmd_index  # noqa: F401 (main finds commands here by name)
from hopkit.cli_logging import run_log
from hopkit.cli_run import cmd_run, named
from hopkit.cli_store import reading_factory
from hopkit.cli_sweep import cmd_sweep
from hopkit.config import load_llm, load_named
from hopkit.data.corpus import pool_corpus
from hopkit.data.corpus_file import corpus_files, read_corpus
from hopkit.data.registry import load_dataset
from hopkit.environment import hopkit_home
from hopkit.errors import ComparisonError, ConfigError, StoreError
from hopkit.evaluation.compare import compare_scores
from hopkit.evaluation.scoring import QuestionScores
from hopkit.evaluation.llm_judge import AccuracyJudge, JudgeIdentity
from hopkit.judging_runs import choose_judge, judge_run
from hopkit.pipelines.retrieval.base import RetrievalPipeline
from hopkit.report.files import REPORT_FILES, write_report
from hopkit.report.html import collect_report
from hopkit.report.paired import ComparedPair, paired_notes, paired_table, verdict_sentence
from hopkit.report.table import compact, comparison_table, metric_header, run_labels, to_text
from hopkit.scoring_runs import score_run, score_runs, split_scorable
from hopkit.store.connection import DBConnection
from hopkit.store.records import RunInfo
from hopkit.store.store import Store
from hopkit.store.verdicts import VerdictStore
from hopkit.store.transfer import export_runs, import_runs
from hopkit.terminal import lookalike_warnings, printable


__all__ = ["cmd_calibrate", "cmd_run", "cmd_sweep"]  # the others are found by name: cmd_<subcommand>


def _session_factory(args: argparse.Namespace) -> Any:
    return DBConnection.from_config(args.db).get_session_factory()


def cmd_ingest(args: argparse.Namespace) -> int:
    named("--name", args.name)
    examples = load_dataset(args.dataset, args.path, limit=args.limit, seed=args.seed)
    corpus = pool_corpus(args.name or args.dataset, examples)
    more = read_corpus(corpus_files(args.corpus)) if args.corpus else ()
    store = Store(_session_factory(args))
    for warning in lookalike_warnings("dataset", corpus.name, store.datasets()):
        print(f"hopkit: warning: {warning}; they are two datasets", file=sys.stderr)
    made_stale = store.add_corpus(corpus, replace=args.replace, more=more)
    gold = sum(len(q.gold_paragraph_ids) for q in corpus.queries)
    added = f" and {len(store.corpus(corpus.name)) - len(corpus.paragraphs)} from --corpus" if args.corpus else ""
    print(f"ingested {printable(corpus.name)}: {len(corpus.queries)} questions, {len(corpus.paragraphs)} paragraphs "
          f"in the pooled corpus{added}, {gold} gold paragraph links")
    if made_stale:
        print(f"{made_stale} earlier run(s) on {corpus.name} ran on the replaced corpus and are now stale: "
              "evaluate and report skip them (`hopkit runs` marks them); rerun their configs to score "
              "them on the new corpus")
    return 0


def _runs_hint(store: Store) -> str:
    """Where runs are looked up, and where the benchmark scripts keep theirs."""
    return (f"runs are looked up in {store.location} (another store: --db URL or $HOPKIT_DB_URL); "
            "the benchmark scripts (benchmarks/*.py) keep theirs in a store of their own, by default "
            ".hopkit-bench/hopkit.db in the hopkit repository, else the URL given to their --db "
            "(from the repository root: --db sqlite:///.hopkit-bench/hopkit.db), and save copies in "
            "benchmarks/results/runs/ that `hopkit import` loads into a store holding the same dataset")


def _find_runs(store: Store, name: str) -> list[RunInfo]:
    try:
        return store.find_runs(name)
    except StoreError as exc:
        raise StoreError(f"{exc}; {_runs_hint(store)}") from exc


def _select_runs(store: Store, names: list[str], dataset: str | None) -> list[RunInfo]:
    if not names:
        runs = store.runs(dataset)
    else:
        found = [run for name in names for run in _find_runs(store, name)
                 if dataset is None or run.dataset == dataset]
        runs = list({run.run_id: run for run in found}.values())
    if not runs:
        on = f" on dataset {dataset!r}" if dataset is not None else ""
        raise StoreError(f"no run{on} matches; list them with `hopkit runs`; {_runs_hint(store)}")
    scorable, skipped = split_scorable(runs)
    for skip in skipped:
        print(f"hopkit: skipped: {printable(skip.reason)}", file=sys.stderr)
    if not scorable:
        raise StoreError(f"none of the {len(runs)} selected run(s) can be scored (see above)")
    return scorable


def _judged_scores(store: Store, run: RunInfo, verdicts: VerdictStore | None,
                   judge: JudgeIdentity | None) -> tuple[Any, list[QuestionScores]]:
    """A run's summary and per-question scores, with LLM accuracy when ``judge`` judged every answer."""
    if verdicts is None or judge is None:
        return score_run(store, run)
    return score_run(store, run, None, verdicts.verdicts(run.run_id, judge.model_id, judge.prompt_version))


def _write_report(summaries: list[Any], out: Path, store: Store | None = None,
                  verdicts: VerdictStore | None = None, judge: JudgeIdentity | None = None) -> None:
    """Write the report; with ``store``, its Markdown gets the runs' paired comparisons and the
    folder the HTML report of the runs' results."""
    scores = None if store is None else {
        s.run_id: _judged_scores(store, store.run(s.run_id), verdicts, judge)[1] for s in summaries}
    html = None if store is None or scores is None else collect_report(store, summaries, scores)
    paths = write_report(summaries, out, scores=scores, html=html)
    tables = paths[:len(REPORT_FILES)]
    print(f"wrote {tables[0]}, " + ", ".join(p.name for p in tables[1:-1]) + f" and {tables[-1].name}")
    if html is not None:
        print(f"HTML report: open {paths[-1]} in a browser (no server needed)")


def cmd_judge(args: argparse.Namespace) -> int:
    session_factory = _session_factory(args)
    store = Store(session_factory)
    runs = _select_runs(store, args.runs, None)
    judge = AccuracyJudge(load_llm(args.llm))
    verdicts = VerdictStore(session_factory)
    for run in runs:
        outcome = judge_run(store, verdicts, run, judge, progress=not args.quiet)
        print(f"judged {printable(run.name)} ({run.run_id}) with {outcome.judge}: {outcome.answered} answers, "
              f"{outcome.already} judged before, {outcome.judged_now} now, {outcome.unreadable} unreadable verdict(s)")
    print(f"`hopkit evaluate --judge {judge.identity.model_id}` reports their LLM accuracy")
    return 0


def _judge_note(judge: JudgeIdentity | None) -> str:
    if judge is None:
        return "LLM Acc: no LLM judge chosen (judge the runs with `hopkit judge RUN...`; name one with --judge)"
    return (f"LLM Acc: LLM-judged accuracy (the MIGRES paper's Acc\u2020, its Table 15 prompt), judged by {judge}; "
            "an unreadable verdict counts as not correct; - = not every question of the run judged")


def cmd_evaluate(args: argparse.Namespace) -> int:
    session_factory = reading_factory(args)
    store = Store(session_factory)
    runs = _select_runs(store, args.runs, args.dataset)
    verdicts = VerdictStore(session_factory)
    judge = choose_judge(verdicts, [run.run_id for run in runs], getattr(args, "judge", None))
    summaries = score_runs(store, runs, verdicts=verdicts, judge=judge)
    table = comparison_table(summaries)
    print(to_text(table if getattr(args, "wide", False) else compact(table)))
    print(_judge_note(judge))
    if args.out is not None:
        _write_report(summaries, args.out, store, verdicts, judge)
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    args = argparse.Namespace(**{**vars(args), "out": args.out or hopkit_home() / "reports"})
    return cmd_evaluate(args)


def _one_run(store: Store, name: str) -> RunInfo:
    """The one scorable run ``name`` selects; stale or empty matches are skipped with the reason."""
    scorable, skipped = split_scorable(_find_runs(store, name))
    for skip in skipped:
        print(f"hopkit: skipped: {printable(skip.reason)}", file=sys.stderr)
    if not scorable:
        raise StoreError(f"{name!r} names no run that can be scored (see above)")
    if len(scorable) > 1:
        listed = ", ".join(f"{run.name!r} ({run.run_id}) on {run.dataset}" for run in scorable)
        raise StoreError(f"{name!r} names {len(scorable)} runs: {listed}; name one by its id "
                         "(or an id prefix of at least 4 characters)")
    return scorable[0]


def cmd_compare(args: argparse.Namespace) -> int:
    session_factory = reading_factory(args)
    store = Store(session_factory)
    run_a, run_b = _one_run(store, args.run_a), _one_run(store, args.run_b)
    both = f"run {run_a.name!r} ({run_a.run_id}) and run {run_b.name!r} ({run_b.run_id})"
    if run_a.run_id == run_b.run_id:
        raise ComparisonError(f"{args.run_a!r} and {args.run_b!r} both name run {run_a.name!r} "
                              f"({run_a.run_id}); name two different runs")
    if run_a.dataset != run_b.dataset:
        raise ComparisonError(f"cannot compare {both}: they ran on different datasets ({run_a.dataset!r} "
                              f"and {run_b.dataset!r}); a paired comparison needs the same questions, "
                              "so compare two runs on one dataset")
    verdicts = VerdictStore(session_factory)
    judge = choose_judge(verdicts, [run_a.run_id, run_b.run_id], args.judge)
    summary_a, scores_a = _judged_scores(store, run_a, verdicts, judge)
    summary_b, scores_b = _judged_scores(store, run_b, verdicts, judge)
    try:
        comparison = compare_scores(scores_a, scores_b)
    except ComparisonError as exc:
        raise ComparisonError(f"cannot compare {both} on {run_a.dataset!r}: {exc}") from exc
    label_a, label_b = run_labels([summary_a, summary_b])
    pair = ComparedPair(label_a, label_b, comparison)
    print(f"A = {printable(label_a)} ({run_a.run_id}), B = {printable(label_b)} ({run_b.run_id}), "
          f"dataset {printable(run_a.dataset)}: "
          f"{comparison.shared} question(s) both attempted (failed ones score 0)"
          + (f"; left out: {comparison.only_a} attempted by A only, {comparison.only_b} by B only"
             if comparison.only_a or comparison.only_b else "") + "\n")
    print(to_text(paired_table([pair], with_runs=False)), end="")
    if comparison.not_compared:
        names = ", ".join(metric_header(m) for m in comparison.not_compared)
        print(f"\nNot compared: {names} (no shared question has them for both runs: a run that does not "
              "retrieve has no recall, LLM accuracy needs judged answers)")
    print("\n" + printable(verdict_sentence(pair)) + "\n")
    print("\n".join(paired_notes()))
    if judge is not None:
        print(f"LLM Acc: judged by {judge}; compared only when it judged every answer of both runs")
    return 0


def cmd_runs(args: argparse.Namespace) -> int:
    store = Store(reading_factory(args))
    runs = store.runs()
    if not runs:
        print(f"no runs stored yet; {_runs_hint(store)}")
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


def cmd_quickstart(args: argparse.Namespace) -> int:
    from hopkit.quickstart.notes import reading_notes
    from hopkit.quickstart.run import run_quickstart

    out = args.out or hopkit_home() / "reports" / "quickstart"
    session_factory = _session_factory(args)
    with run_log("quickstart") as log_file:
        summaries = run_quickstart(session_factory, llm=args.llm, limit=args.limit)
    print(to_text(compact(comparison_table(summaries))))
    failed = sum(summary.n_failed for summary in summaries)
    if failed and log_file is not None and log_file.exists():
        print(f"{failed} question(s) failed (the Failed column); each one, and why, is in {log_file}")
    print("\n".join(["", *reading_notes(summaries, args.llm), ""]))
    _write_report(summaries, out, Store(session_factory))
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    store = Store(reading_factory(args))
    runs = [run for name in args.runs for run in store.find_runs(name)]
    written = export_runs(store, list(dict.fromkeys(run.run_id for run in runs)), args.out)
    print(f"wrote {len(runs)} run(s), {written} result(s) to {args.out}")
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    store = Store(_session_factory(args))
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


def cmd_delete(args: argparse.Namespace) -> int:
    store = Store(_session_factory(args))
    runs = list({run.run_id: run for name in args.runs for run in _find_runs(store, name)}.values())
    for run in runs:
        deleted = store.delete_run(run.run_id)
        print(f"deleted run {printable(run.name)} ({run.run_id}) on {printable(run.dataset)} and its "
              f"{deleted} result(s) and verdicts")
    return 0
