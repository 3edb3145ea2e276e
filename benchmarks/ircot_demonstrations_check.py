"""How many demonstrations IRCoT needs with a small model: a cap of 2 against the paper's rule, paired.

The paper puts in as many demonstrations as the context holds; with a 4k context and the
authors' files that is 3-5 per prompt, and the count changes from question to question
(each question is fitted against its largest reachable prompt), so the cached prefix
changes with it. qa_bench's ``ircot-2-demos`` caps both the reasoning and the reader
demonstrations at 2 (``IRCoTConfig.max_demonstrations``): a fixed, shallower prefix.

The reference is IRCoT with the paper's rule and its own-context reader, on the first
questions of each sample: its reasoning is the stored ``ircot-reasoning-reader`` run of
``benchmarks.reader_context_check`` (IRCoT's retrieval and reasoning do not depend on the
reader) and its answers are that check's re-reads by the paper's reader
(``benchmarks/results/reader_context_rereads.json``). Both sides are scored per question
and compared paired (:func:`hopkit.evaluation.compare.compare_scores`: exact McNemar for
EM and cover-EM, sign-flip permutation for F1, paired bootstrap intervals).

Tokens here are hopkit's count of prompt tokens evaluated per question (the reference's
= its reasoning run plus the re-read); seconds and llama.cpp's own counters come from
``benchmarks.token_floor`` on a quiet machine. The runs are stored as they go and saved to
``benchmarks/results/runs/``, so the command resumes::

    HOPKIT_DATA_DIR=../shared/data .venv/bin/python -m benchmarks.ircot_demonstrations_check \\
        --datasets hotpotqa 2wikimultihopqa musique --limit 30
"""

from __future__ import annotations

import argparse
from dataclasses import replace
from typing import Any, Sequence

from hopkit.campaign.environment import NOTEBOOK_MD
from hopkit.campaign.page_sections import command_line, markdown_table, write_section
from hopkit.campaign.bench_store import open_store, stored_runs_parser
from hopkit.campaign.qa_bench import ingest, pipeline_for, run_and_save
from hopkit.campaign.paired_tables import (
    METRICS,
    REFERENCE_REASONING,
    comparison_cells,
    comparison_header,
    stored,
)
from hopkit.campaign.rereads import load_rereads
from hopkit.evaluation.compare import compare_scores
from hopkit.evaluation.scoring import QuestionScores, score_question
from hopkit.methods.ircot.steps import IRCoTSummary
from hopkit.store.store import Store

CAPPED = "ircot-2-demos"
def evaluated(result: Any) -> int:
    return result.usage.prompt_tokens - result.usage.cached_prompt_tokens


def most_demonstrations(result: Any) -> int:
    return max(IRCoTSummary.from_result_trace(result.trace).demonstrations, default=0)


def demonstrations_table(store: Store, session_factory: Any, llm: Any, datasets: Sequence[str], limit: int) -> str:
    """The section's table from the stored runs and IRCoT's saved re-reads (``llm`` names the runs)."""
    rereads = load_rereads("own")
    rows, pooled_capped, pooled_reference = [], [], []
    for dataset in datasets:
        ingest(store, dataset)
        capped_pipeline = pipeline_for(CAPPED, dataset, session_factory, llm)
        capped = stored(store, capped_pipeline, dataset, limit)
        reference = stored(store, pipeline_for(REFERENCE_REASONING, dataset, session_factory, llm), dataset, limit)
        shared = [q for q in store.queries(dataset, limit=limit)
                  if q.id in capped and q.id in reference and f"{dataset}/{q.id}" in rereads]
        if not shared:
            continue
        capped_scores = [score_question(q, capped[q.id].prediction, None) for q in shared]
        reference_scores = [score_question(q, rereads[f"{dataset}/{q.id}"]["answer"], None) for q in shared]
        pooled_capped += [_renamed(s, dataset) for s in capped_scores]
        pooled_reference += [_renamed(s, dataset) for s in reference_scores]
        n = len(shared)
        tokens = (sum(evaluated(capped[q.id]) for q in shared) / n,
                  sum(evaluated(reference[q.id]) + rereads[f"{dataset}/{q.id}"]["evaluated"] for q in shared) / n)
        demos = (sum(most_demonstrations(capped[q.id]) for q in shared) / n,
                 sum(most_demonstrations(reference[q.id]) for q in shared) / n)
        cells = comparison_cells(compare_scores(capped_scores, reference_scores, metrics=METRICS))
        rows.append(f"| {dataset} | {n} | {demos[0]:.1f} / {demos[1]:.1f} | {' | '.join(cells)} | "
                    f"{tokens[0]:,.0f} / {tokens[1]:,.0f} |")
    if pooled_capped:
        cells = comparison_cells(compare_scores(pooled_capped, pooled_reference, metrics=METRICS))
        rows.append(f"| **pooled** | {len(pooled_capped)} | | {' | '.join(cells)} | |")
    header = ["dataset", "n", "demonstrations per prompt, capped / paper's rule"]
    header += comparison_header("capped", "paper's rule", "capped − rule")
    header.append("prompt tokens evaluated/q, capped / rule (hopkit's count)")
    return markdown_table(header, rows)


def command_parser() -> argparse.ArgumentParser:
    """The command line (tests/benchmarks/test_paired_sections.py reads the section's command with it)."""
    parser = stored_runs_parser(__doc__)
    parser.add_argument("--report-only", action="store_true", help="compare what is stored, run nothing")
    return parser


def main() -> int:
    args = command_parser().parse_args()
    command = command_line()
    session_factory, store, llm = open_store(args)
    if not args.report_only:
        for dataset in args.datasets:
            ingest(store, dataset)
            run_and_save(store, pipeline_for(CAPPED, dataset, session_factory, llm), args.limit)
    write_section("ircot-demonstrations", "\n\n".join([
        "## IRCoT's demonstrations: at most 2 against as many as fit (paired, first questions of each sample)",
        f"Command: `{command}`",
        "*Capped*: qa_bench's `ircot-2-demos`, IRCoT as in the QA benchmark (the authors' demonstrations, K=4, at "
        "most 8 steps, budget 15, direct reader, Qwen2.5-Coder-1.5B, 4k context) with at most 2 reasoning and 2 "
        "reader demonstrations. *Paper's rule*: as many as fit, the reasoning of the stored `ircot-reasoning-reader` "
        "run read by the paper's own-context reader (section `reader-context`). Differences are capped − rule "
        "with a 95% paired bootstrap interval; *won/lost*: questions where the capped run scored higher/lower; "
        "*p*: exact McNemar (EM, cover-EM) or sign-flip permutation (F1). *Demonstrations*: the most a question's "
        "reasoning prompts held, averaged.",
        demonstrations_table(store, session_factory, llm, args.datasets, args.limit),
    ]), NOTEBOOK_MD)
    return 0


def _renamed(scores: QuestionScores, dataset: str) -> QuestionScores:
    return replace(scores, query_id=f"{dataset}/{scores.query_id}")


if __name__ == "__main__":
    raise SystemExit(main())
