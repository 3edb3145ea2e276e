"""Table 4 of the MIGRES paper on the QA benchmark's stored runs: what each method spends per question.

For each run of qa_bench on the first questions of each sample (nothing is run): the model calls
the method makes (judges apart), its retrievals, the passages it reads (distinct, the result's
paragraphs) and per retrieval, tokens and seconds, every attempted question counted; beside it
the paper's Table 4 (# API, # Iter, # Passages; its WikiHop is 2WikiMultihopQA; ReAct there is
Shao et al.'s, our ``react-shao``). Written to docs/notebook.md, section ``baseline-costs`` (or ``--section``)::

    HOPKIT_DATA_DIR=../shared/data .venv/bin/hopkit campaign costs \\
        --methods react-shao self-ask iter-retgen migres
    HOPKIT_DATA_DIR=../shared/data .venv/bin/hopkit campaign costs --section agents-2025-costs \\
        --datasets hotpotqa 2wikimultihopqa musique --methods dragin dragin-plain-case flare ircot oner
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, Sequence

from hopkit.campaign.environment import NOTEBOOK_MD
from hopkit.campaign.page_sections import command_line, markdown_table, write_section
from hopkit.campaign.bench_store import open_store, stored_runs_parser
from hopkit.campaign.qa_bench import ingest
from hopkit.campaign.retired_runs import rebuilding_section
from hopkit.campaign.saved_run_ids import answered_run_id
from hopkit.campaign.qa_pipelines import SKIPPED
from hopkit.errors import StoreError
from hopkit.report.escape import markdown_cell
from hopkit.store.store import Store
from hopkit.usage import RETRIEVAL

#: Table 4 of the MIGRES paper: (# API, # Iter, # Passages) by method and dataset.
PAPER: dict[str, dict[str, tuple[float, float, float]]] = {
    "react-shao": {"2wikimultihopqa": (3.0, 3.0, 15.0), "hotpotqa": (2.9, 2.9, 14.4), "musique": (2.9, 2.9, 14.3),
                   "strategyqa": (2.9, 2.9, 14.3)},
    "self-ask": {"2wikimultihopqa": (3.2, 3.2, 15.9), "hotpotqa": (3.0, 3.0, 14.8), "musique": (3.2, 3.2, 16.0),
                 "strategyqa": (3.2, 3.2, 16.0)},
    "iter-retgen": {d: (2.0, 2.0, 5.0) for d in ("2wikimultihopqa", "hotpotqa", "musique", "strategyqa")},
    "migres": {"2wikimultihopqa": (8.4, 2.5, 1.3), "hotpotqa": (9.5, 2.7, 3.1), "musique": (6.4, 1.9, 2.3),
               "strategyqa": (4.0, 1.3, 1.3)},
}
HEADER = ["method", "dataset", "n", "model calls/q", "judge calls/q", "retrievals/q", "passages read/q",
          "prompt tok/q", "completion tok/q", "s/q", "paper # API / # Iter / # Passages"]


def run_costs(results: Sequence[Any]) -> dict[str, Any]:
    """Per-question means over ``results`` (every attempted question, failed ones included)."""
    n = len(results)
    calls = sum(c.llm_calls for r in results for name, c in r.usage.components.items() if not name.startswith("judge:"))
    judged = sum(c.llm_calls for r in results for name, c in r.usage.components.items() if name.startswith("judge:"))
    retrievals = sum(r.usage.nested_calls(RETRIEVAL) for r in results)
    passages = sum(len(set(r.chunk_ids)) for r in results)
    return {"n": n, "calls": calls / n, "judge": judged / n if all(map(judges_split, results)) else None,
            "retrievals": retrievals / n, "passages": passages / n,
            "prompt": sum(r.usage.prompt_tokens for r in results) / n,
            "completion": sum(r.usage.completion_tokens for r in results) / n,
            "seconds": sum(r.usage.total_seconds for r in results) / n}


def judges_split(result: Any) -> bool:
    """Whether the LLM judges' model calls are counted apart (runs made before the judges had their own
    usage labels count them with the method's)."""
    return not any(name.startswith("judge:") and c.calls and not c.llm_calls
                   for name, c in result.usage.components.items())


