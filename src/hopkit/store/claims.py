"""Questions taken by one driver of a run, so that drivers sharing a run share its questions.

Two processes (on one host or several) running the same command on one store run the same
run. Before a driver answers a question it takes it (:meth:`ClaimStore.take_many`): a row of
``claims`` naming the driver and a lease's end. A question another driver holds is left to
it; one whose lease has run out (its driver died) is taken again; one that has an answer is
skipped. The driver renews its leases while it answers (:meth:`ClaimStore.renew`) and gives
questions back once their results are stored (with its next take, or :meth:`ClaimStore.release`).
Leases are seconds since the epoch by the taking host's clock: hosts sharing a store must keep
their clocks within a few seconds (NTP).
"""

from __future__ import annotations

import enum
import time
from typing import Sequence

from sqlalchemy import and_, bindparam, delete, or_, select, update
from sqlalchemy.orm import Session, sessionmaker

from hopkit.store.connection import transaction
from hopkit.store.models import ClaimRow, ResultRow
from hopkit.store.statements import UPSERT_DIALECTS, prepared_upsert
from hopkit.store.stored_corpus import in_chunks

__all__ = ["ClaimStore", "Taken"]


_CLAIMS = ClaimRow.__table__


def _lease_over(new: object) -> object:
    """A claim is taken over when its lease ran out, or from its own holder or a holder known dead
    (the statement's parameters ``taken_at``, ``holder_now`` and ``holder_dead``)."""
    return or_(_CLAIMS.c.expires_at < bindparam("taken_at"),
               _CLAIMS.c.holder.in_([bindparam("holder_now"), bindparam("holder_dead")]))


class Taken(enum.Enum):
    """What taking a question found."""

    YES = "taken"  # the question is this driver's to answer
    HELD = "held"  # another driver is answering it
    ANSWERED = "answered"  # it already has an answer (another driver's, since this one listed it)


class ClaimStore:
    """The ``claims`` table of a store.

    Args:
        session_factory: the store's session factory.
    """

    def __init__(self, session_factory: sessionmaker[Session]) -> None:
        self._factory = session_factory

    def take(self, run_id: str, query_id: str, holder: str, lease_seconds: float, *,
             from_holder: str | None = None) -> tuple[Taken, str]:
        """:meth:`take_many` for one question: what was found, and who holds it now."""
        return self.take_many(run_id, [query_id], holder, lease_seconds, from_holder=from_holder)[query_id]

    def take_many(self, run_id: str, query_ids: Sequence[str], holder: str, lease_seconds: float, *,
                  release: Sequence[str] = (), from_holder: str | None = None) -> dict[str, tuple[Taken, str]]:
        """Take each question for ``lease_seconds`` unless another holder's lease on it is still running or
        it already has an answer, in one transaction, giving back ``release`` first.

        Args:
            from_holder: take the questions from this holder even if its leases run (a driver known dead).

        Returns:
            For each question, what was found and who holds it now ("" for an answered one).

        Raises:
            StoreError: the store failed (a full disk, say).
        """
        found: dict[str, tuple[Taken, str]] = {}
        with transaction(self._factory, f"taking {len(query_ids)} question(s) of run {run_id}") as session:
            for chunk in in_chunks(list(release)):
                session.execute(_CLAIMS.delete().where(_CLAIMS.c.run_id == run_id, _CLAIMS.c.holder == holder,
                                                       _CLAIMS.c.query_id.in_(chunk)))
            for chunk in in_chunks(list(query_ids)):
                found.update(self._take_chunk(session, run_id, [str(q) for q in chunk], holder, lease_seconds,
                                              from_holder))
        return found

    @staticmethod
    def _take_chunk(session: Session, run_id: str, query_ids: list[str], holder: str, lease_seconds: float,
                    from_holder: str | None) -> dict[str, tuple[Taken, str]]:
        answered = set(session.scalars(select(ResultRow.query_id).where(
            ResultRow.run_id == run_id, ResultRow.query_id.in_(query_ids), ResultRow.error.is_(None))))
        wanted = [query_id for query_id in query_ids if query_id not in answered]
        now = time.time()
        free = {holder, from_holder or holder}
        rows = [{"run_id": run_id, "query_id": query_id, "holder": holder, "expires_at": now + lease_seconds}
                for query_id in wanted]
        dialect = session.get_bind().dialect.name
        if rows and dialect in UPSERT_DIALECTS:
            lease = {"taken_at": now, "holder_now": holder, "holder_dead": from_holder or holder}
            session.execute(prepared_upsert(dialect, ClaimRow, tuple(rows[0]), ("run_id", "query_id"), _lease_over),
                            [{**row, **lease} for row in rows])
        else:
            for values in rows:
                row = session.get(ClaimRow, (run_id, values["query_id"]), with_for_update=True)
                if row is None:
                    session.add(ClaimRow(**values))
                elif row.expires_at < now or row.holder in free:
                    row.holder, row.expires_at = holder, values["expires_at"]
            session.flush()
        holders: dict[str, str] = {}
        if wanted:
            rows_now = session.execute(select(ClaimRow.query_id, ClaimRow.holder).where(
                ClaimRow.run_id == run_id, ClaimRow.query_id.in_(wanted)))
            holders = {query_id: current for query_id, current in rows_now}
        found = {query_id: (Taken.ANSWERED, "") for query_id in answered}
        for query_id in wanted:
            current = holders.get(query_id, "")
            found[query_id] = (Taken.YES if current == holder else Taken.HELD, current)
        return found

    def renew(self, run_id: str, holder: str, lease_seconds: float) -> None:
        """Extend every lease ``holder`` has on the run by ``lease_seconds`` from now.

        Raises:
            StoreError: the store failed.
        """
        with transaction(self._factory, f"renewing the questions of run {run_id} taken by {holder}") as session:
            session.execute(update(ClaimRow).where(ClaimRow.run_id == run_id, ClaimRow.holder == holder)
                            .values(expires_at=time.time() + lease_seconds))

    def release(self, run_id: str, holder: str, query_ids: Sequence[str] | None = None) -> None:
        """Give back ``holder``'s questions (``None``: all it holds on the run).

        Raises:
            StoreError: the store failed.
        """
        with transaction(self._factory, f"giving back questions of run {run_id}") as session:
            mine = and_(ClaimRow.run_id == run_id, ClaimRow.holder == holder)
            if query_ids is None:
                session.execute(delete(ClaimRow).where(mine))
            for chunk in in_chunks(list(query_ids or ())):
                session.execute(delete(ClaimRow).where(mine, ClaimRow.query_id.in_(chunk)))

    def holders(self, run_id: str) -> dict[str, str]:
        """Who holds which question of the run now, leases run out included (question id -> holder)."""
        with transaction(self._factory, f"reading the questions taken in run {run_id}") as session:
            rows = session.execute(select(ClaimRow.query_id, ClaimRow.holder).where(ClaimRow.run_id == run_id))
            return {query_id: holder for query_id, holder in rows}
