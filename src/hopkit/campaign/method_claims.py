"""A method against the others, paired on the same questions: MIGRES or SearChain against NoR, OneR,
IRCoT, the other and its own ablations; each of the seeds' baselines against IRCoT, MIGRES,
SearChain and the baselines the papers rank it against (:data:`OTHERS`).

Reads the stored runs of qa_bench (nothing is run): the method on each sample against each run
of :data:`OTHERS`, on the questions both attempted, a failed one counting as wrong (a pair whose run
was not made is left out). IRCoT is the paper's configuration (its own-context reader) as
``benchmarks.reader_context_check`` stored it: the reasoning of the ``ircot-reasoning-reader`` run read
again by the paper's reader (``benchmarks/results/reader_context_rereads.json``); IRCoT is not run on StrategyQA.
Each pair gets cover-EM (the paper's metric), EM and F1: the two means, the difference
with a 95% paired bootstrap interval, questions won and lost, and the exact McNemar
(cover-EM, EM) or sign-flip permutation (F1) p-value
(:func:`hopkit.evaluation.compare.compare_scores`); the multi-hop samples are also pooled.
Written to docs/notebook.md, section ``<method>-claims`` (or ``--section``)::

    HOPKIT_DATA_DIR=../shared/data .venv/bin/hopkit campaign paired --method searchain
    HOPKIT_DATA_DIR=../shared/data .venv/bin/hopkit campaign paired --method migres
    HOPKIT_DATA_DIR=../shared/data .venv/bin/hopkit campaign paired --method iter-retgen
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Sequence

from hopkit.campaign.environment import NOTEBOOK_MD
from hopkit.campaign.page_sections import command_line, markdown_table, write_section
from hopkit.campaign.baseline_costs import run_results
from hopkit.campaign.bench_store import MULTI_HOP, open_store, stored_runs_parser
from hopkit.campaign.paired_tables import (
    REFERENCE_REASONING,
    comparison_cells,
    comparison_header,
    metric_cells,
    stored,
)
from hopkit.campaign.qa_bench import ingest, pipeline_for
from hopkit.campaign.qa_pipelines import SKIPPED
from hopkit.campaign.rereads import load_rereads
from hopkit.campaign.retired_runs import rebuilding_section
from hopkit.campaign.saved_run_ids import answered_run_id
from hopkit.errors import StoreError
from hopkit.evaluation.compare import compare_scores
from hopkit.evaluation.scoring import QuestionScores, score_question
from hopkit.judging_runs import accuracy_by_question, choose_judge
from hopkit.records import Query
from hopkit.report.escape import markdown_cell
from hopkit.store.store import Store

#: What each method is compared with: the baselines, the other method, then its own ablations.
OTHERS = {
    "searchain": ("nor", "oner", "ircot", "migres", "searchain-no-verification", "searchain-no-completion"),
    "migres": ("nor", "oner", "ircot", "searchain", "migres-fewshot", "migres-no-sentence-filter",
               "migres-no-knowledge"),
}
#: The three methods every baseline is placed among (the issue's paired comparisons).
METHODS = ("ircot", "migres", "searchain")
#: Table 3 of the MIGRES paper ranks ITER-RETGEN and Self-Ask above ReAct (Shao et al.'s) on multi-hop.
#: FLARE (Jiang et al., 2023) is measured against no retrieval, single-time retrieval and Self-Ask.
#: Table 3 of MIGRES has VANILLA-s, SUMM and SNIPPET above VANILLA and RERANK above the other ALCE readers.
ALCE_READERS = ("alce-vanilla", "alce-vanilla-s", "alce-summ", "alce-snippet", "alce-rerank")
OTHERS.update({
    "iter-retgen": (*METHODS, "self-ask", "react-shao"),
    "self-ask": (*METHODS, "react-shao"),
    "react-shao": METHODS,
    "react": (*METHODS, "react-shao"),
    "flare": (*METHODS, "nor", "oner", "self-ask", "iter-retgen"),
    "alce-vanilla": (*METHODS, "oner"),
    **{f"alce-{reader}": (*METHODS, "oner", "alce-vanilla") for reader in ("vanilla-s", "summ", "snippet")},
    "alce-rerank": (*METHODS, "oner", *ALCE_READERS[:-1]),
})
#: The 2025 methods against the baselines issue 51 pairs them with (DRAGIN and its guarded lever also against the
#: plain-case lever, the other search-agent families against Search-R1's template, the trained router against the
#: untrained one); on the dense retriever against OneR and IRCoT on it and against themselves on BM25 (with the
#: same extras, on it).
AGENTS_2025_BASELINES = ("ircot", "iter-retgen", "flare", "oner")
OTHERS.update({
    "search-o1": AGENTS_2025_BASELINES,
    "search-r1": AGENTS_2025_BASELINES,
    "r1-searcher": (*AGENTS_2025_BASELINES, "search-r1"),
    "autorefine": (*AGENTS_2025_BASELINES, "search-r1"),
    "adaptive-rag": (*AGENTS_2025_BASELINES, "nor"),
    "adaptive-rag-trained": (*AGENTS_2025_BASELINES, "nor", "adaptive-rag"),
    "dragin": (*AGENTS_2025_BASELINES, "dragin-plain-case"),
    "dragin-plain-case": AGENTS_2025_BASELINES,
    "dragin-guarded": (*AGENTS_2025_BASELINES, "dragin-plain-case"),
})
#: Each 2025 method's extras on the dense retriever (on MiniLM where they retrieve).
DENSE_EXTRAS = {"search-o1": (), "search-r1": (), "r1-searcher": ("search-r1-minilm",),
                "autorefine": ("search-r1-minilm",), "adaptive-rag": ("nor",), "dragin-plain-case": ()}
OTHERS.update({f"{method}-minilm": ("oner-minilm", "ircot-minilm", *extras, method)
               for method, extras in DENSE_EXTRAS.items()})
NAMES = {"searchain": "SearChain", "migres": "MIGRES", "iter-retgen": "ITER-RETGEN", "self-ask": "Self-Ask",
         "react-shao": "ReAct (Shao et al.)", "react": "ReAct", "flare": "FLARE", "alce-vanilla": "ALCE VANILLA",
         "alce-vanilla-s": "ALCE VANILLA-s", "alce-summ": "ALCE SUMM", "alce-snippet": "ALCE SNIPPET",
         "alce-rerank": "ALCE RERANK", "ircot": "IRCoT", "nor": "NoR", "oner": "OneR", "search-o1": "Search-o1",
         "search-r1": "Search-R1 (prompted)", "r1-searcher": "R1-Searcher (prompted)",
         "autorefine": "AutoRefine (prompted)", "adaptive-rag": "Adaptive-RAG",
         "adaptive-rag-trained": "Adaptive-RAG (trained router)", "dragin": "DRAGIN",
         "dragin-plain-case": "DRAGIN (plain case)", "dragin-guarded": "DRAGIN (guarded)"}
NAMES.update({f"{method}-minilm": (f"{NAMES[method][:-1]}, MiniLM)" if NAMES[method].endswith(")")
                                   else f"{NAMES[method]} (MiniLM)")
              for method in ("oner", "ircot", *DENSE_EXTRAS)})
ABLATIONS = {"searchain": "itself without Verification or Completion",
             "migres": "itself few-shot, without sentence filtering or without LLM knowledge"}
METRICS = ("em", "f1", "cover_em")
ACCURACY = ("llm_accuracy",)


@dataclass(frozen=True)
class Answers:
    """A method's stored answers on a sample, by question id, and their Acc† (the LLM judge's
    verdicts, by question id; empty when ``hopkit judge`` has not judged every answer)."""

    predictions: dict[str, str] = field(default_factory=dict)
    accuracy: dict[str, float] = field(default_factory=dict)


def run_answers(store: Store, method: str, dataset: str, session_factory: Any, llm: Any, llm_name: str,
                limit: int) -> Answers:
    """The stored answers of ``method`` on the first ``limit`` questions, a failed question's as "" (it counts
    as wrong, as in qa_bench's tables; IRCoT: the paper reader's re-reads, which no judge has judged); none
    when the run was not made."""
    try:
        return _run_answers(store, method, dataset, session_factory, llm, llm_name, limit)
    except StoreError:
        return Answers()


def _run_answers(store: Store, method: str, dataset: str, session_factory: Any, llm: Any, llm_name: str,
                 limit: int) -> Answers:
    if (method, dataset) in SKIPPED:
        return Answers()
    if method == "ircot":
        if (REFERENCE_REASONING, dataset) in SKIPPED:
            return Answers()
        rereads = load_rereads("own")
        reasoning = stored(store, pipeline_for(REFERENCE_REASONING, dataset, session_factory, llm), dataset, limit)
        return Answers({q: rereads[f"{dataset}/{q}"]["answer"] for q in reasoning if f"{dataset}/{q}" in rereads})
    run_id = answered_run_id(method, dataset, session_factory, llm, llm_name)
    results = run_results(store, run_id, dataset, limit)
    return Answers({r.query_id: r.prediction if r.error is None else "" for r in results},
                   judged(store, run_id, results))


def judged(store: Store, run_id: str, results: list[Any]) -> dict[str, float]:
    """Acc† of each of ``results`` by the one judge that judged the run (empty unless it judged them all)."""
    judge = choose_judge(store.verdicts, [run_id])
    if judge is None:
        return {}
    verdicts = store.verdicts.verdicts(run_id, judge.model_id, judge.prompt_version)
    return accuracy_by_question(results, verdicts) or {}


def against(method: str) -> str:
    """What the section's heading says ``method`` is compared with."""
    if method in ABLATIONS:
        other = next(m for m in ABLATIONS if m != method)
        return f"NoR, OneR, IRCoT, {NAMES[other]} and {ABLATIONS[method]}"
    names = [NAMES.get(m, m) for m in OTHERS[method]]
    return f"{', '.join(names[:-1])} and {names[-1]}"


