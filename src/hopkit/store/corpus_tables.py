"""Corpora and their questions: written once per dataset, read by id, in order or on demand."""

from __future__ import annotations

import logging
from typing import Iterable, Sequence

from sqlalchemy import delete, func, select

from hopkit.errors import StoreError
from hopkit.records import ContextParagraph, Corpus, Paragraph, Query
from hopkit.store import convert
from hopkit.store.corpus_writer import complete_corpus, write_corpus, write_questions_on
from hopkit.store.models import DatasetCorpusRow, DatasetRow, ParagraphRow, QueryRow, RunRow
from hopkit.store.store_base import StoreBase
from hopkit.store.stored_corpus import StoredCorpus, fetch_paragraphs, in_chunks, paragraph_source
from hopkit.terminal import name_clash

logger = logging.getLogger(__name__)


class CorpusTables(StoreBase):
    """The corpus half of :class:`~hopkit.store.store.Store`."""

    def add_corpus(self, corpus: Corpus, *, replace: bool = False,
                   more: Iterable[ContextParagraph] = (), on_corpus: str | None = None) -> int:
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
            on_corpus: the name of a complete named corpus (``hopkit corpus add``) the questions
                retrieve from, in place of paragraphs of their own: ``corpus`` then holds questions
                only (no paragraphs, no gold paragraph ids; :func:`hopkit.data.corpus.questions_only`),
                and the dataset's paragraphs are the named corpus's passages, read from it, never copied.

        Returns:
            How many stored runs were computed on the replaced corpus and are now
            stale (0 for a new dataset, or when the corpus is unchanged).

        Raises:
            StoreError: if the dataset exists and ``replace`` is false, if the
                corpus is inconsistent (duplicate ids, gold outside the corpus),
                if its name is a stored dataset's written with other code points
                (:func:`~hopkit.terminal.name_clash`), if ``on_corpus`` is unknown, not complete, or
                given with paragraphs, or if the write fails; nothing is written then.
        """
        convert.check_corpus(corpus)
        storable = convert.storable_corpus(corpus)
        if storable != corpus:  # a NUL or a lone surrogate replaced: ids may now collide
            corpus = storable
            convert.check_corpus(corpus)
        made_stale = 0
        if on_corpus is not None and (corpus.paragraphs or not (isinstance(more, (tuple, list)) and not more)):
            raise StoreError(f"dataset {corpus.name!r} on corpus {on_corpus!r}: its questions retrieve from that "
                             "corpus, so it takes no paragraphs of its own and no further ones")
        with self._transaction(f"storing corpus {corpus.name!r}") as session:
            named = None if on_corpus is None else complete_corpus(session, on_corpus)
            old = session.scalars(
                select(DatasetRow).where(DatasetRow.name == corpus.name)).one_or_none()
            old_fingerprint = None if old is None else old.fingerprint
            clash = "" if old is not None else name_clash("dataset", corpus.name,
                                                          session.scalars(select(DatasetRow.name)))
            if clash:
                raise StoreError(clash)
            if old is not None:
                if not replace:
                    raise StoreError(
                        f"dataset {corpus.name!r} is already stored; pass replace=True "
                        "(`--replace` on the command line) to overwrite it")
                session.execute(delete(ParagraphRow).where(ParagraphRow.dataset_id == old.id))
                session.execute(delete(QueryRow).where(QueryRow.dataset_id == old.id))
                session.execute(delete(DatasetCorpusRow).where(DatasetCorpusRow.dataset_id == old.id))
                session.delete(old)
                session.flush()
            if named is None:
                dataset, stored = write_corpus(session, corpus, more)
            else:
                dataset, stored = write_questions_on(session, corpus, named)
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
            source = paragraph_source(session, self._dataset(session, dataset))
            rows = session.execute(
                select(source.model.id, source.model.title, source.model.text)
                .where(source.owned()).order_by(source.model.id))
            return [Paragraph(id=pid, title=title, text=text) for pid, title, text in rows]

    def paragraphs_by_ids(self, dataset: str, ids: Sequence[int]) -> list[Paragraph]:
        """The paragraphs with the given ids, in the given order (repeats kept).

        Raises:
            StoreError: if the dataset is unknown or an id is not in its corpus.
        """
        wanted = list(dict.fromkeys(int(pid) for pid in ids))
        with self._transaction(f"reading paragraphs of {dataset!r}") as session:
            found = fetch_paragraphs(session, paragraph_source(session, self._dataset(session, dataset)), wanted)
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
            source = paragraph_source(session, self._dataset(session, dataset))
            for chunk in in_chunks([pid for pid in wanted if 0 <= pid <= convert.MAX_PARAGRAPH_ID]):
                present.update(session.scalars(select(source.model.id).where(
                    source.owned(), source.model.id.in_(chunk))))
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
