"""LLM judges' verdicts on runs' answers (LLM-judged accuracy), stored one by one.

A judge is costly, so each verdict is written in its own short transaction as soon as it
is given (a stopped ``hopkit judge`` loses at most the answer in flight) and a rerun
skips what :meth:`VerdictStore.verdicts` returns. A judge is named by two strings, its
model id and its prompt version; verdicts of different judges never mix. The store knows
nothing of how a verdict is reached (that is :mod:`hopkit.evaluation.llm_judge`).
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Sequence

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from hopkit.errors import StoreError
from hopkit.store.connection import transaction
from hopkit.store.models import RunRow, VerdictRow, utc_now
from hopkit.store.statements import UPSERT_DIALECTS, upsert
from hopkit.store.storable import name_too_long, storable_text

__all__ = ["StoredVerdict", "VerdictStore"]

_KEY = ("run_id", "query_id", "judge_model", "prompt_version")


@dataclass(frozen=True)
class StoredVerdict:
    """A judge's verdict on one answer: the answer it judged, whether it said the answer is
    correct (None: its reply ``raw`` was unreadable) and that reply."""

    query_id: str
    prediction: str
    correct: bool | None
    raw: str


def _check_judge(judge_model: str, prompt_version: str) -> None:
    for label, value in (("judge_model", judge_model), ("prompt_version", prompt_version)):
        if not isinstance(value, str) or not value.strip():
            raise StoreError(f"a verdict's {label} must be a non-empty string, got {value!r}; "
                             "a judge is named by its model id and its prompt version")
        if name_too_long(value):
            raise StoreError(f"a verdict's {label} {name_too_long(value)}")


class VerdictStore:
    """The ``verdicts`` table.

    Args:
        session_factory: a session factory whose tables exist, e.g.
            ``DBConnection.from_config(url).get_session_factory()``.
    """

    def __init__(self, session_factory: sessionmaker[Session]) -> None:
        self._factory = session_factory

    def _transaction(self, action: str) -> AbstractContextManager[Session]:
        return transaction(self._factory, action)

    @staticmethod
    def _check_run(session: Session, run_id: str) -> None:
        if session.get(RunRow, run_id) is None:
            raise StoreError(f"unknown run {run_id!r}; list the runs with `hopkit runs`")

    def verdicts(self, run_id: str, judge_model: str, prompt_version: str) -> dict[str, StoredVerdict]:
        """The verdicts this judge gave on this run's answers, by question id.

        Args:
            run_id: the run.
            judge_model: the judging model's id.
            prompt_version: the judge's prompt version.

        Returns:
            One verdict per judged question (empty when the judge never judged the run).

        Raises:
            StoreError: the run is unknown, a judge name is empty, or the read fails.
        """
        _check_judge(judge_model, prompt_version)
        with self._transaction(f"reading the verdicts of {judge_model} on run {run_id}") as session:
            self._check_run(session, run_id)
            rows = session.scalars(select(VerdictRow).where(
                VerdictRow.run_id == run_id, VerdictRow.judge_model == judge_model,
                VerdictRow.prompt_version == prompt_version).order_by(VerdictRow.id))
            return {row.query_id: StoredVerdict(row.query_id, row.prediction, row.correct, row.raw)
                    for row in rows}

    def judges(self, run_ids: Sequence[str]) -> list[tuple[str, str]]:
        """The judges (model id, prompt version) with at least one verdict on any of these runs, sorted.

        Raises:
            StoreError: the read fails.
        """
        with self._transaction("listing the judges of runs") as session:
            rows = session.execute(select(VerdictRow.judge_model, VerdictRow.prompt_version)
                                   .where(VerdictRow.run_id.in_(list(run_ids))).distinct())
            return sorted((str(model), str(version)) for model, version in rows)

    def record(self, run_id: str, judge_model: str, prompt_version: str, verdict: StoredVerdict) -> None:
        """Write one verdict in its own short transaction, replacing this judge's earlier
        verdict on the same question (given on an answer the run has since replaced).

        Raises:
            StoreError: the run is unknown, a judge name is empty, or the write fails.
        """
        _check_judge(judge_model, prompt_version)
        values: dict[str, Any] = {"run_id": run_id, "query_id": storable_text(verdict.query_id),
                                  "judge_model": storable_text(judge_model),
                                  "prompt_version": storable_text(prompt_version),
                                  "prediction": storable_text(verdict.prediction), "correct": verdict.correct,
                                  "raw": storable_text(verdict.raw), "created_at": utc_now()}
        action = f"recording the verdict of {judge_model} on question {verdict.query_id!r} of run {run_id}"
        with self._transaction(action) as session:
            self._check_run(session, run_id)
            dialect = session.get_bind().dialect.name
            if dialect in UPSERT_DIALECTS:
                session.execute(upsert(dialect, VerdictRow, values, _KEY))
                return
            existing = session.scalars(select(VerdictRow).where(
                *(getattr(VerdictRow, key) == values[key] for key in _KEY)).with_for_update()).one_or_none()
            if existing is None:
                session.add(VerdictRow(**values))
            else:
                for key, value in values.items():
                    setattr(existing, key, value)
