"""MIGRES's relevance threshold δ for a relevance judge, by the paper's rule (Table 11's caption).

"We conduct knowledge retrieval with the original questions on a sub-sampled set, and
compute relevance scores of the retrieved passages. We adjust δ so that more than 80% of
the questions find at least one external passage with a relevance higher than this
threshold." Here: questions 51 .. 50+limit of each sample of the task group (the
benchmark uses the first 30), BM25 with MIGRES's k1=0.9, b=0.4 over the pooled sample
corpus, 50 hits per question, each scored against its question by the LLM relevance
judge as MIGRES's knowledge filter shows it (``(Title: t) text``); δ is the largest value
at which at least 80% of the questions keep a passage
(:func:`hopkit.methods.migres.filter.coverage_threshold`).

With ``--rerank-top N`` (MIGRES's ``rerank_top``, a cost lever) only the best N BM25 hits
of each question are scored and δ is set on them, as the filter would see them; the
entry in ``thresholds.json`` carries ``rerank_top`` so qa_bench runs MIGRES with it.
Questions already scored on more hits are reused (their first N scores), and what the
cut loses is measured on them: the passages at or above δ that lie past the N-th hit.

Scores are stored per question as they are made (``benchmarks/results/calibration/``),
so a stopped run resumes. The result goes to ``benchmarks/thresholds.json`` (read by
qa_bench) and to docs/notebook.md, section ``migres-calibration-<task>``::

    HOPKIT_DATA_DIR=../shared/data nice -n 19 .venv/bin/hopkit campaign calibrate-migres --task multihop
"""

from __future__ import annotations

import argparse
import math
import os
import time
from pathlib import Path
from statistics import fmean
from typing import Any, Sequence

from tqdm import tqdm

from hopkit.campaign.page_sections import command_line, write_section
from hopkit.campaign.calibration import FIRST_CALIBRATION_QUESTION, SCORES_DIR, Sample, safe_name
from hopkit.campaign.environment import LLM_NAME, NOTEBOOK_MD
from hopkit.campaign.thresholds import MIGRES_RELEVANCE, THRESHOLDS_FILE, store_threshold
from hopkit.calibration.scores import ScoreFile
from hopkit.cli.numbers import integer
from hopkit.config import load_llm
from hopkit.judges.factory import relevance_judge
from hopkit.methods.migres.filter import coverage_threshold, shown

TASKS = {"multihop": ("hotpotqa", "2wikimultihopqa", "musique"), "strategyqa": ("strategyqa",)}
COVERAGE = 0.8
PAPER_DELTA = {"multihop": 3.0, "strategyqa": 0.0}  # Table 11, for the BGE reranker's logits


def kept_at(scores: Sequence[float], delta: float) -> int:
    """How many passages a question keeps at δ (the filter drops relevance < δ)."""
    return sum(1 for s in scores if s >= delta)


def coverage_at(questions: Sequence[Sequence[float]], delta: float) -> float:
    """The share of questions keeping at least one passage at δ."""
    return sum(1 for scores in questions if kept_at(scores, delta) > 0) / len(questions)


def summary(items: dict[str, Any], task: str, rerank_top: int | None = None) -> dict[str, Any]:
    """δ from the stored scores (each question's first ``rerank_top`` when set), and what it means."""
    questions = [item["scores"][:rerank_top] for item in items.values()]
    best = [max(scores) if scores else -math.inf for scores in questions]
    delta = coverage_threshold(best, COVERAGE)
    result = {"value": round(delta, 4), "questions": len(questions),
              "coverage": round(coverage_at(questions, delta), 4),
              "passages_kept_per_question": round(fmean(kept_at(s, delta) for s in questions), 2),
              "coverage_at_paper_delta": round(coverage_at(questions, PAPER_DELTA[task]), 4),
              "seconds_per_passage": round(fmean(item["seconds"] / max(1, len(item["scores"]))
                                                 for item in items.values()), 2)}
    if rerank_top is not None:
        result["rerank_top"] = rerank_top
        result["cut"] = cut_loss([item["scores"] for item in items.values()], rerank_top, delta)
    return result


def cut_loss(questions: Sequence[Sequence[float]], rerank_top: int, delta: float) -> dict[str, Any] | None:
    """What scoring only the first ``rerank_top`` hits loses at δ, on the questions scored further.

    Returns:
        None when no question was scored past ``rerank_top``; else ``questions`` (how many
        were), ``passages_past_cut`` (the share of their passages at or above δ that lie
        past the cut) and ``questions_only_past_cut`` (the share of them keeping a passage
        only past the cut).
    """
    deeper = [scores for scores in questions if len(scores) > rerank_top]
    if not deeper:
        return None
    kept = sum(kept_at(scores, delta) for scores in deeper)
    past = sum(kept_at(scores[rerank_top:], delta) for scores in deeper)
    only_past = sum(1 for scores in deeper if kept_at(scores[:rerank_top], delta) == 0 < kept_at(scores, delta))
    return {"questions": len(deeper), "passages_past_cut": round(past / kept, 4) if kept else 0.0,
            "questions_only_past_cut": round(only_past / len(deeper), 4)}


