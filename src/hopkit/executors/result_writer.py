"""Answers stored by one writer thread, several per transaction, while the workers go on answering.

A worker hands its answer to the writer and takes its next question at once; the writer stores
what is waiting in one transaction and only then reports each answer as stored, so the run counts
(and gives back) a question only once its row is in the store. A batch the store refuses is
stored again one answer at a time, each through :func:`~hopkit.executors.answers.record` (a result the
store refuses becomes its question's failure). An answer not yet stored when the process dies is
not in the store, and a rerun answers its question again.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from dataclasses import dataclass, replace
from typing import Callable, Final

from hopkit.errors import StoreError
from hopkit.executors.answers import StoredAnswer, record, stored_answer
from hopkit.store.records import QueryResult
from hopkit.store.store import Store

log = logging.getLogger(__name__)

# Answers stored in one transaction at most.
MOST_AT_ONCE = 64
_CLOSE: Final = object()


@dataclass(frozen=True)
class Answered:
    """A question's answer waiting to be stored, with the seconds spent answering it."""

    result: QueryResult
    failure: Exception | None
    seconds: float


class ResultWriter:
    """Stores the answers handed to it, in batches, from a daemon thread of its own.

    Args:
        store: where the answers go.
        run_id: their run.
        report: called from the writer's thread with each answer once stored, or with the
            :class:`StoreError` that stopped the writer (the store is unusable).
    """

    def __init__(self, store: Store, run_id: str, report: Callable[[StoredAnswer | BaseException], None]) -> None:
        self.store = store
        self.run_id = run_id
        self.report = report
        self._waiting: queue.SimpleQueue[Answered | object] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._write, name="hopkit-result-writer", daemon=True)
        self._thread.start()

    def submit(self, answered: Answered) -> None:
        """Hand over an answer; it is reported once stored."""
        self._waiting.put(answered)

    def close(self) -> None:
        """Store what was handed over, then stop (the last report comes before :meth:`close` returns)."""
        self._waiting.put(_CLOSE)
        self._thread.join()

    def _write(self) -> None:
        closing = False
        while not closing:
            batch: list[Answered] = []
            item = self._waiting.get()
            while True:
                if item is _CLOSE:
                    closing = True
                    break
                batch.append(item)  # type: ignore[arg-type]
                if len(batch) >= MOST_AT_ONCE:
                    break
                try:
                    item = self._waiting.get_nowait()
                except queue.Empty:
                    break
            try:
                self._store(batch)
            except StoreError as exc:  # not even a failure could be stored: the run stops
                self.report(exc)
                return

    def _store(self, batch: list[Answered]) -> None:
        if not batch:
            return
        started = time.perf_counter()
        try:
            self.store.record_results(self.run_id, [answered.result for answered in batch])
        except StoreError as refused:
            log.warning("%d answers could not be stored at once (%s); storing them one by one", len(batch), refused)
            for answered in batch:
                stored = record(self.store, self.run_id, answered.result, answered.failure)
                self.report(replace(stored, seconds=answered.seconds, model_seconds=answered.result.usage.llm_seconds))
            return
        share = (time.perf_counter() - started) / len(batch)
        for answered in batch:
            self.report(replace(stored_answer(answered.result, answered.failure), seconds=answered.seconds + share,
                                model_seconds=answered.result.usage.llm_seconds))


class StoredOnReturn:
    """A :class:`ResultWriter` for callers that each wait for their own answer to be stored (the threads
    of one Ray actor): answers handed over at about the same time share one transaction.

    Args:
        store: where the answers go.
        run_id: their run.
    """

    def __init__(self, store: Store, run_id: str) -> None:
        self._lock = threading.Lock()
        self._waiting: dict[str, tuple[threading.Event, list[StoredAnswer | BaseException]]] = {}
        self._stopped: BaseException | None = None
        self._writer = ResultWriter(store, run_id, self._report)

    def store(self, answered: Answered) -> StoredAnswer:
        """Hand over an answer and return once it is stored.

        Raises:
            StoreError: the store refused even the question's failure (the writer has stopped).
        """
        done = threading.Event()
        outcome: list[StoredAnswer | BaseException] = []
        with self._lock:
            if self._stopped is not None:
                raise self._stopped
            self._waiting[answered.result.query_id] = (done, outcome)
        self._writer.submit(answered)
        done.wait()
        if isinstance(outcome[0], BaseException):
            raise outcome[0]
        return outcome[0]

    def _report(self, stored: StoredAnswer | BaseException) -> None:
        with self._lock:
            if isinstance(stored, BaseException):
                self._stopped = stored
                waiting, self._waiting = list(self._waiting.values()), {}
            else:
                waiting = [self._waiting.pop(stored.query_id)]
        for done, outcome in waiting:
            outcome.append(stored)
            done.set()
