"""QA benchmark: NoR, OneR, IRCoT, MIGRES and SearChain on the samples, answer and retrieval quality and cost.

Runs each method on the pooled corpus of each sample (BM25), stores every question as
it finishes (rerun the same command to resume), then writes the comparison table,
the time split and two plots to docs/benchmarks.md and docs/img/.

    HOPKIT_DATA_DIR=../shared/data .venv/bin/python -m benchmarks.qa_bench \\
        --datasets hotpotqa 2wikimultihopqa musique --methods nor oner --limit 100

MIGRES and SearChain need their thresholds calibrated first (benchmarks/thresholds.json,
written by benchmarks/migres_calibration.py and benchmarks/searchain_calibration.py); the
benchmark refuses to start them otherwise and prints the command that calibrates them.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Sequence

from hopkit.config import load_llm
from hopkit.data.corpus import pool_corpus
from hopkit.data.registry import load_dataset, sample_path
from hopkit.evaluation.cost_columns import cost_columns
from hopkit.evaluation.metrics import paragraph_recall
from hopkit.judging_runs import choose_judge
from hopkit.methods.reader import ReaderConfig
from hopkit.pipelines.base import GenerationPipeline
from hopkit.pipelines.generation.config import DemonstrationSpec
from hopkit.pipelines.generation.ircot import IRCoTGenerationPipeline
from hopkit.pipelines.generation.no_retrieval import NoRGenerationPipeline
from hopkit.pipelines.generation.one_step import OneRGenerationPipeline
from hopkit.pipelines.retrieval.bm25 import BM25RetrievalPipeline
from hopkit.report.plot import RecallCurve, plot_comparison, plot_recall_curves, plot_time_split
from hopkit.report.table import comparison_table, to_markdown
from hopkit.scoring_runs import RETRIEVAL_BUDGET, score_runs
from hopkit.store.connection import DBConnection
from hopkit.store.store import Store

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _report import command_line, write_section  # noqa: E402  (pysbd ships a package named "benchmarks")
from saved_runs import restore, save  # noqa: E402
from method_tables import method_sections  # noqa: E402
from qa_pipelines import (MIGRES_VARIANTS, SEARCHAIN_VARIANTS, SKIPPED, YES_NO, YES_NO_READER,  # noqa: E402
                          check_calibrated, migres_pipeline, searchain_pipeline)
from thresholds import THRESHOLDS_FILE  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
METHODS = ("nor", "oner", "oner-k15", "ircot", "ircot-cot", "ircot-reasoning-reader", "ircot-2-demos", "ircot-zeroshot",
           *MIGRES_VARIANTS, *SEARCHAIN_VARIANTS)
DESCRIPTIONS = {
    "nor": "NoR: the question alone, few-shot direct reader (the authors' no-context demonstrations)",
    "oner": "OneR: BM25 with the question, K=5, few-shot direct reader",
    "oner-k15": "OneR-K15: the same with K=15, IRCoT's paragraph budget",
    "ircot": "IRCoT few-shot: the authors' CoT demonstrations, K=4, at most 8 steps, budget 15, then the "
             "few-shot direct reader (Appendix E's choice for small models)",
    "ircot-cot": "IRCoT few-shot with the CoT reader (Appendix E's choice for GPT3), which reads from the "
                 "reasoning prompt's cached prefix",
    "ircot-reasoning-reader": "IRCoT few-shot whose direct reader reads in the reasoning prompt's context "
                              "(its cached demonstrations and paragraphs, cued with \"So the answer is:\")",
    "ircot-2-demos": "IRCoT few-shot with at most 2 demonstrations of each kind (reasoning, reader) instead of as "
                     "many as fit in the context, otherwise as `ircot`",
    "ircot-zeroshot": "IRCoT zero-shot: the documentation page's default templates, same K, steps and budget",
    "migres": "MIGRES zero-shot (the paper's default and the base of its ablations): Table 11's multi-hop settings "
              "(at most 5 iterations, 50 BM25 hits per query with k1=0.9, b=0.4, at most 5 passages per Leaf "
              "call, at most 3 new queries), LLM judges (relevance and NLI) on the same model, δ calibrated "
              "for that judge by Table 11's rule; StrategyQA: the yes/no Main Module and its own δ",
    "migres-fewshot": "MIGRES* (Table 3's few-shot rows): the same with the authors' two demonstrations per "
                      "module (multi-hop set; commonsense set on StrategyQA)",
    "migres-no-sentence-filter": "MIGRES without sentence-level filtering (Table 5's \"w/o Sentence Filtering\")",
    "migres-no-knowledge": "MIGRES without LLM knowledge prompting (Table 6's \"w/o GPT knowledge\"; the paper "
                           "sets δ=1.0 for both rows of that table, this benchmark keeps the calibrated δ)",
    "searchain": "SearChain: Figure 16's multi-hop prompt (Figure 15's on StrategyQA), at most 5 rounds, top-1 BM25 "
                 "passage per node (the paper: ColBERTv2), the LLM reader with θ calibrated by Appendix A.4.1's "
                 "sweep, duplicate queries by WordLlama cosine >= 0.9, cover-EM as the paper's metric",
    "searchain-no-verification": "SearChain without Verification (Table 1's \"w/o Verification\")",
    "searchain-no-completion": "SearChain without Completion (Table 1's \"w/o Completion\")",
}
STRATEGYQA_NOTE = ("On StrategyQA (gold answers \"yes\"/\"no\"): NoR and OneR read zero-shot with a yes/no "
                   "instruction, at most 8 tokens (the IRCoT authors have no StrategyQA demonstrations); IRCoT "
                   "is not run.")


def pipeline_for(method: str, dataset: str, session_factory: Any, llm: Any, *, llm_name: str | None = None,
                 thresholds: Path = THRESHOLDS_FILE) -> GenerationPipeline:
    """The benchmark's pipelines: the authors' demonstrations of the dataset (M=2), BM25.

    MIGRES and SearChain read their calibrated thresholds for ``llm_name`` (the LLM config's
    name) from ``thresholds``; StrategyQA's NoR and OneR read zero-shot (no demonstrations exist).
    """
    if method in MIGRES_VARIANTS or method in SEARCHAIN_VARIANTS:
        if llm_name is None:
            raise SystemExit(f"{method} needs llm_name, the LLM config its thresholds were calibrated for")
        build = migres_pipeline if method in MIGRES_VARIANTS else searchain_pipeline
        return build(method, dataset, session_factory, llm, llm_name, thresholds)
    if dataset == YES_NO:
        return _yes_no_pipeline(method, session_factory, llm)
    bm25 = BM25RetrievalPipeline(session_factory, name="bm25", dataset=dataset)
    direct = ReaderConfig(mode="direct", max_tokens=32)
    demos = DemonstrationSpec(dataset=dataset, distractors=2, family="codex")
    if method == "nor":
        return NoRGenerationPipeline(session_factory, f"nor-{dataset}", llm, reader=direct,
                                     demonstrations=demos, dataset=dataset)
    if method == "oner":
        return OneRGenerationPipeline(session_factory, f"oner-{dataset}", llm, bm25, k=5, reader=direct,
                                      demonstrations=demos, dataset=dataset)
    if method == "oner-k15":  # IRCoT's paragraph budget
        return OneRGenerationPipeline(session_factory, f"oner-k15-{dataset}", llm, bm25, k=15, reader=direct,
                                      demonstrations=demos, dataset=dataset)
    if method == "ircot":  # direct reader: App. E's choice for the smaller (Flan-T5) models
        return IRCoTGenerationPipeline(session_factory, f"ircot-{dataset}", llm, bm25, k_per_step=4,
                                       demonstrations=demos, dataset=dataset, reader="direct",
                                       reader_max_tokens=32, generation_max_tokens=100)
    if method == "ircot-cot":  # CoT reader: App. E's choice for GPT3
        return IRCoTGenerationPipeline(session_factory, f"ircot-{dataset}", llm, bm25, k_per_step=4,
                                       demonstrations=demos, dataset=dataset, reader="cot",
                                       reader_max_tokens=120, generation_max_tokens=100)
    if method == "ircot-reasoning-reader":  # the direct reader without re-reading the paragraphs
        return IRCoTGenerationPipeline(session_factory, f"ircot-{dataset}", llm, bm25, k_per_step=4,
                                       demonstrations=demos, dataset=dataset, reader="direct",
                                       reader_context="reasoning", reader_max_tokens=32,
                                       generation_max_tokens=100)
    if method == "ircot-2-demos":  # a fixed, shallower cached prefix (issue 10's demonstrations lever)
        return IRCoTGenerationPipeline(session_factory, f"ircot-{dataset}", llm, bm25, k_per_step=4,
                                       demonstrations=demos, dataset=dataset, reader="direct",
                                       reader_max_tokens=32, generation_max_tokens=100, max_demonstrations=2)
    if method == "ircot-zeroshot":
        return IRCoTGenerationPipeline(session_factory, f"ircot-zeroshot-{dataset}", llm, bm25, k_per_step=4,
                                       dataset=dataset, reader="direct", reader_max_tokens=32,
                                       generation_max_tokens=100)
    raise SystemExit(f"unknown method {method!r}; choose from {', '.join(METHODS)}")


def _yes_no_pipeline(method: str, session_factory: Any, llm: Any) -> GenerationPipeline:
    """NoR and OneR on StrategyQA: the zero-shot yes/no reader (:data:`qa_pipelines.YES_NO_READER`)."""
    if (method, YES_NO) in SKIPPED:
        raise SystemExit(f"{method} is not run on {YES_NO}: {SKIPPED[method, YES_NO]}")
    if method == "nor":
        return NoRGenerationPipeline(session_factory, f"nor-{YES_NO}", llm, reader=YES_NO_READER, dataset=YES_NO)
    k = {"oner": 5, "oner-k15": 15}.get(method)
    if k is None:
        raise SystemExit(f"unknown method {method!r}; choose from {', '.join(METHODS)}")
    bm25 = BM25RetrievalPipeline(session_factory, name="bm25", dataset=YES_NO)
    return OneRGenerationPipeline(session_factory, f"{method}-{YES_NO}", llm, bm25, k=k, reader=YES_NO_READER,
                                  dataset=YES_NO)


def ingest(store: Store, dataset: str) -> None:
    """Store the dataset's pooled corpus (once), then the runs on it saved in the repository."""
    if dataset not in store.datasets():
        store.add_corpus(pool_corpus(dataset, load_dataset(dataset, sample_path(dataset))))
    restore(store, dataset)


