"""SearChain's confidence threshold θ for a reader, by the paper's procedure (Appendix A.4.1).

"We initialize the initial value of the confidence threshold (1.0) ... and gradually
increase the value with a step size of 0.1. We validate the F1-score (... of judging
whether the passage can answer the question) on the mixed open-domain QA datasets."
The paper's pairs are single-hop questions with their top-1 passage; SearChain's nodes
are single-hop sub-questions too. Here the pairs are the single-hop sub-questions of
MuSiQue's decompositions (``#k`` replaced by the k-th step's answer, a step written as a
Wikidata triple "X >> relation" asked as "What is the relation of X?"), from questions
51 .. 50+limit of the sample (the benchmark uses the first 30), each with its top-1 BM25
passage from the pooled sample corpus (as SearChain retrieves in the benchmark). A pair
is positive when the passage contains a gold answer of its sub-question (cover-EM; the
last step also takes the question's aliases). The reader reads the passage as SearChain
shows it (``title: text``); "confidence > θ" predicts the label. The sweep covers the
reader's own scale (the LLM reader's log-odds may be below 1.0) in steps of 0.1 and
keeps the best F1 (the lowest θ among ties); the best from 1.0 upward is reported too.

Readings are stored per pair as they are made (``benchmarks/results/calibration/``), so a
stopped run resumes. The result goes to ``benchmarks/thresholds.json`` (read by qa_bench)
and to docs/notebook.md, section ``searchain-calibration``::

    HOPKIT_DATA_DIR=../shared/data nice -n 19 .venv/bin/hopkit campaign calibrate-searchain
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import Any

from tqdm import tqdm

from hopkit.campaign.page_sections import command_line, write_section
from hopkit.campaign.calibration import FIRST_CALIBRATION_QUESTION, SCORES_DIR, Sample, safe_name
from hopkit.campaign.environment import LLM_NAME, NOTEBOOK_MD
from hopkit.campaign.thresholds import ALL_TASKS, SEARCHAIN_CONFIDENCE, THRESHOLDS_FILE, store_threshold
from hopkit.calibration.scores import ScoreFile
from hopkit.calibration.searchain import (PAPER_THETA, ThetaPoint, best_point, point_at, read_pair, sub_question_pairs,
                                          sweep)
from hopkit.cli.numbers import integer
from hopkit.config import load_llm
from hopkit.data.registry import sample_path
from hopkit.judges.factory import answer_judge
from hopkit.methods.searchain.method import SearChainConfig


def calibrated_points(items: dict[str, Any]) -> tuple[ThetaPoint, ThetaPoint | None, ThetaPoint | None]:
    """θ with the best F1 over the scored pairs, the best from 1.0 up (the paper's grid), and the paper's θ.

    Raises:
        SystemExit: the reader read no answer in any pair.
    """
    points = sweep([item["confidence"] for item in items.values()], [item["label"] for item in items.values()])
    chosen = best_point(points)
    if chosen is None:
        raise SystemExit("the reader read no answer in any pair; nothing to calibrate")
    return chosen, best_point(points, 1.0), point_at(points, PAPER_THETA)


def render(chosen: ThetaPoint, paper_grid: ThetaPoint | None, at_paper: ThetaPoint | None, items: dict[str, Any],
           args: argparse.Namespace, command: str, reader_id: str) -> str:
    positives = sum(1 for item in items.values() if item["label"])
    seconds = sum(item["seconds"] for item in items.values()) / len(items)

    def row(name: str, point: ThetaPoint | None) -> str:
        if point is None:
            return f"| {name} | - | - | - | - |"
        return (f"| {name} | {point.theta:.1f} | {100 * point.f1:.1f} | {100 * point.precision:.1f} | "
                f"{100 * point.recall:.1f} |")

    return "\n\n".join([
        f"## SearChain θ for the LLM reader of {args.llm} (`hopkit campaign calibrate-searchain`)",
        f"Command: `{command}`  \nMachine: {os.cpu_count()} cores, no GPU.",
        f"{len(items)} (sub-question, top-1 passage) pairs from the MuSiQue decompositions of questions "
        f"{args.start + 1}-{args.start + args.limit} of the sample (the benchmark uses the first 30); "
        f"{positives} of them ({100 * positives / len(items):.0f}%) have a passage containing a gold answer. "
        f"Reader `{reader_id}` (confidence: log P(yes) - log P(no) that its answer is right); "
        f"{seconds:.1f} s per pair. \"confidence > θ\" predicts the label; θ swept in steps of 0.1.",
        "\n".join(["| θ | value | F1 | precision | recall |", "|---|---:|---:|---:|---:|",
                   row("best over the reader's scale (used)", chosen), row("best from 1.0 upward", paper_grid),
                   row(f"the paper's {PAPER_THETA}", at_paper)]),
    ])


def command_parser() -> argparse.ArgumentParser:
    """The command line (tests/benchmarks/test_calibration_sections.py reads the section's command with it)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--llm", default=LLM_NAME, help="LLM config; the reader runs on it")
    parser.add_argument("--limit", type=integer(), default=50, help="MuSiQue questions whose sub-questions are read")
    parser.add_argument("--start", type=integer(), default=FIRST_CALIBRATION_QUESTION, help="first question (0-based)")
    parser.add_argument("--scores-dir", type=Path, default=SCORES_DIR)
    parser.add_argument("--thresholds", type=Path, default=THRESHOLDS_FILE)
    parser.add_argument("--report", type=Path, default=NOTEBOOK_MD, help="the markdown file to write the section to")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = command_parser().parse_args(argv)
    command = command_line()
    sample = Sample.load("musique")
    if args.start < FIRST_CALIBRATION_QUESTION:
        sample.calibration_queries(args.start, args.limit)  # refuses, saying why
    with sample_path("musique").open(encoding="utf-8") as lines:
        rows = [json.loads(line) for line in lines if line.strip()][args.start:args.start + args.limit]
    llm = load_llm(args.llm)
    reader = answer_judge(SearChainConfig().reader, llm=llm, option="reader")
    score_file = f"searchain_confidence_{safe_name(args.llm)}_{safe_name(reader.judge_id)}.json"
    scores = ScoreFile(args.scores_dir / score_file,
                       {"reader": reader.judge_id, "retrieval": "bm25 top-1",
                        "pairs": "musique decompositions, triples as questions"})
    todo = [pair for row in rows for pair in sub_question_pairs(row) if pair.key not in scores.items]
    for pair in tqdm(todo, desc="θ: sub-questions", unit="pair"):
        scores.add(pair.key, read_pair(pair, sample.retriever, reader))
    items = scores.items
    chosen, paper_grid, at_paper = calibrated_points(items)
    print(f"θ = {chosen.theta:.1f} (F1 {chosen.f1:.3f}, {len(items)} pairs)")
    store_threshold(SEARCHAIN_CONFIDENCE, args.llm, ALL_TASKS, {
        "value": chosen.theta, "f1": round(chosen.f1, 4), "precision": round(chosen.precision, 4),
        "recall": round(chosen.recall, 4), "pairs": len(items),
        "positives": sum(1 for item in items.values() if item["label"]), "reader": reader.judge_id,
        "best_from_1.0": None if paper_grid is None else paper_grid.theta,
        "rule": "best F1 of 'confidence > θ' for 'the top-1 passage contains a gold answer', θ on a 0.1 grid "
                "(Appendix A.4.1), over MuSiQue decomposition sub-questions", "command": command}, args.thresholds)
    write_section("searchain-calibration", render(chosen, paper_grid, at_paper, items, args, command,
                                                  reader.judge_id), args.report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
