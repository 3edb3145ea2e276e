"""Questions answered by threads of this process (the default executor).

With several workers the questions are answered by daemon threads and their results
come back in the order they finish, not the order they were given, so a slow question
never holds finished ones back. With several workers the answers go to one writer thread,
which stores those waiting in one transaction while the workers go on answering
(:mod:`hopkit.executors.result_writer`); a question counts as done once stored. On Ctrl-C (or any error) no further question is handed out and nothing waits for
the requests in flight, whose questions a rerun redoes.
"""

from __future__ import annotations

import queue
import threading
import time
from typing import Any, Callable, Final, Generator, Iterator, Sequence, TypeVar

from hopkit.executors.answers import StoredAnswer, answer_and_store, answer_one
from hopkit.executors.protocol import RunJob
from hopkit.executors.result_writer import Answered, ResultWriter
from hopkit.executors.shared_questions import WAIT, SharedQuestions
from hopkit.methods.protocol import Method, warm_up
from hopkit.records import Query
from hopkit.store.records import QueryResult

T = TypeVar("T")
# A worker's sign that it has stopped taking questions.
_FINISHED: Final = object()


class ThreadExecutor:
    """Answers with one built method, from ``workers`` threads of this process (its ``warm_up()`` first).

    Args:
        method: the method, called from several threads at once when ``workers`` > 1.
        workers: questions answered at once (useful with a model server).
    """

    def __init__(self, method: Method, workers: int = 1) -> None:
        self.method = method
        self.workers = max(1, workers)

    def answers(self, job: RunJob, questions: SharedQuestions) -> Iterator[StoredAnswer]:
        if not questions:
            return
        warm_up(self.method)  # heavy parts once, before the first question
        if self.workers <= 1:
            yield from as_they_finish(lambda query: answer_and_store(self.method, query, job.store, job.run_id,
                                                                     trace_prompts=job.trace_prompts), questions, 1)
        else:
            yield from stored_as_they_finish(self.method, job, questions, self.workers)

    def evidence_advice(self) -> str | None:
        advice = getattr(self.method, "evidence_filter", None)
        return advice if isinstance(advice, str) and advice else None


def answers_as_they_finish(method: Method, queries: Sequence[Query] | SharedQuestions, workers: int, *,
                           trace_prompts: bool = False) -> Generator[tuple[QueryResult, Exception | None], None, None]:
    """Answer ``queries`` with ``workers`` threads and yield each answer as soon as it is done.

    One worker answers in the calling thread, in order. More workers are daemon threads
    taking questions one at a time: closing the iterator (or an exception, Ctrl-C
    included, in the consumer) stops them from starting new questions and does not wait
    for the ones in flight, whose answers are dropped; being daemons they never keep
    the process alive. (``ThreadPoolExecutor`` joins its threads at exit, so Ctrl-C
    waited for every HTTP request in flight to time out.)

    Args:
        method: answers one question (called from several threads at once).
        queries: the questions, or a run's shared questions (taken one at a time, waited for while
            another driver holds them).
        workers: threads answering at once.

    Yields:
        ``answer_one``'s result for each question, in the order they finish.
    """
    return as_they_finish(lambda query: answer_one(method, query, trace_prompts=trace_prompts), queries, workers)


def as_they_finish(answer: Callable[[Query], T], queries: Sequence[Query] | SharedQuestions,
                   workers: int) -> Generator[T, None, None]:
    """:func:`answers_as_they_finish` with any ``answer`` of one question (which must not raise
    for one question's failure)."""
    questions = queries if isinstance(queries, SharedQuestions) else SharedQuestions(queries)
    if workers <= 1:
        while (query := _next_question(questions, threading.Event())) is not None:
            yield answer(query)
        return
    done: queue.SimpleQueue[T | BaseException | object] = queue.SimpleQueue()
    yield from _threaded(lambda query: done.put(answer(query)), questions, workers, done)  # type: ignore[misc]


def stored_as_they_finish(method: Method, job: RunJob, questions: SharedQuestions,
                          workers: int) -> Generator[StoredAnswer, None, None]:
    """Answer with ``workers`` threads that hand their answers to one :class:`ResultWriter` and go on
    at once; yield each answer once the writer has stored it."""
    done: queue.SimpleQueue[StoredAnswer | BaseException | object] = queue.SimpleQueue()
    writer = ResultWriter(job.store, job.run_id, done.put)

    def answer(query: Query) -> None:
        started = time.perf_counter()
        result, failure = answer_one(method, query, trace_prompts=job.trace_prompts)
        writer.submit(Answered(result, failure, time.perf_counter() - started))

    yield from _threaded(answer, questions, workers, done)  # type: ignore[misc]
    writer.close()  # the answers still waiting are stored, and reported, before it returns
    while not done.empty():
        item = done.get()
        if isinstance(item, BaseException):
            raise item
        yield item  # type: ignore[misc]


def _threaded(answer: Callable[[Query], None], questions: SharedQuestions, workers: int,
              done: queue.SimpleQueue[Any]) -> Generator[Any, None, None]:
    """Start ``workers`` daemon threads calling ``answer`` on each question they take; yield what
    arrives in ``done`` until every thread has stopped (an exception in one is raised here)."""
    stopping = threading.Event()

    def work() -> None:
        try:
            while not stopping.is_set() and (query := _next_question(questions, stopping)) is not None:
                answer(query)
        except BaseException as exc:  # noqa: BLE001 (answers catch the rest: hand it to the consumer)
            done.put(exc)
        finally:
            done.put(_FINISHED)

    started = min(workers, len(questions))
    for number in range(started):
        threading.Thread(target=work, name=f"hopkit-worker-{number}", daemon=True).start()
    try:
        working = started
        while working:
            item = done.get()
            if item is _FINISHED:
                working -= 1
            elif isinstance(item, BaseException):
                raise item
            else:
                yield item
    finally:
        stopping.set()


def _next_question(questions: SharedQuestions, stopping: threading.Event) -> Query | None:
    """The next question taken, waiting while other drivers hold the only ones left (None: none left)."""
    while True:
        query = questions.next()
        if query is not WAIT:
            return query  # type: ignore[return-value]
        if stopping.wait(questions.look_again_seconds):
            return None