def run_and_save(store: Store, pipeline: GenerationPipeline, limit: int) -> str:
    """Run (or resume) ``pipeline`` on the first ``limit`` questions; save its results to the
    repository however the run ends. Returns the run id."""
    run_id = pipeline.run_spec().run_id
    try:
        pipeline.run(limit=limit)
    finally:
        if any(run.run_id == run_id for run in store.runs()):
            save(store, run_id)
    return run_id


def answered_all(store: Store, run: Any, compared: set[str]) -> bool:
    """Whether ``run`` has a result for every compared question of its dataset (partial runs are left out)."""
    wanted = {q.id for q in store.queries(run.dataset) if q.id in compared}
    done = {r.query_id for r in store.results(run.run_id)}
    if wanted <= done:
        return True
    print(f"left out: run {run.run_id} ({run.name}) answered {len(wanted & done)} of {len(wanted)} questions")
    return False


@dataclass(frozen=True)
class OneStep:
    """BM25 with the question alone, top 15, for a dataset's compared questions with gold paragraphs."""

    rankings: dict[str, list[int]]
    gold: dict[str, Sequence[int]]

    @classmethod
    def retrieve(cls, session_factory: Any, store: Store, dataset: str, compared: set[str]) -> OneStep:
        retriever = BM25RetrievalPipeline(session_factory, "bm25", dataset=dataset).retriever()
        queries = [q for q in store.queries(dataset) if q.id in compared and q.gold_paragraph_ids]
        return cls({q.id: [p.id for p in retriever.retrieve(q.text, RETRIEVAL_BUDGET)] for q in queries},
                   {q.id: q.gold_paragraph_ids for q in queries})

    def recall(self, query_id: str, count: int = RETRIEVAL_BUDGET) -> float:
        return paragraph_recall(self.rankings[query_id][:count], self.gold[query_id], RETRIEVAL_BUDGET)

    def curve(self) -> list[float]:
        """Mean recall at K = 1 .. 15."""
        return [sum(self.recall(qid, k) for qid in self.rankings) / len(self.rankings)
                for k in range(1, RETRIEVAL_BUDGET + 1)]


