"""How often FLARE's look-ahead sentences fall below θ and retrieve, in the QA benchmark's stored runs.

For the ``flare`` run of qa_bench on the first questions of each sample (nothing is run): the θ and
top-k of the variant on that dataset, the look-ahead sentences checked per question (the regenerated
ones are kept unchecked), the share of them with a token below θ (each such sentence is a retrieval
and a regeneration), the median of their lowest token probabilities, retrievals per question (the
question's included) and the questions whose sentences never say "answer is". Written to
docs/notebook.md, section ``flare-triggers``::

    HOPKIT_DATA_DIR=../shared/data .venv/bin/python -m benchmarks.flare_triggers \\
        --datasets hotpotqa 2wikimultihopqa musique strategyqa
"""

from __future__ import annotations

import argparse
import statistics
from typing import Any, Sequence

from hopkit.campaign.environment import NOTEBOOK_MD
from hopkit.campaign.page_sections import command_line, markdown_table, write_section
from hopkit.campaign.baseline_costs import attempted_results
from hopkit.campaign.bench_store import open_store, stored_runs_parser
from hopkit.campaign.qa_bench import ingest
from hopkit.campaign.variants import load_variant
from hopkit.methods.flare.steps import PAYLOADS, FLARELookAhead, FLARESummary
from hopkit.store.store import Store
from hopkit.traces import Trace
from hopkit.traces.payload import payload_of

HEADER = ["dataset", "n", "θ", "top-k", "sentences checked/q", "below θ (retrieved)", "median lowest token p",
          "retrievals/q", "no \"answer is\""]


def checked_sentences(result: Any) -> list[FLARELookAhead]:
    """The look-ahead sentences of one result that FLARE checked against θ."""
    steps = Trace.from_result_trace(result.trace).steps
    payloads = [payload_of(step, PAYLOADS) for step in steps]
    return [p for p in payloads if isinstance(p, FLARELookAhead) and not p.regenerated]


def trigger_row(dataset: str, results: Sequence[Any]) -> str:
    config = load_variant("flare", dataset).config
    checked = [checked_sentences(r) for r in results]
    sentences = [s for one in checked for s in one]
    lowest = [s.lowest_probability for s in sentences if s.lowest_probability is not None]
    below = sum(s.uncertain for s in sentences)
    summaries = [FLARESummary.from_result_trace(r.trace) for r in results if r.error is None]
    unanswered = sum(not any("answer is" in s.lower() for s in summary.sentences) for summary in summaries)
    n = len(results)
    share = 100 * below / len(sentences) if sentences else 0.0
    median = f"{statistics.median(lowest):.3f}" if lowest else "-"
    return (f"| {dataset} | {n} | {config['theta']} | {config['k']} | {len(sentences) / n:.2f} | "
            f"{below} of {len(sentences)} ({share:.1f}%) | {median} | {sum(s.retrievals for s in summaries) / n:.2f} | "
            f"{unanswered} |")


def triggers_table(store: Store, session_factory: Any, llm: Any, llm_name: str, datasets: Sequence[str],
                   limit: int) -> str:
    """The section's table (``llm`` names the runs; nothing is generated)."""
    rows = []
    for dataset in datasets:
        ingest(store, dataset)
        results = attempted_results(store, session_factory, llm, llm_name, "flare", dataset, limit)
        if results:
            rows.append(trigger_row(dataset, results))
    return markdown_table(HEADER, rows) if rows else "No stored run yet."


def command_parser() -> argparse.ArgumentParser:
    """The command line (tests/benchmarks/test_paired_sections.py reads the section's command with it)."""
    return stored_runs_parser(__doc__)


def main() -> int:
    args = command_parser().parse_args()
    command = command_line()
    session_factory, store, llm = open_store(args)
    write_section("flare-triggers", "\n\n".join([
        "## FLARE's retrieval trigger: look-ahead sentences below θ (stored runs, first questions of each sample)",
        f"Command: `{command}`",
        "The `flare` runs of qa_bench (Qwen2.5-Coder-1.5B, 4k context, BM25, β = 0.4; θ and top-k are the authors' "
        "2WikiMultihopQA settings, and on StrategyQA their StrategyQA ones). A sentence "
        "with a token below θ is retrieved for and written again; the regenerated sentence is kept unchecked. "
        "Retrievals count the first one, with the question.",
        triggers_table(store, session_factory, llm, args.llm, args.datasets, args.limit),
    ]), NOTEBOOK_MD)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