def render(result: dict[str, Any], task: str, args: argparse.Namespace, command: str, judge_id: str) -> str:
    datasets = ", ".join(TASKS[task])
    last = args.start + args.limit
    scored = "every hit" if result.get("rerank_top") is None else f"the best {result['rerank_top']}"
    return "\n\n".join(part for part in [
        f"## MIGRES δ for the LLM relevance judge of {args.llm}, {task} (`hopkit campaign calibrate-migres`)",
        f"Command: `{command}`  \nMachine: {os.cpu_count()} cores, no GPU.",
        f"Questions {args.start + 1}-{last} of each sample ({datasets}; the benchmark uses the first 30), "
        f"{result['questions']} in all, each retrieved with its original question (BM25, k1=0.9, b=0.4, "
        f"{args.hits} hits over the pooled sample corpus) and {scored} scored by the judge `{judge_id}` "
        "(log P(yes) - log P(no)). Rule (Table 11's caption): the largest δ at which at least "
        f"{COVERAGE:.0%} of the questions keep a passage.",
        cut_paragraph(result),
        "\n".join([
            "| δ | questions | questions keeping a passage at δ | passages kept per question at δ | "
            f"questions keeping a passage at the paper's δ={PAPER_DELTA[task]} | s/passage scored |",
            "|---:|---:|---:|---:|---:|---:|",
            f"| {result['value']:.2f} | {result['questions']} | {100 * result['coverage']:.0f}% | "
            f"{result['passages_kept_per_question']:.1f} | {100 * result['coverage_at_paper_delta']:.0f}% | "
            f"{result['seconds_per_passage']:.2f} |"]),
    ] if part)


def cut_paragraph(result: dict[str, Any]) -> str:
    """What the rerank cut is and what it loses, when δ was set on a cut (else nothing)."""
    top = result.get("rerank_top")
    if top is None:
        return ""
    text = (f"Only the best {top} BM25 hits of each question are scored (`rerank_top: {top}`, the cost lever "
            "MIGRES runs with here): δ is set on the passages the filter scores.")
    cut = result.get("cut")
    if cut is None:
        return text
    return (f"{text} On the {cut['questions']} questions scored on all their hits, "
            f"{100 * cut['passages_past_cut']:.0f}% of the passages at or above δ lie past hit {top}, and "
            f"{100 * cut['questions_only_past_cut']:.0f}% of the questions keep a passage only past it: "
            "that is what the cut loses.")


def command_parser() -> argparse.ArgumentParser:
    """The command line (tests/benchmarks/test_calibration_sections.py reads the sections' commands with it)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--llm", default=LLM_NAME, help="LLM config; the judge runs on it")
    parser.add_argument("--task", choices=sorted(TASKS), default="multihop")
    parser.add_argument("--limit", type=integer(), default=20, help="questions per dataset")
    parser.add_argument("--start", type=integer(), default=FIRST_CALIBRATION_QUESTION,
                        help="first question (0-based) of each sample")
    parser.add_argument("--hits", type=integer(), default=50, help="BM25 hits per question (Table 11: 50)")
    parser.add_argument("--rerank-top", type=integer(), default=None,
                        help="score only the best N hits and set δ on them (MIGRES's rerank_top); default: all")
    parser.add_argument("--scores-dir", type=Path, default=SCORES_DIR)
    parser.add_argument("--thresholds", type=Path, default=THRESHOLDS_FILE)
    parser.add_argument("--report", type=Path, default=NOTEBOOK_MD, help="the markdown file to write the section to")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = command_parser().parse_args(argv)
    command = command_line()
    llm = load_llm(args.llm)
    judge = relevance_judge("llm", llm=llm, option="reranker")
    scores = ScoreFile(args.scores_dir / f"migres_relevance_{safe_name(args.llm)}_{args.task}.json",
                       {"judge": judge.judge_id, "hits": args.hits, "bm25": {"k1": 0.9, "b": 0.4}})
    scored = min(args.hits, args.rerank_top or args.hits)
    for dataset in TASKS[args.task]:
        sample = Sample.load(dataset, k1=0.9, b=0.4)
        hits_of = {q.id: sample.retriever.retrieve(q.text, args.hits)[:scored]
                   for q in sample.calibration_queries(args.start, args.limit)}
        todo = [q for q in sample.calibration_queries(args.start, args.limit)
                if len(scores.items.get(q.id, {}).get("scores", ())) < len(hits_of[q.id])]
        for query in tqdm(todo, desc=f"δ: {dataset}", unit="q"):
            started = time.perf_counter()
            hits = hits_of[query.id]
            relevance = judge.relevance(query.text, [shown(h.paragraph.title, h.paragraph.text) for h in hits])
            scores.add(query.id, {"dataset": dataset, "question": query.text,
                                  "paragraph_ids": [h.id for h in hits], "scores": [float(s) for s in relevance],
                                  "seconds": time.perf_counter() - started})
    result = summary(scores.items, args.task, args.rerank_top)
    print(f"δ = {result['value']} ({result['questions']} questions)")
    store_threshold(MIGRES_RELEVANCE, args.llm, args.task, {
        **result, "datasets": list(TASKS[args.task]), "first_question": args.start + 1, "hits": args.hits,
        "judge": judge.judge_id, "rule": f"largest δ at which {COVERAGE:.0%} of the questions keep a passage "
                                          "(Table 11's caption)", "command": command}, args.thresholds)
    write_section(f"migres-calibration-{args.task}", render(result, args.task, args, command, judge.judge_id),
                  args.report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
