"""Why few-shot IRCoT wins or loses against OneR: four checks on the stored runs, no LLM calls.

The issue names four suspects; each check reads the few-shot IRCoT run of qa_bench
(direct reader) and the OneR run on the same questions:

1. Sentence cutting: of the CoT sentences IRCoT kept, how many a naive ``". "`` cut
   would have broken (initials, abbreviations, decimals), and how many copy a sentence
   of a collected paragraph word for word; and how many questions the model answered
   within two steps (one fact, then "answer is"), leaving IRCoT two retrievals.
2. Query cleaning: recall of the paragraphs IRCoT collected, read from its typed trace
   (``hopkit.traces``: each retrieval's query, what it returned, what the collection
   kept and dropped and why), beside counterfactual retrievals at the same points of the
   traced CoT with reasoning sentences not skipped, with wh-words kept, and with the raw
   last sentence (replayed with BM25; replayed with IRCoT's own queries, they must give
   back the traced paragraphs). Counterfactual: a different retrieval would have changed
   the CoT too. And, from the trace, what the collection dropped: duplicates, near
   duplicates, paragraphs over 600 words, paragraphs past the budget, and retrievals
   skipped (empty query, full budget).
3. Prompt fitting: demonstrations kept in the reasoning prompts (first step, fewest,
   questions that dropped one mid-way) and in the reader's prompt, for IRCoT's
   paragraphs and for OneR's (the model's tokenizer, no generation).
4. Reader: on the questions where IRCoT and OneR both hold every gold paragraph, the
   two readers' EM: retrieval is then equal, so a gap is the reading.

Runs stored before IRCoT recorded a typed trace have none: rerun ``qa_bench`` for them.

    HOPKIT_DATA_DIR=../shared/data .venv/bin/python -m benchmarks.ircot_diagnostics --limit 50
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from hopkit.campaign.environment import NOTEBOOK_MD
from hopkit.campaign.page_sections import command_line, write_section
from hopkit.campaign.bench_store import add_store_options, open_bench_store
from hopkit.campaign.paired_tables import stored_results
from hopkit.campaign.qa_bench import pipeline_for
from hopkit.config import load_llm
from hopkit.evaluation.metrics import exact_match, paragraph_recall
from hopkit.methods.ircot.method import IRCoTConfig
from hopkit.methods.ircot.query import is_reasoning_sentence, next_query, remove_wh_words
from hopkit.methods.ircot.steps import IRCoTReason, IRCoTRetrieve, IRCoTSummary
from hopkit.methods.paragraph_collection import ParagraphCollection
from hopkit.methods.prompting import DemonstrationFitter
from hopkit.pipelines.generation.config import load_demonstrations
from hopkit.pipelines.retrieval.bm25 import BM25RetrievalPipeline
from hopkit.prompts.layout import test_block
from hopkit.records import Paragraph, Query
from hopkit.store.store import Store
from hopkit.traces import Step, Trace

BUDGET = 15
QueryMaker = Callable[[str, Sequence[str]], str]


def without_reasoning_skip(question: str, sentences: Sequence[str]) -> str:
    return remove_wh_words(sentences[-1] if sentences else question).strip()


def with_wh_words(question: str, sentences: Sequence[str]) -> str:
    factual = [s for s in sentences if not is_reasoning_sentence(s)]
    return (factual[-1] if factual else question).strip()


def raw_last_sentence(question: str, sentences: Sequence[str]) -> str:
    return (sentences[-1] if sentences else question).strip()


COUNTERFACTUALS: dict[str, QueryMaker] = {"reasoning not skipped": without_reasoning_skip,
                                          "wh-words kept": with_wh_words, "raw last sentence": raw_last_sentence}
RECALL_COLUMNS = ("as run", *COUNTERFACTUALS)
# What the trace says the collection did: retrievals made or skipped, paragraphs returned,
# kept, and dropped by reason (the reasons of hopkit.methods.paragraph_collection).
DROP_REASONS = ("duplicate", "near_duplicate", "too_long", "budget_full")


def retrievals(trace: Trace) -> list[Step]:
    """The traced retrievals, made or skipped, in order."""
    return [step for step in trace.steps if step.kind == "retrieve"]


def traced_collection(trace: Trace) -> list[int]:
    """The paragraphs IRCoT collected, in order, as its trace recorded them."""
    return [pid for step in retrievals(trace) for pid in step.payload(IRCoTRetrieve).kept]


def sentences_before(trace: Trace, step: Step) -> list[str]:
    """The CoT sentences written before ``step`` (an empty generation writes none)."""
    reasoning = [s.payload(IRCoTReason) for s in trace.steps[:step.id - 1] if s.kind == "reason"]
    return [r.sentence for r in reasoning if r.sentence]


def collection_tally(trace: Trace) -> Counter[str]:
    """Retrievals made and skipped (by reason), paragraphs returned, kept and dropped (by reason)."""
    tally: Counter[str] = Counter()
    for step in retrievals(trace):
        retrieval = step.payload(IRCoTRetrieve)
        tally[f"skipped:{retrieval.skipped}" if retrieval.skipped else "retrievals"] += 1
        tally["returned"] += len(step.paragraph_ids)
        tally["kept"] += len(retrieval.kept)
        tally.update(drop.reason for drop in retrieval.dropped)
    return tally


def replay(retriever: Any, config: IRCoTConfig, query: Query, trace: Trace, make_query: QueryMaker) -> list[int]:
    """The paragraphs IRCoT would have collected with ``make_query``, at the points of its
    traced CoT where it retrieved (a counterfactual: it needs the retriever)."""
    collection = ParagraphCollection(config.paragraph_budget, config.max_paragraph_words,
                                     config.near_duplicate_threshold)
    for step in retrievals(trace):
        text = make_query(query.text, sentences_before(trace, step))
        if text and not collection.is_full:
            exclude = set(collection.ids) if config.exclude_collected else set()
            k = step.payload(IRCoTRetrieve).k
            collection.extend(hit.paragraph for hit in retriever.retrieve(text, k, exclude=exclude))
    return list(collection.ids)


def naive_first_sentence(text: str) -> str:
    """What a ``". "`` search keeps of ``text``."""
    return text.split(". ", 1)[0] + "." if ". " in text else text


def normalised_words(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))


def copied(sentence: str, paragraphs: Sequence[Paragraph]) -> bool:
    """Whether ``sentence`` (4+ words) appears word for word in one of ``paragraphs``."""
    words = normalised_words(sentence)
    return len(words.split()) >= 4 and any(words in normalised_words(p.text) for p in paragraphs)


@dataclass
class Diagnosis:
    dataset: str
    n: int
    sentences: int
    answered_early: int
    naive_breaks: int
    copies: int
    recall: dict[str, float]
    replay_agrees: int
    trace_agrees: int
    tally: Counter[str]
    first_demos: float
    fewest_demos: float
    dropped: int
    reader_demos_ircot: float
    reader_demos_oner: float
    both_complete: int
    both_complete_em: tuple[float, float]


def reader_demonstrations(fitter: DemonstrationFitter, llm: Any, question: str, paragraphs: Sequence[Paragraph],
                          reserve: int) -> int:
    return fitter.count_fitting(llm.count_tokens(test_block(paragraphs, question)), reserve)


def diagnose(store: Store, session_factory: Any, llm: Any, dataset: str, limit: int) -> Diagnosis | None:
    queries = {q.id: q for q in store.queries(dataset, limit=limit)}
    ircot_pipeline = pipeline_for("ircot", dataset, session_factory, llm)
    oner_pipeline = pipeline_for("oner", dataset, session_factory, llm)
    ircot = stored_results(store, ircot_pipeline.run_spec().run_id, queries)
    oner = stored_results(store, oner_pipeline.run_spec().run_id, queries)
    ids = [qid for qid in queries if qid in ircot and qid in oner]
    if not ids or len(ids) < len(queries):
        return None
    traces = {qid: Trace.from_result_trace(ircot[qid].trace) for qid in ids}
    untraced = [qid for qid, trace in traces.items() if not retrievals(trace)]
    if untraced:
        print(f"{dataset}: {len(untraced)} IRCoT results have no typed trace (stored before IRCoT recorded one, "
              f"e.g. question {untraced[0]}); rerun qa_bench to diagnose them", file=sys.stderr)
        return None
    config = ircot_pipeline.config
    retriever = BM25RetrievalPipeline(session_factory, "bm25", dataset=dataset).retriever()
    paragraphs = {p.id: p for p in store.paragraphs(dataset)}
    fitter = DemonstrationFitter(llm, load_demonstrations(ircot_pipeline.demonstrations, "direct", with_context=True))
    reserve = config.reader_max_tokens
    sentences = naive = copies = replay_agrees = trace_agrees = dropped = early = 0
    recall = {name: 0.0 for name in RECALL_COLUMNS}
    tally: Counter[str] = Counter()
    first, fewest, demos_ircot, demos_oner = [], [], [], []
    complete: list[tuple[float, float]] = []
    for qid in ids:
        query, result, trace = queries[qid], ircot[qid], traces[qid]
        summary = IRCoTSummary.from_result_trace(result.trace)
        collected = [paragraphs[i] for i in result.chunk_ids]
        tally += collection_tally(trace)
        early += summary.stop_reason == "answer" and summary.steps <= 2
        for sentence in summary.cot_sentences:
            sentences += 1
            naive += naive_first_sentence(sentence) != sentence
            copies += copied(sentence, collected)
        as_run = traced_collection(trace)
        trace_agrees += as_run == list(result.chunk_ids)
        replay_agrees += replay(retriever, config, query, trace, next_query) == as_run
        recall["as run"] += paragraph_recall(as_run, query.gold_paragraph_ids, BUDGET)
        for name, make_query in COUNTERFACTUALS.items():
            ids_replayed = replay(retriever, config, query, trace, make_query)
            recall[name] += paragraph_recall(ids_replayed, query.gold_paragraph_ids, BUDGET)
        kept = list(summary.demonstrations)
        if kept:
            first.append(kept[0])
            fewest.append(min(kept))
            dropped += min(kept) < kept[0]
        oner_paragraphs = [paragraphs[i] for i in oner[qid].chunk_ids]
        demos_ircot.append(reader_demonstrations(fitter, llm, query.text, collected, reserve))
        demos_oner.append(reader_demonstrations(fitter, llm, query.text, oner_paragraphs, reserve))
        gold = set(query.gold_paragraph_ids)
        if gold and gold <= set(result.chunk_ids[:BUDGET]) and gold <= set(oner[qid].chunk_ids):
            complete.append((exact_match(result.prediction, query.answers),
                             exact_match(oner[qid].prediction, query.answers)))
    n = len(ids)

    def mean(values: Sequence[float]) -> float:
        return sum(values) / len(values) if values else float("nan")

    return Diagnosis(
        dataset=dataset, n=n, sentences=sentences, answered_early=early, naive_breaks=naive, copies=copies,
        recall={name: 100 * total / n for name, total in recall.items()}, replay_agrees=replay_agrees,
        trace_agrees=trace_agrees, tally=tally,
        first_demos=mean(first), fewest_demos=mean(fewest), dropped=dropped,
        reader_demos_ircot=mean(demos_ircot), reader_demos_oner=mean(demos_oner), both_complete=len(complete),
        both_complete_em=(100 * mean([c[0] for c in complete]), 100 * mean([c[1] for c in complete])))


def render(diagnoses: list[Diagnosis], command: str) -> str:
    names = list(RECALL_COLUMNS)
    lines = [
        "## Why IRCoT wins or loses: four checks on the stored runs (`benchmarks/ircot_diagnostics.py`)",
        f"Command: `{command}`. No LLM calls; few-shot IRCoT (direct reader) against OneR (K=5) on the same "
        "questions. See the script's docstring for what each column measures.",
        "",
        "**Sentence cutting and query cleaning.** Recall of gold paragraphs (at most 15): as run (read from "
        "IRCoT's trace), then with the retrieval replayed at the same points of its traced CoT, each query rule "
        "in turn. Last columns: questions whose trace gives the stored paragraphs, and whose replay with "
        "IRCoT's own queries gives the traced ones.",
        "",
        "| dataset | n | answered within 2 steps | CoT sentences | a naive `. ` cut breaks | "
        "copy a paragraph sentence | "
        + " | ".join(f"recall: {name}" for name in names) + " | trace = stored | replay = trace |",
        "|---|---:|---:|---:|---:|---:|" + "---:|" * len(names) + "---:|---:|",
    ]
    for d in diagnoses:
        lines.append(f"| {d.dataset} | {d.n} | {d.answered_early} | {d.sentences} | {d.naive_breaks} | {d.copies} | "
                     + " | ".join(f"{d.recall[name]:.1f}" for name in names)
                     + f" | {d.trace_agrees} of {d.n} | {d.replay_agrees} of {d.n} |")
    lines += [
        "",
        "**What the collection kept and dropped** (totals over the questions, from the trace): retrievals made "
        "and skipped, paragraphs the retriever returned, those kept, and those dropped by reason.",
        "",
        "| dataset | retrievals | skipped: empty query | skipped: budget full | returned | kept | "
        + " | ".join(f"dropped: {reason.replace('_', ' ')}" for reason in DROP_REASONS) + " |",
        "|---|---:|---:|---:|---:|---:|" + "---:|" * len(DROP_REASONS),
    ]
    for d in diagnoses:
        t = d.tally
        lines.append(f"| {d.dataset} | {t['retrievals']} | {t['skipped:empty_query']} | {t['skipped:budget_full']} | "
                     f"{t['returned']} | {t['kept']} | " + " | ".join(str(t[reason]) for reason in DROP_REASONS) + " |")
    lines += [
        "",
        "**Prompt fitting and reader.** Demonstrations kept (4k context); the reader's are the direct-reader "
        "demonstrations that fit beside IRCoT's paragraphs or OneR's. Last columns: questions where both "
        "IRCoT and OneR hold every gold paragraph, and each one's EM there.",
        "",
        "| dataset | reasoning demos, first step | fewest | questions that dropped one | reader demos with "
        "IRCoT's paragraphs | with OneR's | both hold all gold | IRCoT EM there | OneR EM there |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for d in diagnoses:
        lines.append(f"| {d.dataset} | {d.first_demos:.1f} | {d.fewest_demos:.1f} | {d.dropped} of {d.n} | "
                     f"{d.reader_demos_ircot:.1f} | {d.reader_demos_oner:.1f} | {d.both_complete} | "
                     f"{d.both_complete_em[0]:.1f} | {d.both_complete_em[1]:.1f} |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=["hotpotqa", "2wikimultihopqa", "musique"])
    parser.add_argument("--limit", type=int, default=50)
    add_store_options(parser)
    args = parser.parse_args()
    session_factory, store = open_bench_store(args)
    llm = load_llm(args.llm)  # run ids depend on the model; its tokenizer counts the demonstrations
    diagnoses = [d for dataset in args.datasets
                 if (d := diagnose(store, session_factory, llm, dataset, args.limit)) is not None]
    command = command_line()
    section = render(diagnoses, command)
    print(section)
    write_section("ircot-diagnostics", section, NOTEBOOK_MD)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
