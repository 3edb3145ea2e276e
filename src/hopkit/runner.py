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

from hopkit.errors import LLMServerError
from hopkit.methods.protocol import Method
from hopkit.records import Query
from hopkit.store.records import QueryResult, RunSpec
from hopkit.store.store import Store
from hopkit.usage import track_usage

log = logging.getLogger(__name__)

# A server that failed this many questions in a row (after its own retries) is down:
# stop instead of failing every remaining question slowly.
MAX_CONSECUTIVE_SERVER_FAILURES = 3


@dataclass(frozen=True)
class RunOutcome:
    """What a call to :func:`run_method` did."""

    run_id: str
    total_queries: int
    already_done: int
    finished: int
    failed: int


def answer_one(method: Method, query: Query) -> tuple[QueryResult, Exception | None]:
    """Answer one question; a failure is recorded with the question and returned, not raised."""
    started = time.perf_counter()
    error: str | None = None
    failure: Exception | None = None
    with track_usage() as usage:
        try:
            result = method.generate(query)
            prediction, chunk_ids, trace = result.text, tuple(result.chunk_ids), dict(result.metadata)
        except Exception as exc:  # one question's failure must not stop the run
            log.warning("question %s failed: %s: %s", query.id, type(exc).__name__, exc)
            prediction, chunk_ids, trace = "", (), {}
            error, failure = f"{type(exc).__name__}: {exc}", exc
    return QueryResult(
        query_id=query.id, prediction=prediction, chunk_ids=chunk_ids, trace=trace,
        llm_calls=usage.llm_calls, prompt_tokens=usage.prompt_tokens,
        completion_tokens=usage.completion_tokens, cached_prompt_tokens=usage.cached_prompt_tokens,
        llm_seconds=usage.llm_seconds, retrieval_seconds=usage.retrieval_seconds,
        total_seconds=time.perf_counter() - started, error=error,
    ), failure


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
    server_failures_in_a_row = 0
    results: Iterable[tuple[QueryResult, Exception | None]]
    with bar, ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        if workers > 1:
            results = pool.map(lambda q: answer_one(method, q), todo)
        else:
            results = (answer_one(method, q) for q in todo)
        for result, failure in results:
            store.record_result(run.run_id, result)
            failed += failure is not None
            finished += failure is None
            bar.update(1)
            bar.set_postfix(failed=failed)
            server_failures_in_a_row = server_failures_in_a_row + 1 if isinstance(failure, LLMServerError) else 0
            if server_failures_in_a_row >= MAX_CONSECUTIVE_SERVER_FAILURES:
                raise LLMServerError(f"stopping run {spec.name}: {server_failures_in_a_row} questions in a row "
                                     f"failed on the model server ({failure}); finished questions are stored, "
                                     "rerun to resume once the server is back")
    return RunOutcome(run_id=run.run_id, total_queries=len(queries), already_done=len(queries) - len(todo),
                      finished=finished, failed=failed)
