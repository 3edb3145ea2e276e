"""Questions answered by threads of this process (the default executor).

With several workers the questions are answered by daemon threads and their results
come back in the order they finish, not the order they were given, so a slow question
never holds finished ones back from the store; only the calling thread writes to the
store. On Ctrl-C (or any error) no further question is handed out and nothing waits for
the requests in flight, whose questions a rerun redoes.
"""

from __future__ import annotations

import queue
import threading
from contextlib import closing
from typing import Generator, Iterator, Sequence

from hopkit.executors.answers import StoredAnswer, answer_one, record
from hopkit.executors.protocol import RunJob
from hopkit.methods.protocol import Method, warm_up
from hopkit.records import Query
from hopkit.store.records import QueryResult


class ThreadExecutor:
    """Answers with one built method, from ``workers`` threads of this process (its ``warm_up()`` first).

    Args:
        method: the method, called from several threads at once when ``workers`` > 1.
        workers: questions answered at once (useful with a model server).
    """

    def __init__(self, method: Method, workers: int = 1) -> None:
        self.method = method
        self.workers = max(1, workers)

    def answers(self, job: RunJob, todo: Sequence[Query]) -> Iterator[StoredAnswer]:
        if not todo:
            return
        warm_up(self.method)  # heavy parts once, before the first question
        answered = answers_as_they_finish(self.method, todo, self.workers, trace_prompts=job.trace_prompts)
        with closing(answered):
            for result, failure in answered:
                yield record(job.store, job.run_id, result, failure)

    def evidence_advice(self) -> str | None:
        advice = getattr(self.method, "evidence_filter", None)
        return advice if isinstance(advice, str) and advice else None


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