def recall_rows(store: Store, summary: Any, one_step: OneStep) -> list[tuple[int, float, float, float]]:
    """Per question of a retrieving run: paragraphs collected, the run's recall, one-step recall at
    the same count, one-step recall at 15."""
    rows = []
    for result in store.results(summary.run_id):
        if result.query_id not in one_step.rankings or result.error is not None:
            continue
        count = min(len(result.chunk_ids), RETRIEVAL_BUDGET)
        rows.append((count, paragraph_recall(result.chunk_ids, one_step.gold[result.query_id], RETRIEVAL_BUDGET),
                     one_step.recall(result.query_id, count), one_step.recall(result.query_id)))
    return rows


def recall_section(session_factory: Any, store: Store, summaries: list[Any], compared: set[str],
                   plot_path: Path) -> str:
    """Each retrieving run's gold-paragraph recall beside one-step BM25 with the question alone
    (same count, and K=15) as a table, and the one-step recall curve with the IRCoT runs as a plot."""
    lines = ["| run | dataset | paragraphs collected | run's recall | one-step BM25, same count | "
             "one-step BM25, K=15 |", "|---|---|---:|---:|---:|---:|"]
    one_step: dict[str, OneStep] = {}
    points: dict[str, list[tuple[str, float, float]]] = {}
    for summary in summaries:
        if "paragraph_recall" not in summary.metrics:
            continue
        if summary.dataset not in one_step:
            one_step[summary.dataset] = OneStep.retrieve(session_factory, store, summary.dataset, compared)
        rows = recall_rows(store, summary, one_step[summary.dataset])
        means = [sum(column) / len(rows) for column in zip(*rows)]
        lines.append(f"| {summary.name} | {summary.dataset} | {means[0]:.1f} | "
                     + " | ".join(f"{100 * m:.1f}" for m in means[1:]) + " |")
        if summary.name.startswith("ircot"):
            points.setdefault(summary.dataset, []).append((summary.name, means[0], means[1]))
    if one_step:
        plot_recall_curves([RecallCurve(dataset, retrieved.curve(), points.get(dataset, []))
                            for dataset, retrieved in one_step.items()], plot_path)
    return "\n".join(lines)


