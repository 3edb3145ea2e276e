"""Runs and their per-question results: registered by configuration, written one question
at a time (an answer is never overwritten by a failure), listed, looked up and deleted."""

from __future__ import annotations

import logging
from typing import Any, Iterable, Sequence

from sqlalchemy import delete, or_, select
from sqlalchemy.orm import Session

from hopkit.errors import StoreError
from hopkit.store import convert
from hopkit.store.models import ResultRow, RunRow, VerdictRow, utc_now
from hopkit.store.records import QueryResult, RunInfo, RunSpec
from hopkit.store.run_counts import run_infos
from hopkit.store.statements import UPSERT_DIALECTS, insert_ignoring_conflict, prepared_upsert
from hopkit.store.store_base import StoreBase
from hopkit.terminal import name_clash

logger = logging.getLogger(__name__)

MIN_ID_PREFIX = 4


def _answer_over_failure(new: Any) -> Any:
    """A stored result is replaced unless it is an answer and the new one a failure."""
    return or_(ResultRow.__table__.c.error.is_not(None), new.error.is_(None))


class RunTables(StoreBase):
    """The runs-and-results half of :class:`~hopkit.store.store.Store`."""

    def ensure_run(self, spec: RunSpec) -> RunInfo:
        """Register a run, or return it if this exact configuration exists.

        Raises:
            StoreError: if the dataset is unknown, if the run exists but its
                dataset was since replaced by different content, or if the run is new and
                its name is a stored run's written with other code points
                (:func:`~hopkit.terminal.name_clash`: ``e`` + U+0301 beside ``é``).
        """
        run_id = spec.run_id
        with self._transaction(f"registering run {spec.name!r} ({run_id})") as session:
            fingerprint = self._dataset(session, spec.dataset).fingerprint
            row = session.get(RunRow, run_id)
            if row is None:
                clash = name_clash("run", spec.name, self._run_names(session))
                if clash:
                    raise StoreError(clash)
                session.execute(
                    insert_ignoring_conflict(session.get_bind().dialect.name, RunRow, ["id"]).values(
                        id=run_id, name=spec.name, method=spec.method, dataset=spec.dataset,
                        dataset_fingerprint=fingerprint, config=dict(spec.config),
                        created_at=utc_now()))
                row = self._run(session, run_id)
            elif row.dataset_fingerprint != fingerprint:
                raise StoreError(
                    f"run {row.name!r} ({run_id}) was computed on dataset {spec.dataset!r} "
                    f"with fingerprint {row.dataset_fingerprint[:12]}..., but the dataset was "
                    f"re-ingested since (now {fingerprint[:12]}...); its results would mix two "
                    "corpora. Put the corpus fingerprint in the run configuration so the new "
                    "corpus gets a new run id")
            elif row.name != spec.name:
                logger.info("run %s exists as %r; resuming it under that name", run_id, row.name)
            return run_infos(session, [row])[0]

    def finished_query_ids(self, run_id: str) -> set[str]:
        """Ids of the questions this run answered without error (failed ones are retried).

        Raises:
            StoreError: if the run is unknown.
        """
        with self._transaction(f"reading the results of run {run_id}") as session:
            self._run(session, run_id)
            statement = select(ResultRow.query_id).where(ResultRow.run_id == run_id,
                                                         ResultRow.error.is_(None))
            return set(session.scalars(statement))

    def failed_query_ids(self, run_id: str, kinds: Iterable[str]) -> set[str]:
        """Ids of the questions this run stored as failed with an error of one of the classes named in ``kinds``.

        Raises:
            StoreError: if the run is unknown.
        """
        prefixes = [ResultRow.error.startswith(f"{kind}: ", autoescape=True) for kind in kinds]
        if not prefixes:
            return set()
        with self._transaction(f"reading the failures of run {run_id}") as session:
            self._run(session, run_id)
            statement = select(ResultRow.query_id).where(ResultRow.run_id == run_id, or_(*prefixes))
            return set(session.scalars(statement))

    def record_result(self, run_id: str, result: QueryResult) -> None:
        """Write one question's result in its own short transaction.

        A stored result for the same question is replaced, except that a failed
        attempt never overwrites a successful one; recording the same result
        twice leaves one row.

        Raises:
            StoreError: if the run is unknown, the trace is not JSON or the write fails.
        """
        values = convert.result_values(run_id, result)
        action = f"recording question {result.query_id!r} of run {run_id}"
        if self._dialect() in UPSERT_DIALECTS:
            self._upsert_results(run_id, [values], action)
            return
        with self._transaction(action) as session:
            self._run(session, run_id)
            existing = session.scalars(select(ResultRow).where(
                ResultRow.run_id == run_id, ResultRow.query_id == result.query_id)
                .with_for_update()).one_or_none()
            if existing is None:
                session.add(ResultRow(**values))
            elif existing.error is not None or result.error is None:
                for key, value in values.items():
                    setattr(existing, key, value)

    def record_results(self, run_id: str, results: Sequence[QueryResult]) -> None:
        """:meth:`record_result` for several results, all in one transaction (all stored, or none).

        Raises:
            StoreError: as :meth:`record_result`, for any of them (then none is stored).
        """
        if not results:
            return
        if self._dialect() not in UPSERT_DIALECTS or len(results) == 1:
            for result in results:
                self.record_result(run_id, result)
            return
        kept: dict[str, QueryResult] = {}
        for result in results:  # one row per question in one statement: an answer over a failure
            if result.error is None or kept.get(result.query_id, result).error is not None:
                kept[result.query_id] = result
        rows = [convert.result_values(run_id, result) for result in kept.values()]
        self._upsert_results(run_id, rows, f"recording {len(rows)} results of run {run_id}")

    def _upsert_results(self, run_id: str, rows: list[dict[str, Any]], action: str) -> None:
        """One prepared upsert of result rows; the run's foreign key stands for its check, and an
        unknown run is named as such when the write fails."""
        statement = prepared_upsert(self._dialect(), ResultRow, tuple(rows[0]), ("run_id", "query_id"),
                                    _answer_over_failure)
        try:
            with self._transaction(action) as session:
                session.execute(statement, rows if len(rows) > 1 else rows[0])
        except StoreError:
            with self._transaction(action) as session:
                self._run(session, run_id)
            raise

    def forget_results(self, run_id: str, query_ids: Sequence[str]) -> int:
        """Delete these questions' results from the run, so that resuming it answers them again.

        Returns:
            How many results were deleted (questions without a result are ignored).

        Raises:
            StoreError: if the run is unknown.
        """
        with self._transaction(f"forgetting {len(query_ids)} result(s) of run {run_id}") as session:
            self._run(session, run_id)
            if not query_ids:
                return 0
            statement = delete(ResultRow).where(ResultRow.run_id == run_id, ResultRow.query_id.in_(list(query_ids)))
            return int(session.execute(statement).rowcount or 0)

    def delete_run(self, run_id: str) -> int:
        """Delete a run with its results and its verdicts, in one transaction.

        Returns:
            How many results were deleted with it.

        Raises:
            StoreError: if the run is unknown.
        """
        with self._transaction(f"deleting run {run_id}") as session:
            row = self._run(session, run_id)
            session.execute(delete(VerdictRow).where(VerdictRow.run_id == run_id))
            deleted = int(session.execute(delete(ResultRow).where(ResultRow.run_id == run_id)).rowcount or 0)
            session.delete(row)
            return deleted

    def results(self, run_id: str) -> list[QueryResult]:
        """Every stored result of a run (failed ones included), in recording order.

        Raises:
            StoreError: if the run is unknown.
        """
        with self._transaction(f"reading the results of run {run_id}") as session:
            self._run(session, run_id)
            statement = select(ResultRow).where(ResultRow.run_id == run_id).order_by(ResultRow.id)
            return [convert.to_result(row) for row in session.scalars(statement)]

    def run(self, run_id: str) -> RunInfo:
        """The run with exactly this id, as stored now (counts and staleness up to date).

        Raises:
            StoreError: if the run is unknown.
        """
        with self._transaction(f"reading run {run_id}") as session:
            return run_infos(session, [self._run(session, run_id)])[0]

    def runs(self, dataset: str | None = None) -> list[RunInfo]:
        """Every stored run, oldest first, optionally only those on one dataset.

        Raises:
            StoreError: if ``dataset`` is given and unknown.
        """
        with self._transaction("listing runs") as session:
            statement = select(RunRow).order_by(RunRow.created_at, RunRow.id)
            if dataset is not None:
                self._dataset(session, dataset)
                statement = statement.where(RunRow.dataset == dataset)
            return run_infos(session, list(session.scalars(statement)))

    def run_names(self) -> list[str]:
        """The names of the stored runs, each once (without reading their results)."""
        with self._transaction("listing run names") as session:
            return self._run_names(session)

    @staticmethod
    def _run_names(session: Session) -> list[str]:
        return list(session.scalars(select(RunRow.name).distinct()))

    def find_runs(self, name_or_id: str) -> list[RunInfo]:
        """Runs whose id, id prefix (at least 4 characters) or name matches, oldest first.

        Raises:
            StoreError: if nothing matches; the message lists the known runs.
        """
        with self._transaction(f"looking up run {name_or_id!r}") as session:
            conditions = [RunRow.id == name_or_id, RunRow.name == name_or_id]
            if len(name_or_id) >= MIN_ID_PREFIX:
                conditions.append(RunRow.id.startswith(name_or_id, autoescape=True))
            rows = list(session.scalars(select(RunRow).where(or_(*conditions))
                                        .order_by(RunRow.created_at, RunRow.id)))
            if not rows:
                self._run(session, name_or_id)
            return run_infos(session, rows)