def cost_row(method: str, dataset: str, costs: dict[str, Any]) -> str:
    paper = PAPER.get(method, {}).get(dataset)
    shown = " / ".join(f"{v:g}" for v in paper) if paper else "-"
    judge = "in model calls" if costs["judge"] is None else f"{costs['judge']:.2f}"
    return (f"| {markdown_cell(method)} | {markdown_cell(dataset)} | {costs['n']:.0f} | {costs['calls']:.2f} | "
            f"{judge} | "
            f"{costs['retrievals']:.2f} | {costs['passages']:.1f} | "
            f"{costs['prompt']:.0f} | {costs['completion']:.0f} | {costs['seconds']:.1f} | {shown} |")


def attempted_results(store: Store, session_factory: Any, llm: Any, llm_name: str, method: str, dataset: str,
                      limit: int) -> list[Any]:
    """Every stored result of ``method`` on the first ``limit`` questions of the ingested ``dataset``, failed
    ones included (none when the run was not made)."""
    run_id = answered_run_id(method, dataset, session_factory, llm, llm_name)
    return run_results(store, run_id, dataset, limit)


def run_results(store: Store, run_id: str, dataset: str, limit: int) -> list[Any]:
    """Every stored result of run ``run_id`` on the first ``limit`` questions of ``dataset``, failed ones
    included (none when the run was not made, or has not reached all of them yet: a run being made, or
    stopped to resume later, is left out with a line on stderr rather than reported on fewer questions)."""
    first = {q.id for q in store.queries(dataset, limit=limit)}
    try:
        results = [r for r in store.results(run_id) if r.query_id in first]
    except StoreError:
        return []
    if results and len(results) < len(first):
        print(f"run {run_id} on {dataset}: {len(results)} of the first {len(first)} questions stored; "
              "left out until it has them all", file=sys.stderr)
        return []
    return results


def cost_rows(store: Store, session_factory: Any, llm: Any, llm_name: str, methods: Sequence[str],
              datasets: Sequence[str], limit: int) -> list[str]:
    rows = []
    for dataset in datasets:
        ingest(store, dataset)
        for method in methods:
            if (method, dataset) in SKIPPED:
                continue
            results = attempted_results(store, session_factory, llm, llm_name, method, dataset, limit)
            if results:
                rows.append(cost_row(method, dataset, run_costs(results)))
    return rows


def costs_table(store: Store, session_factory: Any, llm: Any, llm_name: str, methods: Sequence[str],
                datasets: Sequence[str], limit: int) -> str:
    """The section's table (``llm`` names the runs; nothing is generated)."""
    rows = cost_rows(store, session_factory, llm, llm_name, methods, datasets, limit)
    return markdown_table(HEADER, rows) if rows else "No stored run yet."


def command_parser() -> argparse.ArgumentParser:
    """The command line (tests/benchmarks/test_paired_sections.py reads the section's command with it)."""
    parser = stored_runs_parser(__doc__, ["2wikimultihopqa", "hotpotqa", "musique", "strategyqa"])
    parser.add_argument("--methods", nargs="+", default=["react-shao", "self-ask", "iter-retgen", "migres"])
    parser.add_argument("--section", default="baseline-costs", help="the section of docs/notebook.md to write")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = command_parser().parse_args(argv)
    command = command_line()
    session_factory, store, llm = open_store(args)
    with rebuilding_section(args.section):
        table = costs_table(store, session_factory, llm, args.llm, args.methods, args.datasets, args.limit)
    write_section(args.section, "\n\n".join([
        "## What each method spends per question, beside the MIGRES paper's Table 4",
        f"Command: `{command}`",
        f"The stored runs of qa_bench ({args.llm}; BM25, or all-MiniLM-L6-v2 dense retrieval for the `-minilm` "
        f"variants), first {args.limit} questions of each sample, every "
        "attempted question counted. *model calls*: the method's own calls to the model (the paper's # API); "
        "*judge calls*: those of them the LLM judges made (MIGRES's relevance and NLI, ALCE's reranker), "
        "which the paper leaves to BGE and NLI models (\"in model calls\": a run made before the judges' calls "
        "were counted apart); *retrievals*: searches of the retriever (the paper's # Iter for "
        "the baselines; MIGRES searches several queries per iteration); *passages read*: the distinct "
        "paragraphs the answer rests on (the paper's # Passages). The paper ran GPT-3.5 with ColBERTv2 over Wikipedia.",
        table,
    ]), NOTEBOOK_MD)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
