"""Concurrent requests gathered into batches: one search call per batch, a bounded queue, 503 when it is full.

A request's queries wait in the queue. The first request to arrive opens a window of ``max_wait``
seconds; the batch closes when the window ends or ``max_batch`` queries are waiting, and is searched
in one call on the worker's one search thread (a retriever is not shared between threads). While a
batch is searched the event loop goes on reading requests (and refusing them when the queue is full),
so under load the next batch is larger. A request
whose queries would take the queue past ``max_queue`` is refused at once (:class:`Overloaded`: the
server answers 503 with ``Retry-After``) instead of waiting until its client gives up.
"""

from __future__ import annotations

import asyncio
import logging
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Callable, Generic, Sequence, TypeVar

logger = logging.getLogger(__name__)

Item = TypeVar("Item")
Answer = TypeVar("Answer")


class Overloaded(Exception):
    """The queue is full; the request was not taken (internal to the server, answered 503)."""


@dataclass
class _Waiting(Generic[Item, Answer]):
    items: Sequence[Item]
    answer: asyncio.Future[list[Answer]]
    arrived: float


class Batcher(Generic[Item, Answer]):
    """Gathers requests' items into batches for ``search``, one batch at a time.

    Args:
        search: answers a batch of items, one answer per item, in order (called on the search thread).
        max_wait: seconds the first item of a batch waits for others (0: a batch is what is waiting).
        max_batch: items in one batch at most (a request larger than that is a batch of its own).
        max_queue: items waiting at most; more are refused with :class:`Overloaded`.
    """

    def __init__(self, search: Callable[[Sequence[Item]], list[Answer]], *, max_wait: float, max_batch: int,
                 max_queue: int) -> None:
        self.search = search
        self.max_wait = max_wait
        self.max_batch = max_batch
        self.max_queue = max_queue
        self.batches = 0
        self.searched = 0
        self._queue: list[_Waiting[Item, Answer]] = []
        self._waiting = 0
        self._arrived: asyncio.Event | None = None
        self._task: asyncio.Task[None] | None = None
        self._thread: ThreadPoolExecutor | None = None

    def start(self) -> None:
        """Start gathering (in the running event loop)."""
        self._arrived = asyncio.Event()
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="hopkit-search")
        self._task = asyncio.get_running_loop().create_task(self._serve())

    async def stop(self) -> None:
        """Stop gathering once the batch in flight is answered (requests still waiting fail)."""
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass
        for waiting in self._queue:
            if not waiting.answer.done():
                waiting.answer.set_exception(Overloaded("the server is stopping"))
        self._queue.clear()
        if self._thread is not None:
            self._thread.shutdown(wait=True)

    @property
    def waiting(self) -> int:
        """Items in the queue now."""
        return self._waiting

    async def submit(self, items: Sequence[Item]) -> list[Answer]:
        """The answers to ``items``, once their batch is searched.

        Raises:
            Overloaded: the queue cannot take them now.
            Exception: what the search raised for their batch.
        """
        if self._arrived is None:
            raise RuntimeError("Batcher.submit before start()")
        if not items:
            return []
        if self._waiting + len(items) > self.max_queue:
            raise Overloaded(f"{self._waiting} queries are waiting (the cap is {self.max_queue})")
        loop = asyncio.get_running_loop()
        answer: asyncio.Future[list[Answer]] = loop.create_future()
        self._queue.append(_Waiting(items, answer, loop.time()))
        self._waiting += len(items)
        self._arrived.set()
        return await answer

    async def _serve(self) -> None:
        arrived = self._arrived
        if arrived is None:
            raise RuntimeError("Batcher._serve before start()")
        loop = asyncio.get_running_loop()
        while True:
            while not self._queue:
                arrived.clear()
                await arrived.wait()
            closes = self._queue[0].arrived + self.max_wait  # the window opened when its first request came
            while self._waiting < self.max_batch and (left := closes - loop.time()) > 0:
                arrived.clear()
                try:
                    await asyncio.wait_for(arrived.wait(), left)
                except asyncio.TimeoutError:
                    break
            batch = self._take()
            items = [item for waiting in batch for item in waiting.items]
            try:
                answers = await loop.run_in_executor(self._thread, self.search, items)
            except Exception as exc:  # noqa: BLE001 (handed to each request of the batch, which answers 500)
                logger.exception("a batch of %d queries failed", len(items))
                for waiting in batch:
                    if not waiting.answer.done():
                        waiting.answer.set_exception(exc)
                continue
            self.batches += 1
            self.searched += len(items)
            start = 0
            for waiting in batch:
                end = start + len(waiting.items)
                if not waiting.answer.done():  # its client may have gone
                    waiting.answer.set_result(answers[start:end])
                start = end

    def _take(self) -> list[_Waiting[Item, Answer]]:
        """Whole requests from the front of the queue, up to ``max_batch`` items (at least one request)."""
        batch = [self._queue.pop(0)]
        count = len(batch[0].items)
        while self._queue and count + len(self._queue[0].items) <= self.max_batch:
            count += len(self._queue[0].items)
            batch.append(self._queue.pop(0))
        self._waiting -= count
        return batch
