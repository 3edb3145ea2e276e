"""Runs a method over many questions: resume, progress, concurrency, one stored result each.

The method answers one question at a time and knows nothing of the store; the
runner skips the questions a run already finished, records what each question cost
(the usage block it opens around the question: tokens, wall time, and calls and
seconds per component such as the model, retrieval and judges), and writes each
result as soon as it is done, so an interrupted run loses at most the questions in
flight.

With several workers the questions are answered by daemon threads and their results
come back in the order they finish, not the order they were given, so a slow question
never holds finished ones back from the store; only the main thread writes to the
store. On Ctrl-C (or any error) the runner stops handing out questions and returns at
once: it does not wait for the requests in flight, whose questions a rerun redoes.

An empty final answer, or one that is only the prompt's own cue or markup ("The answer is:",
"[Query 1]:"), is not an answer: the question is recorded as failed
(:class:`~hopkit.errors.EmptyAnswerError`) with the method's trace, and a rerun asks
again (with greedy decoding the model then says the same).

Each question's failure is logged with ``extra={"question": id}``, so a console can leave
those records to a log file and show the run's summary instead.
"""

from __future__ import annotations

import logging
import queue
import threading
from contextlib import closing
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable, Generator, Mapping, Sequence

from tqdm import tqdm

from hopkit.errors import EmptyAnswerError, LLMServerError, StoreError
from hopkit.methods.protocol import Method, warm_up
from hopkit.parsing.answers import is_blank_answer
from hopkit.records import GenerationResult, Query
from hopkit.store.records import QueryResult, RunSpec
from hopkit.store.store import Store
from hopkit.traces import TraceError, collect_trace, stored_trace
from hopkit.usage import track_usage

log = logging.getLogger(__name__)

# A server that failed this many questions in a row (after its own retries) is down:
# stop instead of failing every remaining question slowly.
MAX_CONSECUTIVE_SERVER_FAILURES = 3


# A method that filters its evidence is asked, once this many questions are answered, whether it
# kept any: most questions without a paragraph means its filter option needs another value.
EVIDENCE_CHECK_AFTER = 5


@dataclass(frozen=True)
class RunStart:
    """What a run is about to do: its stored name, how many questions are left and how many at a time."""

    run_id: str
    name: str
    dataset: str
    total_queries: int
    already_done: int
    workers: int


@dataclass(frozen=True)
class RunOutcome:
    """What a call to :func:`run_method` did.

    ``first_error`` is the first failure's message, ``failures`` counts the failures by error
    class, ``name`` is the run's stored name (a configuration first run under another name
    keeps that one), and ``without_evidence`` counts the answered questions for which a method
    that filters its evidence (:func:`evidence_advice`) kept no paragraph.
    """

    run_id: str
    total_queries: int
    already_done: int
    finished: int
    failed: int
    first_error: str | None = None
    name: str = ""
    failures: Mapping[str, int] = field(default_factory=dict)
    without_evidence: int = 0
    evidence_advice: str | None = None


def evidence_advice(method: Method) -> str | None:
    """What to change when ``method`` keeps no evidence for most questions: its ``evidence_filter``
    (the option deciding what it keeps, and how to choose it), or None for a method without one."""
    advice = getattr(method, "evidence_filter", None)
    return advice if isinstance(advice, str) and advice else None


def answer_one(method: Method, query: Query, *, trace_prompts: bool = False) -> tuple[QueryResult, Exception | None]:
    """Answer one question; a failure is recorded with the question and returned, not raised.

    An empty final answer, or one made only of the prompt's cues and markup
    (:func:`~hopkit.parsing.answers.is_blank_answer`), is a failure too, an :class:`EmptyAnswerError`; its
    result keeps the method's trace and retrieved ids, so what the model said is stored.

    The steps and citations the method records (``hopkit.traces``) are stored under
    ``trace["typed_trace"]``, beside the method's metadata. A trace that is not JSON
    (NaN, an object) is a failure too, a :class:`~hopkit.traces.TraceError` naming the
    question and the key path; the result then stores no trace. With ``trace_prompts`` each
    step also stores the prompts of its model calls (``extra["prompts"]``).
    """
    result: GenerationResult | None = None
    failure: Exception | None = None
    with track_usage() as usage, collect_trace(prompts=trace_prompts) as steps:
        try:
            result = method.generate(query)
        except Exception as exc:  # one question's failure must not stop the run
            failure = exc
    if result is not None and is_blank_answer(result.text):
        what = "is empty" if not result.text.strip() else f"is only the prompt's own cue or markup: {result.text.strip()!r}"
        failure = EmptyAnswerError(f"the model gave no answer to question {query.id} (the final answer {what})")
    try:  # the steps the method recorded, beside its metadata; a failed question keeps those it reached
        trace = stored_trace(query.id, result.metadata if result is not None else {}, steps)
    except TraceError as exc:  # a trace JSON cannot hold fails its question, not the store write and the run
        trace = {}
        failure = exc if failure is None else failure
    if failure is not None:
        log.warning("question %s failed: %s: %s", query.id, type(failure).__name__, failure,
                    extra={"question": query.id})
    return QueryResult(
        query_id=query.id, prediction=result.text if result is not None else "",
        chunk_ids=tuple(result.chunk_ids) if result is not None else (),
        trace=trace,
        usage=usage.copy(),  # the block closed: its wall time is usage.total_seconds
        error=None if failure is None else f"{type(failure).__name__}: {failure}",
    ), failure


