"""A run's questions, handed out one at a time as this driver takes them from the store.

Several drivers (processes, on one host or several) running the same command share one run:
each question is taken in the store before it is answered (:mod:`hopkit.store.claims`), so a
question another driver is answering is left to it and looked at again later; it is skipped
once answered, and taken again if that driver died (its lease ran out). The driver renews
its leases from a background thread while it answers, and gives each question back when its
result is stored, or all of them when the run ends.
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
from hopkit.records import Query
from hopkit.store.claims import ClaimStore, Taken

log = logging.getLogger(__name__)

# How long a question stays taken without renewal: a driver that dies frees its questions after this.
LEASE_SECONDS = 60.0
# How often a driver looks again at questions another driver holds.
LOOK_AGAIN_SECONDS = 1.0


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
    """

    def __init__(self, todo: Sequence[Query], claims: ClaimStore | None = None, run_id: str = "", *,
                 lease_seconds: float = LEASE_SECONDS, look_again_seconds: float = LOOK_AGAIN_SECONDS) -> None:
        self.claims = claims
        self.run_id = run_id
        self.lease_seconds = lease_seconds
        self.look_again_seconds = look_again_seconds
        self.holder = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"  # host:pid:nonce
        self.answered_elsewhere = 0
        self._fresh: deque[Query] = deque(todo)
        self._elsewhere: deque[Query] = deque()
        self._next_look = 0.0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._renewer: threading.Thread | None = None

    def __len__(self) -> int:
        """How many questions are left to hand out or to wait for."""
        return len(self._fresh) + len(self._elsewhere)

    def next(self) -> Query | _Wait | None:
        """The next question this driver has taken; :data:`WAIT` when the only questions left are held by
        other drivers; None when none is left.

        Raises:
            StoreError: the store failed.
        """
        with self._lock:
            while self._fresh:
                query = self._fresh.popleft()
                if self._take(query):
                    return query
            if not self._elsewhere:
                return None
            if time.monotonic() < self._next_look:
                return WAIT
            self._next_look = time.monotonic() + self.look_again_seconds
            for _ in range(len(self._elsewhere)):
                query = self._elsewhere.popleft()
                if self._take(query):
                    return query
            return WAIT if self._elsewhere else None

    def done(self, query_id: str) -> None:
        """The question's result is stored: give it back."""
        if self.claims is not None:
            self.claims.release(self.run_id, self.holder, [query_id])

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

    def _take(self, query: Query) -> bool:
        if self.claims is None:
            return True
        taken, holder = self.claims.take(self.run_id, query.id, self.holder, self.lease_seconds)
        if taken is Taken.HELD and _died_on_this_host(holder):  # a killed run rerun at once need not wait
            taken, holder = self.claims.take(self.run_id, query.id, self.holder, self.lease_seconds,
                                             from_holder=holder)
        if taken is Taken.HELD:
            self._elsewhere.append(query)
        elif taken is Taken.ANSWERED:
            self.answered_elsewhere += 1
        elif self._renewer is None:
            self._renewer = threading.Thread(target=self._renew, name="hopkit-claims", daemon=True)
            self._renewer.start()
        return taken is Taken.YES

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
    if host != socket.gethostname() or not pid.isdigit():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except PermissionError:  # alive, another user's
        return False
    return False
