"""MIGRES's δ by the paper's rule, measured on your own questions.

MIGRES's Knowledge Filter keeps a passage when its relevance judge scores it at least δ,
in the judge's own scale: the paper's 3.0 is a BGE-reranker logit and means nothing for
an LLM judge. The paper's rule (Table 11's caption): retrieve with the original questions
of a sample not used for evaluation, score the passages, and take the largest δ at which
80% of the questions keep at least one passage.

Scores are kept per question in a :class:`~hopkit.calibration.scores.ScoreFile` as they are
made, so a stopped calibration resumes.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from statistics import fmean
from typing import Sequence

from tqdm import tqdm

from hopkit.calibration.scores import ScoreFile
from hopkit.judges.protocol import RelevanceJudge
from hopkit.methods.migres.filter import coverage_threshold, shown
from hopkit.records import Query
from hopkit.retrieval.protocol import Retriever

COVERAGE = 0.8


@dataclass(frozen=True)
class DeltaCalibration:
    """δ for one judge on some questions, and what it means for them.

    Attributes:
        delta: the largest δ at which ``coverage`` of the questions keep a passage.
        questions: how many questions were scored.
        coverage: the share of them keeping a passage at δ.
        passages_per_question: the passages a question keeps at δ, on average.
        coverage_at: the share of questions keeping a passage at the δ compared with (a config's).
        seconds_per_passage: what scoring one passage took.
    """

    delta: float
    questions: int
    coverage: float
    passages_per_question: float
    coverage_at: float
    seconds_per_passage: float


def calibrate_delta(queries: Sequence[Query], retriever: Retriever, judge: RelevanceJudge, scores: ScoreFile, *,
                    hits: int, rerank_top: int | None, compare_with: float, progress: bool = True) -> DeltaCalibration:
    """Score each question's retrieved passages with ``judge`` (those not scored yet) and set δ.

    Args:
        queries: the questions (not the ones you evaluate on).
        retriever: MIGRES's retriever (BM25 with k1 0.9, b 0.4 in the paper).
        judge: the relevance judge MIGRES will run with.
        scores: where each question's scores are kept.
        hits: passages retrieved per question (MIGRES's ``hits_per_query``).
        rerank_top: score only the best this many (MIGRES's ``rerank_top``), or every hit.
        compare_with: a δ to report the coverage of (the config's).

    Raises:
        ValueError: no questions.
    """
    if not queries:
        raise ValueError("calibrate_delta needs at least one question")
    scored = min(hits, rerank_top or hits)
    todo = [q for q in queries if scores.items.get(q.id, {}).get("scored", 0) < scored]
    for query in tqdm(todo, desc="scoring passages", unit="q", disable=not progress):
        started = time.perf_counter()
        found = retriever.retrieve(query.text, hits)[:scored]
        relevance = judge.relevance(query.text, [shown(h.paragraph.title, h.paragraph.text) for h in found])
        scores.add(query.id, {"question": query.text, "scored": scored, "paragraph_ids": [h.id for h in found],
                              "scores": [float(s) for s in relevance], "seconds": time.perf_counter() - started})
    per_question = [scores.items[q.id]["scores"][:scored] for q in queries]  # those scored deeper: their best N
    delta = coverage_threshold([max(s) if s else -math.inf for s in per_question], COVERAGE)
    return DeltaCalibration(
        delta=delta, questions=len(per_question), coverage=_coverage(per_question, delta),
        passages_per_question=fmean(sum(1 for x in s if x >= delta) for s in per_question),
        coverage_at=_coverage(per_question, compare_with),
        seconds_per_passage=fmean(scores.items[q.id]["seconds"] / max(1, len(scores.items[q.id]["scores"]))
                                  for q in queries))


def _coverage(per_question: Sequence[Sequence[float]], delta: float) -> float:
    return sum(1 for s in per_question if any(x >= delta for x in s)) / len(per_question)
