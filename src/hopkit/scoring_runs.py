"""Scores stored runs against their dataset's gold: the bridge from the store to evaluation.

A run is scored only against the corpus it ran on: a *stale* run (its dataset
was re-ingested with other content since) is refused, since its stored
paragraph ids point into the replaced corpus. :func:`split_scorable` sorts a
selection of runs into those that can be scored and those to skip, with the
reason, so that one stale or empty run never stops the others from being scored.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from typing import AbstractSet, Mapping, Sequence

from hopkit.errors import StoreError
from hopkit.evaluation.aggregate import QuestionCost, RunSummary, summarize_run
from hopkit.evaluation.llm_judge import JudgeIdentity
from hopkit.evaluation.scoring import QuestionScores, score_question
from hopkit.judging_runs import accuracy_by_question
from hopkit.store.records import QueryResult, RunInfo
from hopkit.store.store import Store
from hopkit.store.verdicts import StoredVerdict, VerdictStore

RETRIEVAL_BUDGET = 15

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class SkippedRun:
    """A run left out of an evaluation, and why (one line, naming the run)."""

    run: RunInfo
    reason: str


def split_scorable(runs: Sequence[RunInfo]) -> tuple[list[RunInfo], list[SkippedRun]]:
    """Split ``runs`` into those that can be scored and those that cannot.

    A run cannot be scored when it is stale (its dataset was re-ingested with a
    different corpus since it ran) or when it has no stored result yet (it was
    stopped before its first answer, or ran with ``--limit 0``).

    Args:
        runs: the runs, as the store lists them (staleness and counts current).

    Returns:
        The scorable runs in the order given, and the skipped ones with their reasons.
    """
    scorable: list[RunInfo] = []
    skipped: list[SkippedRun] = []
    for run in runs:
        if run.stale:
            skipped.append(SkippedRun(run, run.stale_reason))
        elif run.finished + run.failed == 0:
            skipped.append(SkippedRun(run, _no_results(run)))
        else:
            scorable.append(run)
    return scorable, skipped


def _no_results(run: RunInfo) -> str:
    return (f"run {run.name!r} ({run.run_id}) has no results yet (stopped before its first "
            "answer, or run with --limit 0); rerun its config to answer its questions")


def score_run(store: Store, run: RunInfo, query_ids: AbstractSet[str] | None = None,
              verdicts: Mapping[str, StoredVerdict] | None = None) -> tuple[RunSummary, list[QuestionScores]]:
    """Score the stored results of ``run`` against its dataset's gold.

    Failed questions score zero and are counted.

    Args:
        store: the store holding the run.
        run: the run (its staleness is checked again in the store, so an old
            :class:`RunInfo` cannot slip a re-ingested dataset through).
        query_ids: score only these questions, so runs can be compared on the
            same questions.
        verdicts: one LLM judge's stored verdicts on the run, by question id; when
            every scored question has one on its current answer, each score gets its
            ``llm_accuracy`` (:func:`hopkit.judging_runs.accuracy_by_question`), else none does.

    Returns:
        The run's summary and its per-question scores.

    Raises:
        StoreError: the run is unknown, stale (its dataset was re-ingested with a
            different corpus since it ran), or has no result to score.
    """
    current = store.run(run.run_id)
    if current.stale:
        raise StoreError(current.stale_reason)
    queries = {q.id: q for q in store.queries(current.dataset)}
    retrieves = "retrieval" in current.config
    scores: list[QuestionScores] = []
    costs: list[QuestionCost] = []
    scored: list[QueryResult] = []
    results = [r for r in store.results(current.run_id) if query_ids is None or r.query_id in query_ids]
    results = _scorable_results(store, current, results, queries.keys(), retrieves)
    for result in results:
        query = queries[result.query_id]
        retrieved = (store.paragraphs_by_ids(current.dataset,
                                             list(result.chunk_ids[:RETRIEVAL_BUDGET]))
                     if retrieves else None)
        scores.append(score_question(query, result.prediction, retrieved, budget=RETRIEVAL_BUDGET))
        costs.append(QuestionCost(result.usage, failed=result.error is not None))
        scored.append(result)
    if not costs:
        what = "on the questions asked for" if query_ids is not None else "for its dataset's questions"
        raise StoreError(_no_results(current) if current.finished + current.failed == 0 else
                         f"run {current.name!r} ({current.run_id}) has no result {what}")
    if verdicts is not None:
        judged = accuracy_by_question(scored, verdicts)
        if judged is None:
            logger.info("run %s: not every scored answer has a verdict; no LLM accuracy (run `hopkit judge`)",
                        current.name)
        else:
            scores = [replace(s, llm_accuracy=judged[s.query_id]) for s in scores]
    summary = summarize_run(current.run_id, current.name, current.method, current.dataset,
                            scores, costs)
    return summary, scores


def _scorable_results(store: Store, run: RunInfo, results: list[QueryResult], question_ids: AbstractSet[str],
                      retrieves: bool) -> list[QueryResult]:
    """``results`` without those that cannot be scored, each left out with a warning naming it: a
    question not in the run's dataset, or a retrieved paragraph id not in its corpus (rows a damaged
    store or an old import let in; one such row must not stop the run, or every other, from scoring)."""
    unknown_questions = [r.query_id for r in results if r.query_id not in question_ids]
    ids = {pid for r in results for pid in r.chunk_ids[:RETRIEVAL_BUDGET]} if retrieves else set()
    missing = set(store.missing_paragraph_ids(run.dataset, sorted(ids))) if ids else set()
    bad_paragraphs = [r.query_id for r in results if missing.intersection(r.chunk_ids[:RETRIEVAL_BUDGET])]
    for what, bad in (("questions not in dataset", unknown_questions),
                      (f"paragraph ids not in the corpus ({sorted(missing)[:5]})", bad_paragraphs)):
        if bad:
            logger.warning("run %s (%s): %d result(s) left out of scoring, with %s: %s%s; rerun those questions "
                           "or delete the run (`hopkit delete`)", run.name, run.run_id, len(bad), what,
                           ", ".join(repr(q) for q in bad[:5]), " ..." if len(bad) > 5 else "")
    left_out = set(unknown_questions) | set(bad_paragraphs)
    return [r for r in results if r.query_id not in left_out]


def score_runs(store: Store, runs: Sequence[RunInfo], query_ids: AbstractSet[str] | None = None, *,
               verdicts: VerdictStore | None = None, judge: JudgeIdentity | None = None) -> list[RunSummary]:
    """Summaries of ``runs`` in the order given (on ``query_ids`` only, if given).

    With ``verdicts`` and ``judge``, a run this judge judged on every scored question
    also reports ``llm_accuracy`` (see :func:`score_run`).

    Raises:
        StoreError: as :func:`score_run`, for the first run that cannot be scored;
            sort the runs with :func:`split_scorable` first to skip those.
    """
    if verdicts is None or judge is None:
        return [score_run(store, run, query_ids)[0] for run in runs]
    return [score_run(store, run, query_ids,
                      verdicts.verdicts(run.run_id, judge.model_id, judge.prompt_version))[0]
            for run in runs]
