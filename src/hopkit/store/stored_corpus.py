"""A dataset's corpus read from the store piece by piece, never held whole.

What a Wikipedia-size corpus needs: streaming its paragraphs in id order (to hash and
index them), and fetching a few paragraphs by id or by title (to answer a query).

A dataset's paragraphs are its own pooled ones (``paragraphs``), or, for a dataset ingested on a
named corpus (``ingest --on-corpus NAME``), that corpus's passages (``corpus_passages``), their id
the passage's position in the corpus file: :func:`paragraph_source` says which, and refuses a
named corpus that is not complete.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any

import numpy as np
from sqlalchemy import func, inspect, select
from sqlalchemy.orm import Session, sessionmaker

from hopkit.errors import StoreError
from hopkit.records import FingerprintHasher, Paragraph
from hopkit.store.connection import transaction
from hopkit.store.models import CorpusPassageRow, DatasetCorpusRow, DatasetRow, NamedCorpusRow, ParagraphRow
from hopkit.terminal import printable

READ_BATCH = 10_000
SELECT_BATCH = 900  # ids in one IN (...): below SQLite's oldest limit of 999 parameters


def finish_command(name: str, source: str) -> str:
    """The command that finishes storing the corpus ``name`` from ``source`` (no path for a corpus
    downloaded by name: its ``hf://`` source)."""
    where = "" if source.startswith("hf://") else f" {printable(source)}"
    return f"run `hopkit corpus add {printable(name)}{where}` again to finish it"


@dataclass(frozen=True)
class ParagraphSource:
    """Where a dataset's paragraphs are: the table and its owner (the dataset, or its named corpus)."""

    model: Any  # ParagraphRow or CorpusPassageRow: both have id, title and text
    owner: int
    corpus: str | None = None  # the named corpus's name, when the dataset is on one
    passages: int | None = None  # and how many passages it holds (complete: counted as stored)

    def owned(self) -> Any:
        """The condition selecting the owner's rows."""
        if self.model is ParagraphRow:
            return ParagraphRow.dataset_id == self.owner
        return CorpusPassageRow.corpus_id == self.owner


def own_paragraphs(dataset_id: int) -> ParagraphSource:
    """A dataset's own pooled paragraphs."""
    return ParagraphSource(ParagraphRow, dataset_id)


def paragraph_source(session: Session, dataset: DatasetRow) -> ParagraphSource:
    """Where ``dataset``'s paragraphs are: its named corpus's passages, or its own.

    Raises:
        StoreError: the dataset is on a named corpus that is not complete (a run never reads one).
    """
    if not inspect(session.connection()).has_table(DatasetCorpusRow.__tablename__):
        return own_paragraphs(dataset.id)  # a store from before named corpora, opened read-only
    corpus_id = session.scalar(select(DatasetCorpusRow.corpus_id)
                               .where(DatasetCorpusRow.dataset_id == dataset.id))
    if corpus_id is None:
        return own_paragraphs(dataset.id)
    corpus = session.get(NamedCorpusRow, corpus_id)
    if corpus is None or not corpus.complete:
        state = "gone" if corpus is None else f"incomplete ({corpus.passages:,} passages stored so far)"
        finish = "" if corpus is None else f"; {finish_command(corpus.name, corpus.source)}"
        raise StoreError(f"dataset {dataset.name!r} retrieves from corpus {getattr(corpus, 'name', corpus_id)!r}, "
                         f"which is {state}: a run never uses it so{finish}")
    return ParagraphSource(CorpusPassageRow, corpus_id, corpus.name, corpus.passages)


def paragraph_batches(session: Session, source: ParagraphSource, size: int = READ_BATCH,
                      after: int | None = None) -> Iterator[list[Paragraph]]:
    """The source's paragraphs in id order (those after id ``after`` when given), ``size`` at a
    time (keyset paging: each batch is one indexed range read, however deep into the corpus)."""
    model = source.model
    while True:
        query = (select(model.id, model.title, model.text)
                 .where(source.owned()).order_by(model.id).limit(size))
        if after is not None:
            query = query.where(model.id > after)
        batch = [Paragraph(pid, title, text) for pid, title, text in session.execute(query)]
        if not batch:
            return
        yield batch
        after = batch[-1].id


def in_chunks(values: Sequence[object]) -> Iterator[Sequence[object]]:
    """``values`` in slices small enough for one ``IN (...)`` on every database."""
    for start in range(0, len(values), SELECT_BATCH):
        yield values[start:start + SELECT_BATCH]


def fetch_paragraphs(session: Session, source: ParagraphSource, ids: Iterable[int]) -> dict[int, Paragraph]:
    """The source's paragraphs with these ids, by id (an unknown id is simply absent)."""
    model = source.model
    found: dict[int, Paragraph] = {}
    for chunk in in_chunks(list(dict.fromkeys(int(pid) for pid in ids))):
        rows = session.execute(select(model.id, model.title, model.text)
                               .where(source.owned(), model.id.in_(chunk)))
        found.update((pid, Paragraph(pid, title, text)) for pid, title, text in rows)
    return found


def stored_fingerprint(session: Session, dataset_id: int) -> str:
    """:func:`~hopkit.records.corpus_fingerprint` of a dataset's own paragraphs as stored, read in batches."""
    hasher = FingerprintHasher()
    for batch in paragraph_batches(session, own_paragraphs(dataset_id)):
        hasher.update(batch)
    return hasher.hexdigest()


class StoredCorpus:
    """One dataset's corpus in the store, read on demand.

    Args:
        session_factory: the store's session factory.
        dataset: the dataset's name.

    Raises:
        StoreError: if the dataset is not stored.
    """

    def __init__(self, session_factory: sessionmaker[Session], dataset: str) -> None:
        self._factory = session_factory
        self.dataset = dataset
        with self._read("reading the dataset") as session:
            row = session.scalars(select(DatasetRow).where(DatasetRow.name == dataset)).one_or_none()
            if row is None:
                raise StoreError(f"unknown dataset {dataset!r}; ingest it first (`hopkit ingest`)")
            self._source = paragraph_source(session, row)
            self.fingerprint: str = row.fingerprint

    @property
    def corpus_name(self) -> str | None:
        """The named corpus the dataset retrieves from (``hopkit ingest --on-corpus``), None for its own paragraphs."""
        return self._source.corpus

    def _read(self, action: str) -> AbstractContextManager[Session]:
        return transaction(self._factory, f"{action} of {self.dataset!r}")

    def __len__(self) -> int:
        if self._source.passages is not None:  # a complete named corpus: its count, not a scan of millions
            return self._source.passages
        with self._read("counting the paragraphs") as session:
            return int(session.scalar(select(func.count()).select_from(self._source.model)
                                      .where(self._source.owned())) or 0)

    def ids(self) -> np.ndarray:
        """Every paragraph id, ascending (8 bytes a paragraph: 40 MB for 5 million). A complete named corpus's
        ids are its passages' positions in its file, 0 to its count less one: not read from the store."""
        if self._source.passages is not None:
            return np.arange(self._source.passages, dtype=np.int64)
        chunks: list[np.ndarray] = []
        after = -1
        while True:
            with self._read("reading the paragraph ids") as session:
                model = self._source.model
                chunk = np.fromiter(session.scalars(
                    select(model.id).where(self._source.owned(), model.id > after)
                    .order_by(model.id).limit(READ_BATCH * 10)), dtype=np.int64)
            if chunk.size == 0:
                return np.concatenate(chunks) if chunks else np.empty(0, dtype=np.int64)
            chunks.append(chunk)
            after = int(chunk[-1])

    def batches(self, size: int = READ_BATCH, after: int | None = None) -> Iterator[list[Paragraph]]:
        """The paragraphs in id order (after id ``after`` when given), ``size`` at a time, all in
        one read transaction."""
        with self._read("reading the paragraphs") as session:
            yield from paragraph_batches(session, self._source, size, after)

    def fetch(self, ids: Iterable[int]) -> dict[int, Paragraph]:
        """The paragraphs with these ids, by id (an unknown id is simply absent)."""
        with self._read("reading paragraphs") as session:
            return fetch_paragraphs(session, self._source, ids)

    def ids_with_titles(self, titles: Collection[str]) -> list[int]:
        """Ids of the paragraphs whose title is one of ``titles``, ascending."""
        ids: list[int] = []
        with self._read("finding paragraphs by title") as session:
            for chunk in in_chunks(sorted(set(titles))):
                model = self._source.model
                ids.extend(session.scalars(select(model.id).where(self._source.owned(), model.title.in_(chunk))))
        return sorted(ids)
