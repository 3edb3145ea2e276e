"""Write one dataset (its pooled corpus, its questions, any further paragraphs) in batches."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session
from tqdm import tqdm

from hopkit.data.corpus import paragraph_key
from hopkit.errors import StoreError
from hopkit.records import ContextParagraph, Corpus, corpus_fingerprint
from hopkit.store import convert
from hopkit.store.models import DatasetCorpusRow, DatasetRow, NamedCorpusRow, ParagraphRow, QueryRow
from hopkit.store.storable import storable_text
from hopkit.store.stored_corpus import finish_command, stored_fingerprint

INSERT_BATCH = 5_000


def write_corpus(session: Session, corpus: Corpus, more: Iterable[ContextParagraph]) -> tuple[DatasetRow, int]:
    """Insert the dataset row, its paragraphs and questions, then ``more`` paragraphs.

    ``more`` is read once, one batch in memory at a time; when it adds paragraphs, the
    fingerprint is taken from what the store then holds, read back in id order.

    Returns:
        The dataset row (flushed) and how many paragraphs it holds.
    """
    dataset = DatasetRow(name=corpus.name, fingerprint=corpus_fingerprint(corpus.paragraphs))
    session.add(dataset)
    session.flush()
    _insert_batches(session, ParagraphRow, (convert.paragraph_row(dataset.id, p) for p in corpus.paragraphs))
    _insert_batches(session, QueryRow, (convert.query_row(dataset.id, i, q) for i, q in enumerate(corpus.queries)))
    first_id = max((p.id for p in corpus.paragraphs), default=-1) + 1
    own = {paragraph_key(p.title, p.text) for p in corpus.paragraphs}
    with tqdm(desc="storing the corpus", unit=" paragraphs", disable=None, mininterval=2) as progress:
        added = _insert_batches(session, ParagraphRow, _numbered(dataset.id, first_id, own, more), progress)
    if added:
        dataset.fingerprint = stored_fingerprint(session, dataset.id)
    return dataset, len(corpus.paragraphs) + added


def complete_corpus(session: Session, name: str) -> NamedCorpusRow:
    """The named corpus ``name``, which must be complete for questions to be stored on it.

    Raises:
        StoreError: no such corpus (naming those there are), or it is not complete.
    """
    row = session.scalars(select(NamedCorpusRow).where(NamedCorpusRow.name == name)).one_or_none()
    if row is None:
        known = ", ".join(session.scalars(select(NamedCorpusRow.name).order_by(NamedCorpusRow.name))) or "(none)"
        raise StoreError(f"unknown corpus {name!r}; known corpora: {known}. Store it first with "
                         "`hopkit corpus add NAME PATH`")
    if not row.complete:
        raise StoreError(f"corpus {name!r} is incomplete ({row.passages:,} passages stored so far, its ingest was "
                         f"stopped): nothing uses it so; {finish_command(name, row.source)}")
    return row


def write_questions_on(session: Session, corpus: Corpus, named: NamedCorpusRow) -> tuple[DatasetRow, int]:
    """Insert the dataset row (its fingerprint the named corpus's), the link to the named corpus and the
    questions; no paragraph is copied.

    Returns:
        The dataset row (flushed) and how many passages it retrieves from.
    """
    dataset = DatasetRow(name=corpus.name, fingerprint=named.fingerprint)
    session.add(dataset)
    session.flush()
    session.add(DatasetCorpusRow(dataset_id=dataset.id, corpus_id=named.id))
    _insert_batches(session, QueryRow, (convert.query_row(dataset.id, i, q) for i, q in enumerate(corpus.queries)))
    session.flush()
    return dataset, named.passages


def _numbered(dataset_id: int, first_id: int, skip: set[tuple[str, str]],
              paragraphs: Iterable[ContextParagraph]) -> Iterator[dict[str, Any]]:
    """Insert parameters for each paragraph under the next id, except those in ``skip``.

    Only the corpus's own paragraphs are checked for repeats: a corpus file is taken to
    hold each of its paragraphs once (keeping all their keys would grow with the file).
    """
    next_id = first_id
    for paragraph in paragraphs:
        title, text = storable_text(paragraph.title.strip()), storable_text(paragraph.text.strip())
        if skip and paragraph_key(title, text) in skip:
            continue
        yield {"dataset_id": dataset_id, "id": next_id, "title": title, "text": text}
        next_id += 1


def _insert_batches(session: Session, model: type[Any], rows: Iterable[dict[str, Any]],
                    progress: tqdm | None = None) -> int:
    table = model.__table__
    batch: list[dict[str, Any]] = []
    written = 0
    for row in rows:
        batch.append(row)
        if len(batch) >= INSERT_BATCH:
            written += _insert(session, table, batch, progress)
            batch = []
    if batch:
        written += _insert(session, table, batch, progress)
    return written


def _insert(session: Session, table: Any, batch: list[dict[str, Any]], progress: tqdm | None) -> int:
    session.execute(table.insert(), batch)
    if progress is not None:
        progress.update(len(batch))
    return len(batch)
