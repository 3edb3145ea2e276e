"""Questions taken by one driver of a run, so that drivers sharing a run share its questions.

Two processes (on one host or several) running the same command on one store run the same
run. Before a driver answers a question it takes it (:meth:`ClaimStore.take`): a row of
``claims`` naming the driver and a lease's end. A question another driver holds is left to
it; one whose lease has run out (its driver died) is taken again. The driver renews its
leases while it answers (:meth:`ClaimStore.renew`) and gives each question back once its
result is stored (:meth:`ClaimStore.release`). Leases are seconds since the epoch by the
taking host's clock: hosts sharing a store must keep their clocks within a few seconds (NTP).
"""

from __future__ import annotations

import enum
import time
from typing import Sequence

from sqlalchemy import and_, delete, or_, select, update
from sqlalchemy.orm import Session, sessionmaker

from hopkit.store.connection import transaction
from hopkit.store.models import ClaimRow, ResultRow
from hopkit.store.statements import UPSERT_DIALECTS, upsert

__all__ = ["ClaimStore", "Taken"]


class Taken(enum.Enum):
    """What :meth:`ClaimStore.take` found."""

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
        """Take the question for ``lease_seconds`` unless another holder's lease on it is still running,
        or it already has an answer.

        Args:
            from_holder: take it from this holder even if its lease is running (a driver known to be dead).

        Returns:
            What was found, and who holds the question now.

        Raises:
            StoreError: the store failed (a full disk, say).
        """
        now = time.time()
        values = {"run_id": run_id, "query_id": query_id, "holder": holder, "expires_at": now + lease_seconds}
        with transaction(self._factory, f"taking question {query_id!r} of run {run_id}") as session:
            answered = session.scalar(select(ResultRow.id).where(
                ResultRow.run_id == run_id, ResultRow.query_id == query_id, ResultRow.error.is_(None)))
            if answered is not None:
                return Taken.ANSWERED, ""
            dialect = session.get_bind().dialect.name
            free = {holder, from_holder or holder}
            if dialect in UPSERT_DIALECTS:
                table = ClaimRow.__table__.c
                session.execute(upsert(dialect, ClaimRow, values, ("run_id", "query_id"),
                                       only_if=lambda new: or_(table.expires_at < now, table.holder.in_(free))))
            else:
                row = session.get(ClaimRow, (run_id, query_id), with_for_update=True)
                if row is None:
                    session.add(ClaimRow(**values))
                elif row.expires_at < now or row.holder in free:
                    row.holder, row.expires_at = holder, values["expires_at"]
            session.flush()
            current = session.scalar(select(ClaimRow.holder).where(ClaimRow.run_id == run_id,
                                                                   ClaimRow.query_id == query_id)) or ""
            return (Taken.YES if current == holder else Taken.HELD), current

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
        where = and_(ClaimRow.run_id == run_id, ClaimRow.holder == holder)
        if query_ids is not None:
            if not query_ids:
                return
            where = and_(where, ClaimRow.query_id.in_(list(query_ids)))
        with transaction(self._factory, f"giving back questions of run {run_id}") as session:
            session.execute(delete(ClaimRow).where(where))

    def holders(self, run_id: str) -> dict[str, str]:
        """Who holds which question of the run now, leases run out included (question id -> holder)."""
        with transaction(self._factory, f"reading the questions taken in run {run_id}") as session:
            rows = session.execute(select(ClaimRow.query_id, ClaimRow.holder).where(ClaimRow.run_id == run_id))
            return {query_id: holder for query_id, holder in rows}
