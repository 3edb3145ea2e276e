"""``hopkit evaluate``, ``hopkit report`` and ``hopkit compare``: scores, reports and paired comparisons."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from hopkit.cli.numbers import number
from hopkit.cli.store_access import one_run, reading_factory, select_runs
from hopkit.environment import hopkit_home
from hopkit.errors import ComparisonError, ConfigError, ReportError
from hopkit.evaluation.compare import compare_scores
from hopkit.evaluation.planning import QuestionPlan, pilot_differences, plan_questions
from hopkit.evaluation.llm_judge import JudgeIdentity
from hopkit.evaluation.scoring import QuestionScores
from hopkit.judging_runs import choose_judge
from hopkit.report.files import REPORT_FILES, write_report
from hopkit.report.anytime import PLAN_NOTE, anytime_sentences, anytime_table, plan_table
from hopkit.report.html import collect_report
from hopkit.report.leaderboard import leaderboard, run_setup
from hopkit.report.published_rows import store_references
from hopkit.report.paired import ComparedPair, paired_notes, paired_table, verdict_sentence
from hopkit.report.table import compact, comparison_table, metric_header, run_labels, to_text
from hopkit.scoring_runs import score_run, score_runs
from hopkit.store.records import RunInfo
from hopkit.store.store import Store
from hopkit.store.verdicts import VerdictStore
from hopkit.terminal import printable


def add_scoring_arguments(sub: argparse.ArgumentParser) -> None:
    """``evaluate``'s and ``report``'s arguments."""
    sub.add_argument("runs", nargs="*", help="run names or ids (default: every run)")
    sub.add_argument("--dataset", help="only runs on this dataset")
    sub.add_argument("--out", type=Path, help="folder for the table (md, csv) and plots (png)")
    sub.add_argument("--judge", help="model id of the LLM judge whose stored verdicts fill the LLM Acc "
                                     "column (default: the only judge of the runs)")
    sub.add_argument("--wide", action="store_true", help="every column (tokens, time split, recall by "
                                                         "title and answer); the CSV always has them all")
    sub.add_argument("--leaderboard", type=Path, metavar="FILE",
                     help="also write the leaderboard alone to FILE (Markdown), each method linked to its page where "
                          "FILE's folder holds one (methods/NAME.md or NAME.md, as hopkit's docs/ does)")


def add_compare_arguments(compare: argparse.ArgumentParser) -> None:
    compare.add_argument("run_a", metavar="RUN_A", help="run name, id or id prefix")
    compare.add_argument("run_b", metavar="RUN_B", help="the run to compare it with, on the same dataset")
    compare.add_argument("--judge", help="model id of the LLM judge whose stored verdicts give LLM Acc "
                                         "(default: the only judge of the two runs)")
    compare.add_argument("--anytime", action="store_true",
                         help="also the anytime-valid confidence sequence, e-value and p-value, in the dataset's "
                              "stored question order, and the n at which the sequence first excluded 0")
    compare.add_argument("--plan", type=number, metavar="DIFF",
                         help="treat the two runs as a pilot: the questions a true difference of DIFF points "
                              "would need (fixed n at 80%% power, and the expected n of the sequential stop)")


def _judged_scores(store: Store, run: RunInfo, verdicts: VerdictStore | None,
                   judge: JudgeIdentity | None) -> tuple[Any, list[QuestionScores]]:
    """A run's summary and per-question scores, with LLM accuracy when ``judge`` judged every answer."""
    if verdicts is None or judge is None:
        return score_run(store, run)
    return score_run(store, run, None, verdicts.verdicts(run.run_id, judge.model_id, judge.prompt_version))


def write_run_report(summaries: list[Any], out: Path, store: Store | None = None,
                  verdicts: VerdictStore | None = None, judge: JudgeIdentity | None = None) -> None:
    """Write the report; with ``store``, its Markdown gets the runs' paired comparisons and the
    folder the HTML report of the runs' results."""
    runs = {} if store is None else {s.run_id: store.run(s.run_id) for s in summaries}
    scores = None if store is None else {
        run_id: _judged_scores(store, run, verdicts, judge)[1] for run_id, run in runs.items()}
    html = None if store is None or scores is None else collect_report(store, summaries, scores)
    setups = None if store is None else {run_id: run_setup(run.config) for run_id, run in runs.items()}
    references = None if store is None else store_references(summaries, store)
    paths = write_report(summaries, out, scores=scores, html=html, setups=setups, references=references)
    tables = paths[:len(REPORT_FILES)]
    print(f"wrote {tables[0]}, " + ", ".join(p.name for p in tables[1:-1]) + f" and {tables[-1].name}")
    if html is not None:
        print(f"HTML report: open {paths[-1]} in a browser (no server needed)")