def scores_on(queries: list[Query], answers: Answers, dataset: str) -> list[QuestionScores]:
    return [replace(score_question(q, answers.predictions[q.id], None), query_id=f"{dataset}/{q.id}",
                    llm_accuracy=answers.accuracy.get(q.id)) for q in queries]


def accuracy_cells(a: list[QuestionScores], b: list[QuestionScores]) -> list[str]:
    """Acc† of both and their paired difference, when the judge judged both runs' answers."""
    if any(s.llm_accuracy is None for s in (*a, *b)):
        return []
    (accuracy,) = compare_scores(a, b, metrics=ACCURACY).metrics
    return metric_cells(accuracy)


def claims_body(store: Store, session_factory: Any, llm: Any, llm_name: str, method: str,
                datasets: Sequence[str], limit: int) -> list[str]:
    """The section's tables: ``method`` against each other run, per sample and pooled, then Acc†.

    ``llm`` names the runs (their ids record the model); nothing is generated.
    """
    answers: Callable[[str, str], Answers] = lambda variant, dataset: run_answers(  # noqa: E731
        store, variant, dataset, session_factory, llm, llm_name, limit)
    others = OTHERS[method]
    rows: list[str] = []
    accuracy_rows: list[str] = []

    def add_pair(other: str, where: str, a: list[QuestionScores], b: list[QuestionScores]) -> None:
        rows.append(f"| {markdown_cell(other)} | {where} | {len(a)} | "
                    f"{' | '.join(comparison_cells(compare_scores(a, b, metrics=METRICS)))} |")
        cells = accuracy_cells(a, b)
        if cells:
            accuracy_rows.append(f"| {markdown_cell(other)} | {where} | {len(a)} | "
                                 f"{' | '.join(cells)} |")

    pooled: dict[str, tuple[list[QuestionScores], list[QuestionScores]]] = {m: ([], []) for m in others}
    for dataset in datasets:
        ingest(store, dataset)
        mine = answers(method, dataset)
        for other in others:
            theirs = answers(other, dataset)
            shared = [q for q in store.queries(dataset, limit=limit)
                      if q.id in mine.predictions and q.id in theirs.predictions]
            if not shared:
                continue
            a, b = scores_on(shared, mine, dataset), scores_on(shared, theirs, dataset)
            if dataset in MULTI_HOP:
                pooled[other][0].extend(a)
                pooled[other][1].extend(b)
            add_pair(other, markdown_cell(dataset), a, b)
    for other, (a, b) in pooled.items():
        found = [d for d in MULTI_HOP if any(s.query_id.startswith(f"{d}/") for s in a)]
        if len(found) > 1:
            add_pair(other, f"**pooled: {', '.join(markdown_cell(name) for name in found)}**", a, b)
    name = NAMES[method]
    header = ["against", "dataset", "n", *comparison_header(name, "other", f"{name} − other")]
    return [
        markdown_table(header, rows),
        "Acc† (the LLM judge with the MIGRES paper's Table 15 prompt, `hopkit judge`), on the pairs whose "
        "answers it judged in both runs (IRCoT's re-reads are not runs and are not judged):",
        markdown_table(["against", "dataset", "n", f"Acc† {name}", "Acc† other", f"Acc† {name} − other [95%]",
                        "won/lost", "p"], accuracy_rows) if accuracy_rows else "No pair is judged yet.",
    ]


