"""Why IRCoT wins or loses against OneR: read from the stored runs of qa_bench, no LLM calls.

For each dataset and IRCoT variant, on the questions both IRCoT and OneR answered:

* how the loop stopped (an "answer is:" sentence, max_steps, an empty generation),
  how many reasoning steps it took and how many paragraphs it collected;
* its gold-paragraph recall beside one-step BM25 given as many paragraphs as IRCoT
  collected for that question (per question: IRCoT better / same / worse);
* answer EM with the separate reader and "w/o reader" (the answer taken from the
  CoT itself, Appendix F), beside OneR's, and per question which of the two is right.

    HOPKIT_DATA_DIR=../shared/data .venv/bin/python -m benchmarks.ircot_analysis --limit 20
"""

from __future__ import annotations

import argparse
from collections import Counter
from dataclasses import dataclass
from typing import Any

from hopkit.campaign.environment import NOTEBOOK_MD
from hopkit.campaign.page_sections import command_line, write_section
from hopkit.campaign.bench_store import add_store_options, open_bench_store
from hopkit.campaign.paired_tables import stored_results
from hopkit.campaign.qa_bench import pipeline_for
from hopkit.config import load_llm
from hopkit.evaluation.metrics import exact_match, f1, paragraph_recall
from hopkit.methods.ircot.steps import IRCoTSummary
from hopkit.parsing import extract_answer
from hopkit.pipelines.retrieval.bm25 import BM25RetrievalPipeline
from hopkit.records import Query
from hopkit.store.records import QueryResult
from hopkit.store.store import Store

BUDGET = 15
VARIANTS = ("ircot", "ircot-cot", "ircot-zeroshot")


@dataclass(frozen=True)
class Analysis:
    dataset: str
    variant: str
    n: int
    stops: Counter[str]
    steps: float
    collected: float
    recall: float
    one_step_recall: float
    recall_better: int
    recall_worse: int
    em: float
    em_without_reader: float
    f1: float
    f1_without_reader: float
    oner_em: float
    only_ircot_right: int
    only_oner_right: int


def analyse(store: Store, retriever: Any, dataset: str, variant: str, queries: dict[str, Query],
            ircot: dict[str, QueryResult], oner: dict[str, QueryResult]) -> Analysis | None:
    ids = [qid for qid in queries if qid in ircot and qid in oner]
    if len(ids) < len(queries):  # a partial run: left out, as in qa_bench
        return None
    rows: list[dict[str, float]] = []
    stops: Counter[str] = Counter()
    for qid in ids:
        query, result = queries[qid], ircot[qid]
        summary = IRCoTSummary.from_result_trace(result.trace)
        stops[summary.stop_reason] += 1
        collected = list(result.chunk_ids[:BUDGET])
        one_step = [p.id for p in retriever.retrieve(query.text, max(len(collected), 1))]
        from_cot = extract_answer(" ".join(summary.cot_sentences))
        row = {"steps": float(summary.steps), "collected": float(len(collected)),
               "em": exact_match(result.prediction, query.answers), "f1": f1(result.prediction, query.answers),
               "em_cot": exact_match(from_cot, query.answers), "f1_cot": f1(from_cot, query.answers),
               "oner_em": exact_match(oner[qid].prediction, query.answers)}
        if query.gold_paragraph_ids:
            row["recall"] = paragraph_recall(collected, query.gold_paragraph_ids, BUDGET)
            row["one_step"] = paragraph_recall(one_step, query.gold_paragraph_ids, BUDGET)
        rows.append(row)

    def mean(key: str) -> float:
        values = [row[key] for row in rows if key in row]
        return sum(values) / len(values) if values else float("nan")

    with_recall = [row for row in rows if "recall" in row]
    return Analysis(
        dataset=dataset, variant=variant, n=len(rows), stops=stops, steps=mean("steps"),
        collected=mean("collected"), recall=mean("recall"), one_step_recall=mean("one_step"),
        recall_better=sum(row["recall"] > row["one_step"] for row in with_recall),
        recall_worse=sum(row["recall"] < row["one_step"] for row in with_recall),
        em=mean("em"), em_without_reader=mean("em_cot"), f1=mean("f1"), f1_without_reader=mean("f1_cot"),
        oner_em=mean("oner_em"),
        only_ircot_right=sum(row["em"] > row["oner_em"] for row in rows),
        only_oner_right=sum(row["em"] < row["oner_em"] for row in rows),
    )


def render(analyses: list[Analysis], command: str) -> str:
    lines = [
        "## IRCoT against OneR, question by question (`benchmarks/ircot_analysis.py`)",
        f"Command: `{command}`. Read from the runs stored by the QA benchmark; no LLM calls. Runs that "
        "have not answered every compared question are left out. *One-step, same count*: BM25 with the question "
        "alone, given as many paragraphs as IRCoT collected for that question. *w/o reader*: the answer "
        "taken from IRCoT's own chain of thought (Appendix F).",
        "",
        "| dataset | IRCoT variant | n | stopped by answer / max steps / empty | steps | paragraphs "
        "| recall | one-step, same count | IRCoT recall better / worse | EM (F1) reader | EM (F1) w/o reader "
        "| OneR EM | only IRCoT right / only OneR right |",
        "|---|---|---:|---|---:|---:|---:|---:|---|---|---|---:|---|",
    ]
    for a in analyses:
        stops = f"{a.stops['answer']} / {a.stops['max_steps']} / {a.stops['empty']}"
        lines.append(
            f"| {a.dataset} | {a.variant} | {a.n} | {stops} | {a.steps:.1f} | {a.collected:.1f} "
            f"| {100 * a.recall:.1f} | {100 * a.one_step_recall:.1f} | {a.recall_better} / {a.recall_worse} "
            f"| {100 * a.em:.1f} ({100 * a.f1:.1f}) | {100 * a.em_without_reader:.1f} ({100 * a.f1_without_reader:.1f}) "
            f"| {100 * a.oner_em:.1f} | {a.only_ircot_right} / {a.only_oner_right} |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=["hotpotqa", "2wikimultihopqa", "musique"])
    parser.add_argument("--limit", type=int, default=20)
    add_store_options(parser)
    args = parser.parse_args()
    session_factory, store = open_bench_store(args)
    llm = load_llm(args.llm)  # the run ids depend on the model
    analyses: list[Analysis] = []
    for dataset in args.datasets:
        queries = {q.id: q for q in store.queries(dataset, limit=args.limit)}
        retriever = BM25RetrievalPipeline(session_factory, "bm25", dataset=dataset).retriever()
        oner = stored_results(store, pipeline_for("oner", dataset, session_factory, llm).run_spec().run_id, queries)
        for variant in VARIANTS:
            run_id = pipeline_for(variant, dataset, session_factory, llm).run_spec().run_id
            analysis = analyse(store, retriever, dataset, variant, queries,
                               stored_results(store, run_id, queries), oner)
            if analysis is not None:
                analyses.append(analysis)
    command = command_line()
    section = render(analyses, command)
    print(section)
    write_section("ircot-analysis", section, NOTEBOOK_MD)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