def answers_as_they_finish(method: Method, queries: Sequence[Query], workers: int, *, trace_prompts: bool = False
                           ) -> Generator[tuple[QueryResult, Exception | None], None, None]:
    """Answer ``queries`` with ``workers`` threads and yield each answer as soon as it is done.

    One worker answers in the calling thread, in order. More workers are daemon threads
    taking questions from a queue: closing the iterator (or an exception, Ctrl-C
    included, in the consumer) stops them from starting new questions and does not wait
    for the ones in flight, whose answers are dropped; being daemons they never keep
    the process alive. (``ThreadPoolExecutor`` joins its threads at exit, so Ctrl-C
    waited for every HTTP request in flight to time out.)

    Args:
        method: answers one question (called from several threads at once).
        queries: the questions.
        workers: threads answering at once.

    Yields:
        ``answer_one``'s result for each question, in the order they finish.
    """
    if workers <= 1:
        for query in queries:
            yield answer_one(method, query, trace_prompts=trace_prompts)
        return
    todo: queue.SimpleQueue[Query] = queue.SimpleQueue()
    for query in queries:
        todo.put(query)
    done: queue.SimpleQueue[tuple[QueryResult, Exception | None] | BaseException] = queue.SimpleQueue()
    stopping = threading.Event()

    def work() -> None:
        while not stopping.is_set():
            try:
                query = todo.get_nowait()
            except queue.Empty:
                return
            try:
                done.put(answer_one(method, query, trace_prompts=trace_prompts))
            except BaseException as exc:  # noqa: BLE001 (answer_one caught the rest: hand it to the consumer)
                done.put(exc)
                return

    for number in range(min(workers, len(queries))):
        threading.Thread(target=work, name=f"hopkit-worker-{number}", daemon=True).start()
    try:
        for _ in range(len(queries)):
            item = done.get()
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        stopping.set()


def _record(store: Store, run_id: str, result: QueryResult,
            failure: Exception | None) -> tuple[QueryResult, Exception | None]:
    """Store one question's result; a result the store refuses is stored as that question's failure.

    Returns:
        What was stored, and the question's failure (the store's refusal, if it refused).

    Raises:
        StoreError: the failure could not be stored either (the store is unusable: stop the run).
    """
    try:
        store.record_result(run_id, result)
        return result, failure
    except StoreError as refused:
        log.warning("question %s: its result could not be stored (%s); storing it as failed", result.query_id, refused,
                    extra={"question": result.query_id})
        stored = QueryResult(query_id=result.query_id, prediction="", usage=result.usage,
                             error=f"{type(refused).__name__}: {refused}")
        store.record_result(run_id, stored)
        return stored, refused


def run_method(method: Method, queries: Sequence[Query], store: Store, spec: RunSpec, *,
               workers: int = 1, progress: bool = True, trace_prompts: bool = False,
               on_start: Callable[[RunStart], None] | None = None) -> RunOutcome:
    """Answer every query not yet finished in the run ``spec`` and store each result (the method's
    ``warm_up()`` first, once, when a question is left).

    Args:
        method: the method answering one question at a time.
        queries: the questions of the run.
        store: where results are written as each question finishes.
        spec: the run's full configuration; its hash identifies the run.
        workers: questions answered at once (threads; useful with model servers).
        progress: show a progress bar on stderr.
        trace_prompts: store the prompts of each step's model calls in its trace (large:
            every prompt in full, demonstrations included).
        on_start: called once the run is registered, before the first question (the CLI's first line).
    """
    run = store.ensure_run(spec)
    done = store.finished_query_ids(run.run_id)
    todo = [q for q in queries if q.id not in done]
    if on_start is not None:
        on_start(RunStart(run.run_id, run.name, spec.dataset, len(queries), len(queries) - len(todo),
                          max(1, min(workers, len(todo)))))
    finished = failed = without_evidence = 0
    failures: Counter[str] = Counter()
    advice = evidence_advice(method)
    if todo:
        warm_up(method)  # heavy parts once, before the first question
    first_error: str | None = None
    bar = tqdm(total=len(queries), initial=len(queries) - len(todo), disable=not progress,
               desc=f"{spec.name} on {spec.dataset}", unit="q", dynamic_ncols=True)
    server_failures_in_a_row = 0
    answers = answers_as_they_finish(method, todo, max(1, workers), trace_prompts=trace_prompts)
    with bar, closing(answers):
        for result, failure in answers:
            result, failure = _record(store, run.run_id, result, failure)
            failed += failure is not None
            finished += failure is None
            if failure is not None:
                failures[type(failure).__name__] += 1
            elif advice is not None and not result.chunk_ids:
                without_evidence += 1
                if finished == EVIDENCE_CHECK_AFTER and without_evidence > finished / 2:
                    log.warning("%s kept no paragraph for %d of the first %d questions it answered: %s",
                                spec.name, without_evidence, finished, advice)
            first_error = first_error or result.error
            bar.update(1)
            bar.set_postfix(failed=failed)
            server_failures_in_a_row = server_failures_in_a_row + 1 if isinstance(failure, LLMServerError) else 0
            if server_failures_in_a_row >= MAX_CONSECUTIVE_SERVER_FAILURES:
                raise LLMServerError(f"stopping run {spec.name}: {server_failures_in_a_row} questions in a row "
                                     f"failed on the model server ({failure}); finished questions are stored, "
                                     "rerun to resume once the server is back")
    return RunOutcome(run_id=run.run_id, total_queries=len(queries), already_done=len(queries) - len(todo),
                      finished=finished, failed=failed, first_error=first_error, name=run.name,
                      failures=dict(failures), without_evidence=without_evidence, evidence_advice=advice)