def _judge_note(judge: JudgeIdentity | None) -> str:
    if judge is None:
        return "LLM Acc: no LLM judge chosen (judge the runs with `hopkit judge RUN...`; name one with --judge)"
    return (f"LLM Acc: LLM-judged accuracy (the MIGRES paper's Acc\u2020, its Table 15 prompt), judged by {judge}; "
            "an unreadable verdict counts as not correct; - = not every question of the run judged")


def cmd_evaluate(args: argparse.Namespace) -> int:
    session_factory = reading_factory(args)
    store = Store(session_factory)
    runs = select_runs(store, args.runs, args.dataset)
    verdicts = VerdictStore(session_factory)
    judge = choose_judge(verdicts, [run.run_id for run in runs], getattr(args, "judge", None))
    summaries = score_runs(store, runs, verdicts=verdicts, judge=judge)
    table = comparison_table(summaries)
    print(to_text(table if getattr(args, "wide", False) else compact(table)))
    print(_judge_note(judge))
    if args.out is not None:
        write_run_report(summaries, args.out, store, verdicts, judge)
    if getattr(args, "leaderboard", None) is not None:
        write_leaderboard(summaries, store, args.leaderboard)
    return 0


def write_leaderboard(summaries: list[Any], store: Store, path: Path) -> None:
    """The leaderboard page alone, its methods linked to the pages beside it."""
    folder = path.parent
    links = {s.method: page for s in summaries
             for page in (f"methods/{s.method}.md", f"{s.method}.md") if (folder / page).exists()}
    setups = {s.run_id: run_setup(store.run(s.run_id).config) for s in summaries}
    try:
        folder.mkdir(parents=True, exist_ok=True)
        path.write_text(leaderboard(summaries, setups, links, references=store_references(summaries, store)),
                        encoding="utf-8")
    except OSError as exc:
        raise ReportError(f"cannot write the leaderboard to {path}: {exc.strerror or exc}") from exc
    print(f"wrote {path}")


def cmd_report(args: argparse.Namespace) -> int:
    args = argparse.Namespace(**{**vars(args), "out": args.out or hopkit_home() / "reports"})
    return cmd_evaluate(args)


def cmd_compare(args: argparse.Namespace) -> int:
    session_factory = reading_factory(args)
    store = Store(session_factory)
    run_a, run_b = one_run(store, args.run_a), one_run(store, args.run_b)
    both = f"run {run_a.name!r} ({run_a.run_id}) and run {run_b.name!r} ({run_b.run_id})"
    if run_a.run_id == run_b.run_id:
        raise ComparisonError(f"{args.run_a!r} and {args.run_b!r} both name run {run_a.name!r} "
                              f"({run_a.run_id}); name two different runs")
    if run_a.dataset != run_b.dataset:
        raise ComparisonError(f"cannot compare {both}: they ran on different datasets ({run_a.dataset!r} "
                              f"and {run_b.dataset!r}); a paired comparison needs the same questions, "
                              "so compare two runs on one dataset")
    plan = getattr(args, "plan", None)
    if plan is not None and not 0 < plan < 100:
        raise ConfigError(f"option '--plan': expected a difference in points above 0 and below 100, got {plan:g}")
    verdicts = VerdictStore(session_factory)
    judge = choose_judge(verdicts, [run_a.run_id, run_b.run_id], args.judge)
    summary_a, scores_a = _judged_scores(store, run_a, verdicts, judge)
    summary_b, scores_b = _judged_scores(store, run_b, verdicts, judge)
    stored_order = [q.id for q in store.queries(run_a.dataset)]
    try:
        comparison = compare_scores(scores_a, scores_b, order=stored_order)
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
    if getattr(args, "anytime", False):
        print("\nAnytime-valid, in the dataset's stored question order:\n")
        print(to_text(anytime_table(pair)), end="")
        print("\n" + "\n".join(anytime_sentences(pair)))
    if plan is not None:
        ordered = {s.query_id: s for s in scores_a}
        pilot_a = [ordered[q] for q in stored_order if q in ordered]
        plans = [(m.metric, _plan(pilot_differences(pilot_a, scores_b, m.metric), plan / 100))
                 for m in comparison.metrics]
        print(f"\nPlan for a true difference of {plan:g} points, from these runs as the pilot:\n")
        print(to_text(plan_table(plans)), end="")
        print("\n" + PLAN_NOTE)
    return 0


def _plan(pilot: list[float], difference: float) -> QuestionPlan | str:
    try:
        return plan_questions(pilot, difference)
    except ValueError as exc:
        return str(exc).removeprefix("plan: ")
