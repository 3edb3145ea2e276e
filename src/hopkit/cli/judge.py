"""``hopkit judge``: LLM-judged accuracy, the verdicts stored (resumable)."""

from __future__ import annotations

import argparse

from hopkit.cli.help_texts import llm_help
from hopkit.cli.store_access import existing_factory, select_runs
from hopkit.config import load_llm
from hopkit.evaluation.llm_judge import AccuracyJudge
from hopkit.judging_runs import judge_run
from hopkit.store.store import Store
from hopkit.store.verdicts import VerdictStore
from hopkit.terminal import printable


def add_arguments(judge: argparse.ArgumentParser) -> None:
    judge.add_argument("runs", nargs="+", help="run names or ids")
    judge.add_argument("--llm", default="qwen2.5-coder-1.5b-4k", help=llm_help("qwen2.5-coder-1.5b-4k"))
    judge.add_argument("--quiet", action="store_true", help="no progress bar")


def cmd_judge(args: argparse.Namespace) -> int:
    factory = existing_factory(args)
    store = Store(factory)
    runs = select_runs(store, args.runs, None)
    judge = AccuracyJudge(load_llm(args.llm))
    verdicts = VerdictStore(factory)
    for run in runs:
        outcome = judge_run(store, verdicts, run, judge, progress=not args.quiet)
        print(f"judged {printable(run.name)} ({run.run_id}) with {outcome.judge}: {outcome.answered} answers, "
              f"{outcome.already} judged before, {outcome.judged_now} now, {outcome.unreadable} unreadable verdict(s)")
    print(f"`hopkit evaluate --judge {judge.identity.model_id}` reports their LLM accuracy")
    return 0
