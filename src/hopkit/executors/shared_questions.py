"""A run's questions, handed out one at a time as this driver takes them from the store.

Several drivers (processes, on one host or several) running the same command share one run:
each question is taken in the store before it is answered (:mod:`hopkit.store.claims`), so a
question another driver is answering is left to it and looked at again later; it is skipped
once answered, and taken again if that driver died (its lease ran out). Questions are taken a
few at a time and given back, once their results are stored, with the next take (one short
transaction for several questions); the driver renews its leases from a background thread
and gives back all it holds when the run ends.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
import uuid
from collections import deque
from typing import Final, Sequence

from hopkit.errors import StoreError
from hopkit.processes import process_alive
from hopkit.records import Query
from hopkit.store.claims import ClaimStore, Taken

log = logging.getLogger(__name__)

# How long a question stays taken without renewal: a driver that dies frees its questions after this.
LEASE_SECONDS = 60.0
# How often a driver looks again at questions another driver holds.
LOOK_AGAIN_SECONDS = 1.0
# Questions taken in one transaction: few enough that another driver seldom waits on questions taken and
# not yet begun at a run's end, enough to make the store's share of a question small.
TAKE_AT_ONCE = 8
# Answered questions given back at the latest once this many are waiting (else with the next take).
GIVE_BACK_AT_ONCE = 64


class _Wait:
    def __repr__(self) -> str:
        return "WAIT"


#: :meth:`SharedQuestions.next` when every question left is another driver's for now: ask again later.
WAIT: Final = _Wait()


class SharedQuestions:
    """The questions of one run that this driver is to answer.

    Args:
        todo: the questions not finished when the run started, in order.
        claims: the store's claims (None: no other driver can share the run, hand out ``todo`` as it is).
        run_id: the run.
        lease_seconds: how long a taken question stays this driver's without renewal.
        look_again_seconds: how often questions held by other drivers are looked at again.
        take_at_once: questions taken in one round trip (more workers, more at once: each take
            holds up the workers waiting for a question).
    """

    def __init__(self, todo: Sequence[Query], claims: ClaimStore | None = None, run_id: str = "", *,
                 lease_seconds: float = LEASE_SECONDS, look_again_seconds: float = LOOK_AGAIN_SECONDS,
                 take_at_once: int = TAKE_AT_ONCE) -> None:
        self.claims = claims
        self.take_at_once = max(1, take_at_once)
        self.run_id = run_id
        self.lease_seconds = lease_seconds
        self.look_again_seconds = look_again_seconds
        self.holder = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"  # host:pid:nonce
        self.answered_elsewhere = 0
        self._fresh: deque[Query] = deque(todo)
        self._taken: deque[Query] = deque()
        self._finished: list[str] = []
        self._elsewhere: deque[Query] = deque()
        self._next_look = 0.0
        self._lock = threading.Lock()
        self._took = threading.Condition(self._lock)  # a take in flight has ended
        self._taking = False
        self._stop = threading.Event()
        self._renewer: threading.Thread | None = None

    def __len__(self) -> int:
        """How many questions are left to hand out or to wait for."""
        return len(self._fresh) + len(self._taken) + len(self._elsewhere)

    def next(self) -> Query | _Wait | None:
        """The next question this driver has taken; :data:`WAIT` when the only questions left are held by
        other drivers; None when none is left.

        The next questions are taken, in one round trip outside the lock, once half of those taken
        are handed out, so that the workers seldom wait for the store.

        Raises:
            StoreError: the store failed.
        """
        while True:
            with self._lock:
                if self._taken and (self._taking or not self._fresh or len(self._taken) > self.take_at_once // 2):
                    return self._taken.popleft()
                if self._taking:
                    self._took.wait()
                    continue
                if not self._fresh:
                    return self._look_again()
                handed = self._taken.popleft() if self._taken else None
                batch = [self._fresh.popleft() for _ in range(min(self.take_at_once, len(self._fresh)))]
                self._taking = True
            try:
                self._take(batch)
            finally:
                with self._lock:
                    self._taking = False
                    self._took.notify_all()
            if handed is not None:
                return handed

    def _look_again(self) -> Query | _Wait | None:
        """With the lock held and nothing fresh left: the questions other drivers held, once in a while."""
        if not self._elsewhere:
            return None
        if time.monotonic() < self._next_look:
            return WAIT
        self._next_look = time.monotonic() + self.look_again_seconds
        queries = [self._elsewhere.popleft() for _ in range(len(self._elsewhere))]
        self._sort(queries, self._claimed(queries, self._given_back()))
        if self._taken:
            return self._taken.popleft()
        return WAIT if self._elsewhere else None

    def done(self, query_id: str) -> None:
        """The question's result is stored: it is given back with the next take (or soon after).

        Raises:
            StoreError: the store failed.
        """
        if self.claims is None:
            return
        with self._lock:
            self._finished.append(query_id)
            if len(self._finished) < GIVE_BACK_AT_ONCE:
                return
            finished = self._given_back()
        try:
            self.claims.release(self.run_id, self.holder, finished)
        except BaseException:
            with self._lock:
                self._finished.extend(finished)
            raise

    def close(self) -> None:
        """Stop renewing and give back every question still taken (a rerun or another driver answers them)."""
        self._stop.set()
        if self._renewer is not None:
            self._renewer.join(timeout=5)
        if self.claims is not None and self._renewer is not None:
            try:
                self.claims.release(self.run_id, self.holder)
            except StoreError as exc:
                log.warning("could not give back the questions of run %s this driver held (%s); they are free again "
                            "in %.0f s", self.run_id, exc, self.lease_seconds)

    def _given_back(self) -> list[str]:
        """With the lock held: the answered questions waiting to be given back, no longer waiting."""
        finished, self._finished = self._finished, []
        return finished

    def _take(self, queries: list[Query]) -> None:
        """Take ``queries`` (the store's round trips without the lock), then sort them under it."""
        if self.claims is None:
            with self._lock:
                self._taken.extend(queries)
            return
        with self._lock:
            finished = self._given_back()
        try:
            found = self._claimed(queries, finished)
        except BaseException:
            with self._lock:
                self._finished.extend(finished)
            raise
        with self._lock:
            self._sort(queries, found)

    def _claimed(self, queries: list[Query], finished: list[str]) -> dict[str, tuple[Taken, str]]:
        """Take ``queries`` in the store, giving back ``finished``; a dead driver's of this host are taken over."""
        assert self.claims is not None
        found = self.claims.take_many(self.run_id, [q.id for q in queries], self.holder, self.lease_seconds,
                                      release=finished)
        for dead in {holder for taken, holder in found.values() if taken is Taken.HELD and _died_on_this_host(holder)}:
            orphans = [query_id for query_id, (taken, holder) in found.items() if holder == dead]
            found.update(self.claims.take_many(self.run_id, orphans, self.holder, self.lease_seconds,
                                               from_holder=dead))  # a killed run rerun at once need not wait
        return found

    def _sort(self, queries: list[Query], found: dict[str, tuple[Taken, str]]) -> None:
        """With the lock held: each of ``queries`` to the taken ones, those held elsewhere, or the answered count."""
        for query in queries:
            taken, _ = found[query.id]
            if taken is Taken.YES:
                self._taken.append(query)
            elif taken is Taken.HELD:
                self._elsewhere.append(query)
            else:
                self.answered_elsewhere += 1
        if self._taken and self._renewer is None:
            self._renewer = threading.Thread(target=self._renew, name="hopkit-claims", daemon=True)
            self._renewer.start()

    def _renew(self) -> None:
        claims = self.claims
        while claims is not None and not self._stop.wait(self.lease_seconds / 3):
            try:
                claims.renew(self.run_id, self.holder, self.lease_seconds)
            except StoreError as exc:
                log.warning("could not renew this driver's questions of run %s (%s); retrying", self.run_id, exc)


def _died_on_this_host(holder: str) -> bool:
    """Whether ``holder`` (``host:pid:nonce``) was a process of this host that is gone."""
    host_and_pid, _, _nonce = holder.rpartition(":")
    host, _, pid = host_and_pid.rpartition(":")
    return host == socket.gethostname() and pid.isdigit() and not process_alive(int(pid))
