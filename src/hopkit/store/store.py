"""The few operations the rest of hopkit needs from the database.

Corpora and questions go in once (:meth:`Store.add_corpus`); a run is
registered by its full configuration (:meth:`Store.ensure_run`); each question's
result is written in its own short transaction as soon as it is known
(:meth:`Store.record_result`), so a killed process loses at most the question
in flight and a restarted run skips what :meth:`Store.finished_query_ids` lists.
"""

from __future__ import annotations

import logging
from contextlib import AbstractContextManager
from typing import Any, Iterable, Sequence

from sqlalchemy import delete, func, or_, select
from sqlalchemy.orm import Session, sessionmaker

from hopkit.errors import StoreError
from hopkit.records import ContextParagraph, Corpus, Paragraph, Query
from hopkit.store import convert
from hopkit.store.connection import DBConnection, factory_location, transaction
from hopkit.store.models import (
    DatasetRow,
    ParagraphRow,
    QueryRow,
    ResultRow,
    RunRow,
    VerdictRow,
    utc_now,
)
from hopkit.store.records import QueryResult, RunInfo, RunSpec
from hopkit.store.corpus_writer import write_corpus
from hopkit.store.run_counts import run_infos
from hopkit.store.stored_corpus import StoredCorpus, fetch_paragraphs, in_chunks
from hopkit.store.statements import UPSERT_DIALECTS, insert_ignoring_conflict, prepared_upsert
from hopkit.store.claims import ClaimStore
from hopkit.store.verdicts import VerdictStore

logger = logging.getLogger(__name__)

MIN_ID_PREFIX = 4
MAX_LISTED = 20


def _known(names: Sequence[str]) -> str:
    shown = ", ".join(names[:MAX_LISTED]) or "(none)"
    more = f" and {len(names) - MAX_LISTED} more" if len(names) > MAX_LISTED else ""
    return shown + more


def _answer_over_failure(new: Any) -> Any:
    """A stored result is replaced unless it is an answer and the new one a failure."""
    return or_(ResultRow.__table__.c.error.is_not(None), new.error.is_(None))


