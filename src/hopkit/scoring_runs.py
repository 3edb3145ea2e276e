"""Scores stored runs against their dataset's gold: the bridge from the store to evaluation."""

from __future__ import annotations

from typing import AbstractSet, Sequence

from hopkit.evaluation.aggregate import QuestionCost, RunSummary, summarize_run
from hopkit.evaluation.scoring import QuestionScores, score_question
from hopkit.store.records import RunInfo
from hopkit.store.store import Store

RETRIEVAL_BUDGET = 15


def score_run(store: Store, run: RunInfo,
              query_ids: AbstractSet[str] | None = None) -> tuple[RunSummary, list[QuestionScores]]:
    """Score the stored results of ``run`` (only ``query_ids`` if given, so runs can be
    compared on the same questions); failed questions score zero and are counted."""
    queries = {q.id: q for q in store.queries(run.dataset)}
    retrieves = "retrieval" in run.config
    scores: list[QuestionScores] = []
    costs: list[QuestionCost] = []
    for result in store.results(run.run_id):
        query = queries.get(result.query_id)
        if query is None or (query_ids is not None and result.query_id not in query_ids):
            continue
        retrieved = (store.paragraphs_by_ids(run.dataset, list(result.chunk_ids[:RETRIEVAL_BUDGET]))
                     if retrieves else None)
        scores.append(score_question(query, result.prediction, retrieved, budget=RETRIEVAL_BUDGET))
        costs.append(QuestionCost(
            llm_calls=result.llm_calls, prompt_tokens=result.prompt_tokens,
            completion_tokens=result.completion_tokens, cached_prompt_tokens=result.cached_prompt_tokens,
            llm_seconds=result.llm_seconds, retrieval_seconds=result.retrieval_seconds,
            total_seconds=result.total_seconds, failed=result.error is not None,
        ))
    summary = summarize_run(run.run_id, run.name, run.method, run.dataset, scores, costs)
    return summary, scores


def score_runs(store: Store, runs: Sequence[RunInfo],
               query_ids: AbstractSet[str] | None = None) -> list[RunSummary]:
    """Summaries of ``runs`` in the order given (on ``query_ids`` only, if given)."""
    return [score_run(store, run, query_ids)[0] for run in runs]