def runs_note(method: str) -> str:
    """Which runs the section pairs: the retriever of each, and which IRCoT."""
    compared = (method, *OTHERS[method])
    dense = any(m.endswith("-minilm") for m in compared)
    retrieval = "BM25, or all-MiniLM-L6-v2 dense retrieval (exact) for the `-minilm` runs" if dense else "BM25"
    notes = [f"The stored runs of qa_bench (Qwen2.5-Coder-1.5B, 4k context, {retrieval})."]
    if "ircot" in compared:
        notes.append("IRCoT: the paper's configuration (own-context reader), i.e. the `ircot-reasoning-reader` "
                     "reasoning re-read by the paper's reader (section `reader-context`); not run on StrategyQA.")
    if "ircot-minilm" in compared:
        notes.append("IRCoT (MiniLM): the `ircot-minilm` run as stored, its reader reading in the reasoning "
                     "prompt's context as `ircot-reasoning-reader`'s does (not re-read by the paper's reader).")
    return " ".join(notes)


def command_parser() -> argparse.ArgumentParser:
    """The command line (tests/benchmarks/test_paired_sections.py reads each section's command with it)."""
    parser = stored_runs_parser(__doc__, [*MULTI_HOP, "strategyqa"])
    parser.add_argument("--method", choices=sorted(OTHERS), default="searchain")
    parser.add_argument("--section", help="the section of docs/notebook.md to write (default: METHOD-claims)")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = command_parser().parse_args(argv)
    command = command_line()
    session_factory, store, llm = open_store(args)
    name = NAMES[args.method]
    section = args.section or f"{args.method}-claims"
    with rebuilding_section(section):
        body = claims_body(store, session_factory, llm, args.llm, args.method, args.datasets, args.limit)
    write_section(section, "\n\n".join([
        f"## {name} against {against(args.method)} (paired, first questions of each sample)",
        f"Command: `{command}`",
        f"{runs_note(args.method)} *won/lost*: questions where {name} scored higher/lower; "
        "*p*: exact McNemar (EM, cover-EM) or sign-flip permutation (F1); intervals: 95% paired bootstrap.",
        *body,
    ]), NOTEBOOK_MD)
    return 0

if __name__ == "__main__":
    raise SystemExit(main())
