"""A dataset's corpus read from the store piece by piece, never held whole.

What a Wikipedia-size corpus needs: streaming its paragraphs in id order (to hash and
index them), and fetching a few paragraphs by id or by title (to answer a query).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager

import numpy as np
from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from hopkit.errors import StoreError
from hopkit.records import FingerprintHasher, Paragraph
from hopkit.store.connection import transaction
from hopkit.store.models import DatasetRow, ParagraphRow

READ_BATCH = 10_000
SELECT_BATCH = 900  # ids in one IN (...): below SQLite's oldest limit of 999 parameters


def paragraph_batches(session: Session, dataset_id: int, size: int = READ_BATCH,
                      after: int | None = None) -> Iterator[list[Paragraph]]:
    """The dataset's paragraphs in id order (those after id ``after`` when given), ``size`` at a
    time (keyset paging: each batch is one indexed range read, however deep into the corpus)."""
    while True:
        query = (select(ParagraphRow.id, ParagraphRow.title, ParagraphRow.text)
                 .where(ParagraphRow.dataset_id == dataset_id).order_by(ParagraphRow.id).limit(size))
        if after is not None:
            query = query.where(ParagraphRow.id > after)
        batch = [Paragraph(pid, title, text) for pid, title, text in session.execute(query)]
        if not batch:
            return
        yield batch
        after = batch[-1].id


def in_chunks(values: Sequence[object]) -> Iterator[Sequence[object]]:
    """``values`` in slices small enough for one ``IN (...)`` on every database."""
    for start in range(0, len(values), SELECT_BATCH):
        yield values[start:start + SELECT_BATCH]


def fetch_paragraphs(session: Session, dataset_id: int, ids: Iterable[int]) -> dict[int, Paragraph]:
    """The dataset's paragraphs with these ids, by id (an unknown id is simply absent)."""
    found: dict[int, Paragraph] = {}
    for chunk in in_chunks(list(dict.fromkeys(int(pid) for pid in ids))):
        rows = session.execute(select(ParagraphRow.id, ParagraphRow.title, ParagraphRow.text)
                               .where(ParagraphRow.dataset_id == dataset_id, ParagraphRow.id.in_(chunk)))
        found.update((pid, Paragraph(pid, title, text)) for pid, title, text in rows)
    return found


def stored_fingerprint(session: Session, dataset_id: int) -> str:
    """:func:`~hopkit.records.corpus_fingerprint` of what the store holds, read in batches."""
    hasher = FingerprintHasher()
    for batch in paragraph_batches(session, dataset_id):
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
            self._dataset_id = row.id
            self.fingerprint: str = row.fingerprint

    def _read(self, action: str) -> AbstractContextManager[Session]:
        return transaction(self._factory, f"{action} of {self.dataset!r}")

    def __len__(self) -> int:
        with self._read("counting the paragraphs") as session:
            return int(session.scalar(select(func.count()).select_from(ParagraphRow)
                                      .where(ParagraphRow.dataset_id == self._dataset_id)) or 0)

    def ids(self) -> np.ndarray:
        """Every paragraph id, ascending (8 bytes a paragraph: 40 MB for 5 million)."""
        chunks: list[np.ndarray] = []
        after = -1
        while True:
            with self._read("reading the paragraph ids") as session:
                chunk = np.fromiter(session.scalars(
                    select(ParagraphRow.id).where(ParagraphRow.dataset_id == self._dataset_id,
                                                  ParagraphRow.id > after)
                    .order_by(ParagraphRow.id).limit(READ_BATCH * 10)), dtype=np.int64)
            if chunk.size == 0:
                return np.concatenate(chunks) if chunks else np.empty(0, dtype=np.int64)
            chunks.append(chunk)
            after = int(chunk[-1])

    def batches(self, size: int = READ_BATCH, after: int | None = None) -> Iterator[list[Paragraph]]:
        """The paragraphs in id order (after id ``after`` when given), ``size`` at a time, all in
        one read transaction."""
        with self._read("reading the paragraphs") as session:
            yield from paragraph_batches(session, self._dataset_id, size, after)

    def fetch(self, ids: Iterable[int]) -> dict[int, Paragraph]:
        """The paragraphs with these ids, by id (an unknown id is simply absent)."""
        with self._read("reading paragraphs") as session:
            return fetch_paragraphs(session, self._dataset_id, ids)

    def ids_with_titles(self, titles: Collection[str]) -> list[int]:
        """Ids of the paragraphs whose title is one of ``titles``, ascending."""
        ids: list[int] = []
        with self._read("finding paragraphs by title") as session:
            for chunk in in_chunks(sorted(set(titles))):
                ids.extend(session.scalars(select(ParagraphRow.id).where(
                    ParagraphRow.dataset_id == self._dataset_id, ParagraphRow.title.in_(chunk))))
        return sorted(ids)
