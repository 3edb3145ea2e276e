"""ALCE's citation recall and precision of SearChain's stored final contents (issue 12's "measured marks").

SearChain's benchmark runs leave ``citation_check`` off (it costs one to three
entailment calls per sentence of every answer); the tracing step stores the final
content and what each mark resolved to, so the citations can be scored afterwards, on
the same text, by the same entailment judge the method would use (the LLM, yes/no
log-odds, Section "citation_check" of docs/searchain.md):

* the final content is split into sentences as the method splits it, each sentence
  keeping the passages its marks resolved to (a mark that resolved to nothing cites
  nothing);
* recall: the share of sentences whose cited passages, joined, entail them (a sentence
  without a valid mark counts as unsupported); precision: the share of citations that
  are not irrelevant (Gao et al. 2023), as :func:`hopkit.methods.searchain.tracing.alce_citation_scores`.

Questions the method answered without a tracing call are counted, not scored. Scores are
stored per question (``benchmarks/results/citations/``) as they are made, so the command
resumes::

    HOPKIT_DATA_DIR=../shared/data .venv/bin/python -m benchmarks.searchain_citations \\
        --datasets hotpotqa 2wikimultihopqa musique --limit 30
"""

from __future__ import annotations

import argparse
from statistics import fmean
from typing import Any, Mapping, Sequence

from tqdm import tqdm

from hopkit.campaign.page_sections import command_line, write_section
from hopkit.campaign.bench_store import open_store, stored_runs_parser
from hopkit.campaign.environment import NOTEBOOK_MD, RESULTS
from hopkit.campaign.qa_bench import ingest, pipeline_for
from hopkit.calibration.scores import ScoreFile
from hopkit.judges.llm_yes_no import LLMEntailmentJudge
from hopkit.judges.sentences import SyntokSplitter
from hopkit.methods.searchain.method import passage_text
from hopkit.methods.searchain.steps import SearChainTracing
from hopkit.methods.searchain.tracing import Mark, alce_citation_scores, resolved_statements
from hopkit.store.store import Store
from hopkit.traces import Trace

CITATIONS_DIR = RESULTS / "citations"


def tracing_step(trace: Mapping[str, Any]) -> SearChainTracing | None:
    """The stored tracing step (the last ``read`` step) of one SearChain result, if it made one."""
    steps = [step for step in Trace.from_result_trace(trace).steps if step.kind == "read"]
    return steps[-1].payload(SearChainTracing) if steps else None


def score_question(store: Store, dataset: str, step: SearChainTracing, judge: LLMEntailmentJudge,
                   splitter: SyntokSplitter) -> dict[str, Any]:
    """ALCE recall and precision of one final content, with its sentence and mark counts."""
    resolved = {mark.number: mark.paragraph_id for mark in step.marks}
    found = resolved_statements(step.final_content, lambda number: Mark(number, resolved.get(number)), splitter)
    cited = sorted({mark.paragraph_id for s in found for mark in s.marks if mark.paragraph_id is not None})
    passages = {p.id: passage_text(p) for p in store.paragraphs_by_ids(dataset, cited)}
    recall, precision = alce_citation_scores(found, passages, judge)
    return {"sentences": len(found), "marked": sum(1 for s in found if any(m.valid for m in s.marks)),
            "recall": recall, "precision": precision}


def citation_rows(store: Store, session_factory: Any, llm: Any, llm_name: str, methods: Sequence[str],
                  datasets: Sequence[str], limit: int, judge: Any = None) -> list[str]:
    """One row per run: its citations scored on its first ``limit`` answers. Scores already in
    ``benchmarks/results/citations/`` are read; the others are made by ``judge`` (default: ``llm``
    as the entailment judge), whose ``judge_id`` names the scores."""
    judge = LLMEntailmentJudge(llm) if judge is None else judge
    splitter = SyntokSplitter()
    rows = []
    for dataset in datasets:
        ingest(store, dataset)
        for method in methods:
            run_id = pipeline_for(method, dataset, session_factory, llm, llm_name=llm_name).run_spec().run_id
            first = {q.id for q in store.queries(dataset, limit=limit)}
            results = [r for r in store.results(run_id) if r.query_id in first and r.error is None]
            if not results:
                print(f"{method} on {dataset}: no stored results (run {run_id}); run qa_bench first")
                continue
            scores = ScoreFile(CITATIONS_DIR / f"{run_id}.json", {"run": run_id, "judge": judge.judge_id})
            traced = [(r.query_id, step) for r in results if (step := tracing_step(r.trace)) is not None]
            for query_id, step in tqdm([t for t in traced if t[0] not in scores.items],
                                       desc=f"citations: {method} on {dataset}", unit="q"):
                scores.add(query_id, score_question(store, dataset, step, judge, splitter))
            items = [scores.items[query_id] for query_id, _ in traced]
            rows.append(citation_row(method, dataset, run_id, len(results), items))
    return rows


def command_parser() -> argparse.ArgumentParser:
    """The command line (tests/benchmarks/test_paired_sections.py reads the section's command with it)."""
    parser = stored_runs_parser(__doc__)
    parser.add_argument("--methods", nargs="+", default=["searchain"])
    return parser


def main() -> int:
    args = command_parser().parse_args()
    command = command_line()
    session_factory, store, llm = open_store(args)
    rows = citation_rows(store, session_factory, llm, args.llm, args.methods, args.datasets, args.limit)
    write_section("searchain-citations", "\n\n".join([
        "## SearChain's citations, scored: ALCE recall and precision of the stored final contents",
        f"Command: `{command}`",
        "The runs of qa_bench (Qwen2.5-Coder-1.5B, θ from `benchmarks/thresholds.json`, first questions of each "
        "sample). *Traced*: answers made by the tracing call (the others came from a chain's own final content "
        "and carry no resolved marks). Over the traced answers: sentences of the final content; the share of "
        "sentences carrying at least one mark that resolves to a node's passage; ALCE citation recall (the "
        "sentence is entailed by its cited passages, joined; unmarked sentences count as unsupported) and "
        "precision (citations not irrelevant), each averaged over answers. Entailment: the LLM judge "
        "(log P(yes) − log P(no) ≥ 0 on the model's own yes/no question).",
        citations_table(rows),
    ]), NOTEBOOK_MD)
    return 0


def citations_table(rows: Sequence[str]) -> str:
    """The section's table of :func:`citation_rows`."""
    return ("| method | dataset | run | answered | traced % | sentences/answer | marked sentences % | "
            "citation recall | citation precision |\n|---|---|---|---:|---:|---:|---:|---:|---:|\n" + "\n".join(rows))

def citation_row(method: str, dataset: str, run_id: str, answered: int, items: list[Mapping[str, Any]]) -> str:
    if not items:
        return f"| {method} | {dataset} | {run_id} | {answered} | 0.0 | - | - | - | - |"
    sentences = sum(item["sentences"] for item in items)
    marked = sum(item["marked"] for item in items)
    return (f"| {method} | {dataset} | {run_id} | {answered} | {100 * len(items) / answered:.1f} | "
            f"{sentences / len(items):.2f} | {100 * marked / sentences if sentences else 0:.1f} | "
            f"{100 * fmean(item['recall'] for item in items):.1f} | "
            f"{100 * fmean(item['precision'] for item in items):.1f} |")


if __name__ == "__main__":
    raise SystemExit(main())
