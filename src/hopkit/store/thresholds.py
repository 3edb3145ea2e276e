"""The ``thresholds`` table: what ``hopkit calibrate`` measured, for the runs that need it.

A threshold is kept per kind (MIGRES's δ, SearChain's θ), model (the LLM config's name), retrieval
config and dataset; measuring it again replaces it. A run of a method that needs one and was not
given it reads the stored one for its model, retrieval and dataset (:func:`calibrated_options`).
"""

from __future__ import annotations

import json
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Mapping

from sqlalchemy.orm import Session, sessionmaker

from hopkit.store.connection import transaction
from hopkit.store.models import ThresholdRow, utc_now


@dataclass(frozen=True)
class StoredThreshold:
    """One measured threshold and where it came from."""

    kind: str
    llm: str
    retrieval: str
    dataset: str
    value: float
    options: Mapping[str, Any]
    judge: str
    rule: str
    created_at: datetime

    def origin(self) -> str:
        """``hopkit calibrate (rule; judge J, retrieval R, dataset D, 2026-11-29)``."""
        return (f"hopkit calibrate ({self.rule}; judge {self.judge}, retrieval {self.retrieval}, dataset "
                f"{self.dataset}, {self.created_at:%Y-%m-%d})")


class ThresholdStore:
    """Reads and writes the ``thresholds`` table of a store."""

    def __init__(self, session_factory: sessionmaker[Session]) -> None:
        self._factory = session_factory

    def _transaction(self, action: str) -> AbstractContextManager[Session]:
        return transaction(self._factory, action)

    def save(self, kind: str, llm: str, retrieval: str, dataset: str, value: float, *,
             options: Mapping[str, Any] | None = None, judge: str, rule: str) -> None:
        """Keep a measured threshold, replacing one measured before for the same kind, model, retrieval
        and dataset."""
        with self._transaction("store the calibrated threshold") as session:
            row = session.get(ThresholdRow, (kind, llm, retrieval, dataset))
            if row is None:
                row = ThresholdRow(kind=kind, llm=llm, retrieval=retrieval, dataset=dataset)
                session.add(row)
            row.value, row.options, row.judge, row.rule = float(value), json.dumps(dict(options or {})), judge, rule
            row.created_at = utc_now()

    def get(self, kind: str, llm: str, retrieval: str, dataset: str) -> StoredThreshold | None:
        """The threshold measured for these, or None."""
        with self._transaction("read a calibrated threshold") as session:
            row = session.get(ThresholdRow, (kind, llm, retrieval, dataset))
            if row is None:
                return None
            return StoredThreshold(row.kind, row.llm, row.retrieval, row.dataset, row.value, json.loads(row.options),
                                   row.judge, row.rule, row.created_at)
