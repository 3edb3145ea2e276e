"""Acc† for the QA benchmark's runs: the LLM judge on each method's answers to the first questions.

The judge is the MIGRES paper's (Table 15: does the prediction imply the ground-truth
answer?) on the model the runs were made with (``--llm``). Each verdict is stored as it
is given (a stopped judging resumes) and the judged runs are saved with their verdicts to
``benchmarks/results/runs/``; qa_bench and method_claims then report Acc† for them::

    HOPKIT_DATA_DIR=../shared/data .venv/bin/hopkit campaign judge \\
        --datasets hotpotqa 2wikimultihopqa --methods nor oner ircot searchain migres --limit 30
"""

from __future__ import annotations

from hopkit.campaign.bench_store import open_store, stored_runs_parser
from hopkit.campaign.qa_bench import METHODS, ingest
from hopkit.campaign.qa_pipelines import SKIPPED
from hopkit.campaign.saved_run_ids import answered_run_id
from hopkit.campaign.saved_runs import save
from hopkit.errors import StoreError
from hopkit.evaluation.llm_judge import AccuracyJudge
from hopkit.judging_runs import judge_run


def main(argv: list[str] | None = None) -> int:
    parser = stored_runs_parser(__doc__, ["hotpotqa", "2wikimultihopqa", "musique", "strategyqa"])
    parser.add_argument("--methods", nargs="+", default=["nor", "oner", "ircot", "searchain", "migres"],
                        choices=METHODS)
    args = parser.parse_args(argv)
    session_factory, store, llm = open_store(args)
    judge = AccuracyJudge(llm)
    for dataset in args.datasets:
        ingest(store, dataset)
        first = {q.id for q in store.queries(dataset, limit=args.limit)}
        for method in args.methods:
            if (method, dataset) in SKIPPED:
                continue
            run_id = answered_run_id(method, dataset, session_factory, llm, args.llm)
            try:
                run = store.run(run_id)
            except StoreError:
                print(f"{method} on {dataset}: no run {run_id} yet, nothing to judge")
                continue
            try:
                outcome = judge_run(store, store.verdicts, run, judge, query_ids=first)
            finally:
                save(store, run_id)
            print(f"{method} on {dataset}: {outcome.answered} answers, {outcome.judged_now} judged now, "
                  f"{outcome.unreadable} unreadable verdicts")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