def time_split_table(summaries: list[Any]) -> str:
    """Seconds per question, their split (the cost columns that split the time: model calls,
    retrieval, each judge's or label's own time, other), the share outside every component
    and the cached share of prompt tokens."""
    columns = {c.key: c for c in cost_columns(name for s in summaries for name in s.components)}
    split = [c for c in columns.values() if c.time_part is not None]
    shown = [columns["seconds_per_q"], *split]
    lines = ["| run | dataset | " + " | ".join(c.header for c in shown) + " | other % | Cached % |",
             "|---|---|" + "---:|" * (len(shown) + 2)]
    for s in summaries:
        share = 100 * s.other_seconds_per_q / s.seconds_per_q if s.seconds_per_q else 0.0
        cells = [c.text(s.cost.get(c.key)) for c in (*shown, columns["cached_prompt_share"])]
        lines.append(f"| {s.name} | {s.dataset} | {' | '.join(cells[:-1])} | {share:.2f} | {cells[-1]} |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=["hotpotqa", "2wikimultihopqa", "musique"])
    parser.add_argument("--methods", nargs="+", default=["nor", "oner"], choices=METHODS)
    parser.add_argument("--limit", type=int, default=100)
    parser.add_argument("--llm", default="qwen2.5-coder-1.5b-4k")
    parser.add_argument("--db", default=None, help="default: sqlite file in $HOPKIT_HOME (.hopkit-bench)")
    parser.add_argument("--section", default="qa", help="section of docs/benchmarks.md to write")
    parser.add_argument("--report-only", action="store_true", help="score what is stored, run nothing")
    parser.add_argument("--thresholds", type=Path, default=THRESHOLDS_FILE,
                        help="the calibrated thresholds of MIGRES and SearChain (default: benchmarks/thresholds.json)")
    args = parser.parse_args()
    uncalibrated = check_calibrated(args.methods, args.datasets, args.llm, args.thresholds)
    if uncalibrated:
        raise SystemExit("\n".join(uncalibrated))
    os.environ.setdefault("HOPKIT_HOME", str(ROOT / ".hopkit-bench"))
    session_factory = DBConnection.from_config(args.db).get_session_factory()
    store = Store(session_factory)
    llm = load_llm(args.llm)  # also for --report-only: the run ids depend on the loaded model
    run_ids: list[str] = []
    labels: dict[str, str] = {}  # run id -> benchmark method name (two IRCoT readers share method "ircot")
    started = time.time()
    for dataset in args.datasets:
        ingest(store, dataset)
        for method in args.methods:
            if (method, dataset) in SKIPPED:
                print(f"not run: {method} on {dataset}: {SKIPPED[method, dataset]}")
                continue
            pipeline = pipeline_for(method, dataset, session_factory, llm, llm_name=args.llm,
                                    thresholds=args.thresholds)
            if args.report_only:
                run_ids.append(pipeline.run_spec().run_id)
            else:
                run_ids.append(run_and_save(store, pipeline, args.limit))
            labels[run_ids[-1]] = method
    known = {run.run_id for run in store.runs()}
    runs = [run for run_id in run_ids if run_id in known for run in store.find_runs(run_id)]
    compared = {q.id for dataset in args.datasets for q in store.queries(dataset, limit=args.limit)}
    runs = [run for run in runs if answered_all(store, run, compared)]
    # one colour per method across datasets (the dataset is the plot's x axis)
    judge = choose_judge(store.verdicts, [run.run_id for run in runs])  # Acc†, once `hopkit judge` judged the runs
    summaries = [replace(s, name=labels[s.run_id])
                 for s in score_runs(store, runs, compared, verdicts=store.verdicts, judge=judge)]
    stem = args.section
    plot_comparison(summaries, ROOT / "docs" / "img" / f"{stem}_comparison.png")
    plot_time_split(summaries, ROOT / "docs" / "img" / f"{stem}_time_split.png")
    command = command_line()
    write_section(stem, "\n\n".join([
        f"## QA: {', '.join(args.methods)} with {args.llm} (BM25, pooled sample corpora, "
        f"first {args.limit} questions of each sample)",
        f"Command: `{command}`  \nMachine: {os.cpu_count()} cores, no GPU. "
        + ("Table rebuilt from the stored results (`--report-only`); s/q is what the runs took. "
           if args.report_only else
           f"Wall time of the last invocation: {time.time() - started:.0f} s (finished questions are "
           "resumed, not redone). ")
        + "Demonstrations: the IRCoT authors' files of the dataset (M=2 distractors, codex).\n\n"
        + "\n".join(f"- {DESCRIPTIONS[method]}" for method in args.methods)
        + (f"\n\n{STRATEGYQA_NOTE}" if YES_NO in args.datasets else ""),
        to_markdown(comparison_table(summaries)),
        "Gold-paragraph recall at equal budgets: each run's paragraphs (at most 15) beside one-step BM25 "
        "retrieval with the question alone, given the same number of paragraphs per question, and given 15. "
        "In the plot, an IRCoT run above the curve recalls more than one retrieval given as many paragraphs:",
        recall_section(session_factory, store, summaries, compared, ROOT / "docs" / "img" / f"{stem}_recall.png"),
        f"![recall at equal budgets](img/{stem}_recall.png)",
        "Seconds per question, split:",
        time_split_table(summaries),
        f"![comparison](img/{stem}_comparison.png)\n![time split](img/{stem}_time_split.png)",
        *method_sections(store, runs, labels, compared),
    ]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