class Store:
    """Corpora, questions, gold, runs and per-question results in one database.

    Args:
        session_factory: a SQLAlchemy session factory whose tables exist, e.g.
            ``DBConnection.from_config(url).get_session_factory()``.
    """

    def __init__(self, session_factory: sessionmaker[Session]) -> None:
        self._factory = session_factory

    @classmethod
    def connect(cls, url: str | None = None) -> Store:
        """Open the store at ``url`` (else ``$HOPKIT_DB_URL``, else the default SQLite file).

        Raises:
            StoreError: if the database cannot be reached.
        """
        return cls(DBConnection.from_config(url).get_session_factory())

    @property
    def verdicts(self) -> VerdictStore:
        """The LLM judges' verdicts on this store's runs (the same database)."""
        return VerdictStore(self._factory)

    @property
    def claims(self) -> ClaimStore:
        """Which driver is answering which question of a run now (the same database)."""
        return ClaimStore(self._factory)

    @property
    def location(self) -> str:
        """The database's URL with any password masked, for messages ("the database" if unknown)."""
        return self._where()

    # -- plumbing ---------------------------------------------------------

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

    # -- corpora and questions -------------------------------------------

    def add_corpus(self, corpus: Corpus, *, replace: bool = False,
                   more: Iterable[ContextParagraph] = ()) -> int:
        """Store a pooled corpus and its questions, all in one transaction.

        Replacing a dataset by a different corpus makes the runs computed on the
        old one *stale* (:attr:`RunInfo.stale`): they are kept, but they can no
        longer be scored, since their paragraph ids point into the old corpus.

        Args:
            corpus: the corpus; its ``name`` becomes the dataset name.
            replace: replace an existing dataset of the same name.
            more: further paragraphs to make retrievable (a Wikipedia dump, read as a stream
                by :func:`hopkit.data.corpus_file.read_corpus`), numbered after the corpus's
                own and written in batches, so that memory does not grow with them; those
                equal to one of the corpus's own (title and text, whitespace aside) are skipped.

        Returns:
            How many stored runs were computed on the replaced corpus and are now
            stale (0 for a new dataset, or when the corpus is unchanged).

        Raises:
            StoreError: if the dataset exists and ``replace`` is false, if the
                corpus is inconsistent (duplicate ids, gold outside the corpus)
                or if the write fails; nothing is written then.
        """
        convert.check_corpus(corpus)
        storable = convert.storable_corpus(corpus)
        if storable != corpus:  # a NUL or a lone surrogate replaced: ids may now collide
            corpus = storable
            convert.check_corpus(corpus)
        made_stale = 0
        with self._transaction(f"storing corpus {corpus.name!r}") as session:
            old = session.scalars(
                select(DatasetRow).where(DatasetRow.name == corpus.name)).one_or_none()
            old_fingerprint = None if old is None else old.fingerprint
            if old is not None:
                if not replace:
                    raise StoreError(
                        f"dataset {corpus.name!r} is already stored; pass replace=True "
                        "(`--replace` on the command line) to overwrite it")
                session.execute(delete(ParagraphRow).where(ParagraphRow.dataset_id == old.id))
                session.execute(delete(QueryRow).where(QueryRow.dataset_id == old.id))
                session.delete(old)
                session.flush()
            dataset, stored = write_corpus(session, corpus, more)
            if old_fingerprint is not None and old_fingerprint != dataset.fingerprint:
                made_stale = session.scalar(
                    select(func.count()).select_from(RunRow).where(
                        RunRow.dataset == corpus.name, RunRow.dataset_fingerprint == old_fingerprint)) or 0
        logger.info("stored dataset %r: %d paragraphs, %d questions", corpus.name, stored, len(corpus.queries))
        if made_stale:
            logger.info("dataset %r was replaced by a different corpus: %d run(s) computed on "
                           "the old one are now stale", corpus.name, made_stale)
        return made_stale

    def corpus(self, dataset: str) -> StoredCorpus:
        """The dataset's corpus, read on demand: for a corpus too large for :meth:`paragraphs`.

        Raises:
            StoreError: if the dataset is unknown.
        """
        return StoredCorpus(self._factory, dataset)

    def datasets(self) -> list[str]:
        """Names of the stored datasets, sorted."""
        with self._transaction("listing datasets") as session:
            return list(session.scalars(select(DatasetRow.name).order_by(DatasetRow.name)))

    def fingerprint(self, dataset: str) -> str:
        """The :func:`~hopkit.records.corpus_fingerprint` of a dataset's pooled corpus, as
        stored when it was ingested (changes whenever a paragraph does).

        Raises:
            StoreError: if the dataset is unknown.
        """
        with self._transaction(f"reading dataset {dataset!r}") as session:
            return self._dataset(session, dataset).fingerprint

    def paragraphs(self, dataset: str) -> list[Paragraph]:
        """Every paragraph of a dataset's corpus, ordered by id.

        Raises:
            StoreError: if the dataset is unknown.
        """
        with self._transaction(f"reading the paragraphs of {dataset!r}") as session:
            dataset_id = self._dataset(session, dataset).id
            rows = session.execute(
                select(ParagraphRow.id, ParagraphRow.title, ParagraphRow.text)
                .where(ParagraphRow.dataset_id == dataset_id).order_by(ParagraphRow.id))
            return [Paragraph(id=pid, title=title, text=text) for pid, title, text in rows]

    def paragraphs_by_ids(self, dataset: str, ids: Sequence[int]) -> list[Paragraph]:
        """The paragraphs with the given ids, in the given order (repeats kept).

        Raises:
            StoreError: if the dataset is unknown or an id is not in its corpus.
        """
        wanted = list(dict.fromkeys(int(pid) for pid in ids))
        with self._transaction(f"reading paragraphs of {dataset!r}") as session:
            found = fetch_paragraphs(session, self._dataset(session, dataset).id, wanted)
        missing = [pid for pid in wanted if pid not in found]
        if missing:
            raise StoreError(f"dataset {dataset!r} has no paragraphs with ids {missing[:10]}"
                             f"{' ...' if len(missing) > 10 else ''}; ids come from this "
                             "dataset's corpus (was it re-ingested since the index was built?)")
        return [found[int(pid)] for pid in ids]

    def missing_paragraph_ids(self, dataset: str, ids: Sequence[int]) -> list[int]:
        """Those of ``ids`` that are not paragraph ids of the dataset's corpus, in the order given.

        Raises:
            StoreError: if the dataset is unknown.
        """
        wanted = list(dict.fromkeys(int(pid) for pid in ids))
        present: set[int] = set()
        with self._transaction(f"checking paragraph ids of {dataset!r}") as session:
            dataset_id = self._dataset(session, dataset).id
            for chunk in in_chunks([pid for pid in wanted if 0 <= pid <= convert.MAX_PARAGRAPH_ID]):
                present.update(session.scalars(select(ParagraphRow.id).where(
                    ParagraphRow.dataset_id == dataset_id, ParagraphRow.id.in_(chunk))))
        return [pid for pid in wanted if pid not in present]

    def queries(self, dataset: str, *, limit: int | None = None) -> list[Query]:
        """The questions of a dataset, in their stored order.

        Args:
            dataset: the dataset name.
            limit: return only the first ``limit`` questions.

        Raises:
            StoreError: if the dataset is unknown or ``limit`` is negative.
        """
        if limit is not None and (not isinstance(limit, int) or limit < 0):
            raise StoreError(f"limit must be a non-negative integer or None, got {limit!r}")
        with self._transaction(f"reading the questions of {dataset!r}") as session:
            dataset_id = self._dataset(session, dataset).id
            statement = (select(QueryRow).where(QueryRow.dataset_id == dataset_id)
                         .order_by(QueryRow.position))
            if limit is not None:
                statement = statement.limit(limit)
            return [convert.to_query(row) for row in session.scalars(statement)]

    # -- runs and results ---------------------------------------------------

    def ensure_run(self, spec: RunSpec) -> RunInfo:
        """Register a run, or return it if this exact configuration exists.

        Raises:
            StoreError: if the dataset is unknown, or if the run exists but its
                dataset was since replaced by different content.
        """
        run_id = spec.run_id
        with self._transaction(f"registering run {spec.name!r} ({run_id})") as session:
            fingerprint = self._dataset(session, spec.dataset).fingerprint
            row = session.get(RunRow, run_id)
            if row is None:
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
