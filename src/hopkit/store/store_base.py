"""What the store's two halves share: the session factory, transactions, and the lookups
that name what is known when a dataset or a run is not."""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Sequence

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from hopkit.errors import StoreError
from hopkit.store.connection import factory_location, transaction
from hopkit.store.models import DatasetRow, RunRow

MAX_LISTED = 20


def _known(names: Sequence[str]) -> str:
    shown = ", ".join(names[:MAX_LISTED]) or "(none)"
    more = f" and {len(names) - MAX_LISTED} more" if len(names) > MAX_LISTED else ""
    return shown + more


class StoreBase:
    """A session factory and the plumbing :class:`~hopkit.store.store.Store`'s halves build on."""

    def __init__(self, session_factory: sessionmaker[Session]) -> None:
        self._factory = session_factory


    def _where(self) -> str:
        return factory_location(self._factory)

    def _dialect(self) -> str:
        """The database's dialect name ("" when the factory has no engine bound)."""
        bind = self._factory.kw.get("bind")
        return bind.dialect.name if bind is not None else ""

    def _transaction(self, action: str) -> AbstractContextManager[Session]:
        """One transaction: committed on success, rolled back on any error."""
        return transaction(self._factory, action)

    def _dataset(self, session: Session, name: str) -> DatasetRow:
        row = session.scalars(select(DatasetRow).where(DatasetRow.name == name)).one_or_none()
        if row is None:
            known = list(session.scalars(select(DatasetRow.name).order_by(DatasetRow.name)))
            raise StoreError(f"unknown dataset {name!r}; known datasets: {_known(known)}. "
                             "Ingest it first (add_corpus / `hopkit ingest`)")
        return row

    def _run(self, session: Session, run_id: str) -> RunRow:
        row = session.get(RunRow, run_id)
        if row is None:
            known = [f"{r.name} ({r.id})" for r in
                     session.scalars(select(RunRow).order_by(RunRow.created_at))]
            raise StoreError(f"unknown run {run_id!r}; known runs: {_known(known)}")
        return row
