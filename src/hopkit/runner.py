"""Runs a method over many questions: resume, progress, concurrency, one stored result each.

The method answers one question at a time and knows nothing of the store; the
runner skips the questions a run already finished, times each question, splits its
time into LLM, retrieval and everything else (from the meters' usage block), and
writes each result as soon as it is done, so an interrupted run loses at most the
questions in flight.
"""

from __future__ import annotations

import logging
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Iterable, Sequence

from tqdm import tqdm

from hopkit.methods.protocol import Method
from hopkit.records import Query
from hopkit.store.records import QueryResult, RunSpec
from hopkit.store.store import Store
from hopkit.usage import track_usage

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class RunOutcome:
    """What a call to :func:`run_method` did."""

    run_id: str
    total_queries: int
    already_done: int
    finished: int
    failed: int


def answer_one(method: Method, query: Query) -> QueryResult:
    """Answer one question; a failure is recorded with the question, never raised."""
    started = time.perf_counter()
    error: str | None = None
    with track_usage() as usage:
        try:
            result = method.generate(query)
            prediction, chunk_ids, trace = result.text, tuple(result.chunk_ids), dict(result.metadata)
        except Exception as exc:  # one question's failure must not stop the run
            log.warning("question %s failed: %s: %s", query.id, type(exc).__name__, exc)
            prediction, chunk_ids, trace = "", (), {}
            error = f"{type(exc).__name__}: {exc}"
    return QueryResult(
        query_id=query.id, prediction=prediction, chunk_ids=chunk_ids, trace=trace,
        llm_calls=usage.llm_calls, prompt_tokens=usage.prompt_tokens,
        completion_tokens=usage.completion_tokens, cached_prompt_tokens=usage.cached_prompt_tokens,
        llm_seconds=usage.llm_seconds, retrieval_seconds=usage.retrieval_seconds,
        total_seconds=time.perf_counter() - started, error=error,
    )


def run_method(method: Method, queries: Sequence[Query], store: Store, spec: RunSpec, *,
               workers: int = 1, progress: bool = True) -> RunOutcome:
    """Answer every query not yet finished in the run ``spec`` and store each result.

    Args:
        method: the method answering one question at a time.
        queries: the questions of the run.
        store: where results are written as each question finishes.
        spec: the run's full configuration; its hash identifies the run.
        workers: questions answered at once (threads; useful with model servers).
        progress: show a progress bar on stderr.
    """
    run = store.ensure_run(spec)
    done = store.finished_query_ids(run.run_id)
    todo = [q for q in queries if q.id not in done]
    finished = failed = 0
    bar = tqdm(total=len(queries), initial=len(queries) - len(todo), disable=not progress,
               desc=f"{spec.name} on {spec.dataset}", unit="q", dynamic_ncols=True)
    results: Iterable[QueryResult]
    with bar, ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        if workers > 1:
            results = pool.map(lambda q: answer_one(method, q), todo)
        else:
            results = (answer_one(method, q) for q in todo)
        for result in results:
            store.record_result(run.run_id, result)
            failed += result.error is not None
            finished += result.error is None
            bar.update(1)
            bar.set_postfix(failed=failed)
    return RunOutcome(run_id=run.run_id, total_queries=len(queries), already_done=len(queries) - len(todo),
                      finished=finished, failed=failed)
