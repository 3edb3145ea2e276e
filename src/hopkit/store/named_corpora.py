"""Corpora stored once on their own (``hopkit corpus add``), for any number of datasets to retrieve from.

A corpus is written in batches, each in its own transaction with the count of passages stored, so a
process killed at any point loses at most the batch in flight: the same command reads the count, passes
over that many passages of the source file and goes on. Each batch is written only where the count is
the one its writer read (the passages' position is their primary key too), so no passage is stored
twice, even by two processes storing the same corpus at once. ``complete`` is set, with the fingerprint,
only once the whole file is stored; :meth:`NamedCorpora.get` refuses a corpus that is not complete, so a
half-stored corpus is never used by a run.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import delete, func, select, update
from sqlalchemy.orm import Session

from hopkit.data.corpus_source import SourcePassage
from hopkit.errors import StoreError
from hopkit.records import FingerprintHasher, Paragraph
from hopkit.store.models import CorpusPassageRow, DatasetCorpusRow, DatasetRow, NamedCorpusRow, utc_now
from hopkit.store.storable import storable_text
from hopkit.store.store_base import StoreBase, _known
from hopkit.store.stored_corpus import READ_BATCH, finish_command, in_chunks
from hopkit.terminal import name_clash, printable

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class NamedCorpusInfo:
    """A named corpus as stored: its source file, how many passages are stored, whether all are, and
    (once complete) its fingerprint."""

    corpus_id: int
    name: str
    source: str
    format: str
    source_bytes: int
    passages: int
    complete: bool
    fingerprint: str | None
    created_at: datetime
    completed_at: datetime | None


@dataclass(frozen=True)
class CorpusPassage:
    """A passage of a named corpus: its position in the source file (``id``), the file's own id for it,
    its title and text."""

    id: int
    source_id: str
    title: str
    text: str


def _info(row: NamedCorpusRow) -> NamedCorpusInfo:
    return NamedCorpusInfo(row.id, row.name, row.source, row.format, row.source_bytes, row.passages,
                           bool(row.complete), row.fingerprint, row.created_at, row.completed_at)


def resume_hint(info: NamedCorpusInfo) -> str:
    """The command that finishes storing an incomplete corpus."""
    return finish_command(info.name, info.source)


class NamedCorpora(StoreBase):
    """The named corpora of a store (:attr:`hopkit.store.store.Store.corpora`)."""

    def list(self) -> list[NamedCorpusInfo]:
        """Every named corpus, complete or not, by name."""
        with self._transaction("listing the corpora") as session:
            return [_info(row) for row in session.scalars(select(NamedCorpusRow).order_by(NamedCorpusRow.name))]

    def find(self, name: str) -> NamedCorpusInfo | None:
        """The corpus ``name``, complete or not, or None when there is none."""
        with self._transaction(f"reading corpus {name!r}") as session:
            row = session.scalars(select(NamedCorpusRow).where(NamedCorpusRow.name == name)).one_or_none()
            return None if row is None else _info(row)

    def get(self, name: str) -> NamedCorpusInfo:
        """The complete corpus ``name``: what a run may retrieve from.

        Raises:
            StoreError: no such corpus (naming those there are), or it is not complete (saying how many
                passages are stored and the command that finishes it).
        """
        info = self.find(name)
        if info is None:
            known = [corpus.name for corpus in self.list()]
            raise StoreError(f"unknown corpus {name!r}; known corpora: {_known(known)}. "
                             "Store it first with `hopkit corpus add NAME PATH`")
        if not info.complete:
            raise StoreError(f"corpus {name!r} is incomplete ({info.passages:,} passages stored so far, its "
                             f"ingest was stopped): a run never uses it so; {resume_hint(info)}")
        return info

    def begin(self, name: str, *, source: str, format: str, source_bytes: int,
              replace: bool = False) -> NamedCorpusInfo:
        """The corpus ``name`` to store from ``source``: a new row, or the one an earlier ingest of the same
        file left (stopped part way: to resume; complete: nothing to do), or (``replace``) a new one in
        place of what is stored.

        Raises:
            StoreError: the corpus is stored from another file and ``replace`` is false; its
                name is another corpus's written with other code points.
        """
        with self._transaction(f"starting corpus {name!r}") as session:
            row = session.scalars(select(NamedCorpusRow).where(NamedCorpusRow.name == name)).one_or_none()
            if row is not None and replace:
                self._drop(session, row)
                row = None
            if row is None:
                clash = name_clash("corpus", name, session.scalars(select(NamedCorpusRow.name)))
                if clash:
                    raise StoreError(clash)
                row = NamedCorpusRow(name=name, source=source, format=format, source_bytes=source_bytes,
                                     passages=0, complete=False)
                session.add(row)
                session.flush()
                return _info(row)
            info = _info(row)
            if (row.source, row.format, row.source_bytes) != (source, format, source_bytes):
                state = "stored" if row.complete else f"being stored ({row.passages:,} passages so far)"
                raise StoreError(
                    f"corpus {name!r} is {state} from {printable(row.source)} ({row.format}, {row.source_bytes:,} "
                    f"bytes), not from {printable(source)} ({format}, {source_bytes:,} bytes); give that file to "
                    "resume it, or pass --replace to store this one in its place")
            return info  # complete (nothing to do), or stopped part way (to resume)

    def append(self, corpus_id: int, first: int, passages: Sequence[SourcePassage]) -> int:
        """Store ``passages`` at positions ``first``, ``first + 1``, ... in one transaction with the new
        count, only where ``first`` is the count stored now.

        Returns:
            The count of passages stored after this batch.

        Raises:
            StoreError: the count stored is not ``first`` (another process stores this corpus too), or the
                write fails; nothing of the batch is stored then.
        """
        rows = [{"corpus_id": corpus_id, "id": first + offset, "source_id": storable_text(p.source_id),
                 "title": storable_text(p.title), "text": storable_text(p.text)}
                for offset, p in enumerate(passages)]
        with self._transaction("storing passages") as session:
            moved = session.execute(
                update(NamedCorpusRow)
                .where(NamedCorpusRow.id == corpus_id, NamedCorpusRow.passages == first,
                       NamedCorpusRow.complete.is_(False))
                .values(passages=first + len(rows))).rowcount
            if moved != 1:
                raise StoreError(f"corpus (id {corpus_id}) no longer holds {first:,} passages: another process "
                                 "is storing it too, or it was replaced or deleted; let one command store it")
            if rows:
                session.execute(CorpusPassageRow.__table__.insert(), rows)
        return first + len(rows)

    def finish(self, corpus_id: int, on_batch: Callable[[int], None] | None = None) -> NamedCorpusInfo:
        """Mark the corpus complete, with the fingerprint of what is stored (read back in position order).

        Args:
            corpus_id: the corpus.
            on_batch: called with the size of each batch read (a progress bar's update).

        Raises:
            StoreError: the corpus is gone, or the write fails.
        """
        hasher = FingerprintHasher()
        for batch in self._batches(corpus_id):
            hasher.update([Paragraph(p.id, p.title, p.text) for p in batch])
            if on_batch is not None:
                on_batch(len(batch))
        with self._transaction("completing the corpus") as session:
            row = session.get(NamedCorpusRow, corpus_id)
            if row is None:
                raise StoreError(f"corpus (id {corpus_id}) was deleted while it was being stored")
            row.fingerprint = hasher.hexdigest()
            row.complete = True
            row.completed_at = utc_now()
            session.flush()
            info = _info(row)
        logger.info("stored corpus %r: %d passages, complete", info.name, info.passages)
        return info

    def delete(self, name: str) -> bool:
        """Delete the corpus ``name`` and its passages; whether there was one."""
        with self._transaction(f"deleting corpus {name!r}") as session:
            row = session.scalars(select(NamedCorpusRow).where(NamedCorpusRow.name == name)).one_or_none()
            if row is None:
                return False
            self._drop(session, row)
            return True

    @staticmethod
    def _drop(session: Session, row: NamedCorpusRow) -> None:
        users = list(session.scalars(select(DatasetRow.name).join(
            DatasetCorpusRow, DatasetCorpusRow.dataset_id == DatasetRow.id)
            .where(DatasetCorpusRow.corpus_id == row.id).order_by(DatasetRow.name)))
        if users:
            raise StoreError(f"corpus {row.name!r} is the corpus of dataset(s) {_known(users)}, whose runs read its "
                             "passages by position: it is kept; ingest them on another corpus (or delete them) first")
        session.execute(delete(CorpusPassageRow).where(CorpusPassageRow.corpus_id == row.id))
        session.delete(row)
        session.flush()

    def count(self, corpus_id: int) -> int:
        """How many passages of the corpus the passage table holds (what :attr:`passages` says, counted)."""
        with self._transaction("counting passages") as session:
            return int(session.scalar(select(func.count()).select_from(CorpusPassageRow)
                                      .where(CorpusPassageRow.corpus_id == corpus_id)) or 0)

    def passages(self, name: str, size: int = READ_BATCH) -> Iterator[list[CorpusPassage]]:
        """The passages of the complete corpus ``name`` in position order, ``size`` at a time.

        Raises:
            StoreError: no such corpus, or it is not complete.
        """
        yield from self._batches(self.get(name).corpus_id, size)

    def by_source_ids(self, name: str, source_ids: Sequence[str]) -> dict[str, CorpusPassage]:
        """The passages of the complete corpus ``name`` with these source ids, by source id (an unknown
        id is absent): where a published retrieval result's ids lead.

        Raises:
            StoreError: no such corpus, or it is not complete.
        """
        corpus_id = self.get(name).corpus_id
        found: dict[str, CorpusPassage] = {}
        with self._transaction(f"reading passages of corpus {name!r}") as session:
            for chunk in in_chunks(list(dict.fromkeys(source_ids))):
                rows = session.execute(select(CorpusPassageRow.id, CorpusPassageRow.source_id,
                                              CorpusPassageRow.title, CorpusPassageRow.text)
                                       .where(CorpusPassageRow.corpus_id == corpus_id,
                                              CorpusPassageRow.source_id.in_(chunk)))
                found.update((sid, CorpusPassage(pid, sid, title, text)) for pid, sid, title, text in rows)
        return found

    def datasets_on(self, name: str) -> list[str]:
        """The datasets that retrieve from the complete corpus ``name``, by name.

        Raises:
            StoreError: no such corpus, or it is not complete.
        """
        corpus_id = self.get(name).corpus_id
        with self._transaction(f"listing the datasets of corpus {name!r}") as session:
            return list(session.scalars(select(DatasetRow.name).join(
                DatasetCorpusRow, DatasetCorpusRow.dataset_id == DatasetRow.id)
                .where(DatasetCorpusRow.corpus_id == corpus_id).order_by(DatasetRow.name)))

    def source_ids(self, name: str, positions: Sequence[int]) -> dict[int, str]:
        """The source file's ids of the passages of the complete corpus ``name`` at these positions, by position
        (an unknown position is absent): what a served retriever names them by.

        Raises:
            StoreError: no such corpus, or it is not complete.
        """
        corpus_id = self.get(name).corpus_id
        found: dict[int, str] = {}
        with self._transaction(f"reading passage ids of corpus {name!r}") as session:
            for chunk in in_chunks(sorted(set(positions))):
                rows = session.execute(select(CorpusPassageRow.id, CorpusPassageRow.source_id)
                                       .where(CorpusPassageRow.corpus_id == corpus_id, CorpusPassageRow.id.in_(chunk)))
                found.update((int(position), str(source_id)) for position, source_id in rows)
        return found

    def _batches(self, corpus_id: int, size: int = READ_BATCH) -> Iterator[list[CorpusPassage]]:
        """Keyset paging by position, one short read transaction a batch."""
        after = -1
        while True:
            with self._transaction("reading passages") as session:
                batch = [CorpusPassage(pid, sid, title, text) for pid, sid, title, text in session.execute(
                    select(CorpusPassageRow.id, CorpusPassageRow.source_id, CorpusPassageRow.title,
                           CorpusPassageRow.text)
                    .where(CorpusPassageRow.corpus_id == corpus_id, CorpusPassageRow.id > after)
                    .order_by(CorpusPassageRow.id).limit(size))]
            if not batch:
                return
            yield batch
            after = batch[-1].id
