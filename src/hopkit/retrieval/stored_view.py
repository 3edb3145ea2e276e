"""Where an index's paragraphs live, and the view an index searches them through.

Every index is built from a :class:`ParagraphSource`, read in id order a batch at a time: the
store's corpus (:class:`hopkit.store.stored_corpus.StoredCorpus`) or paragraphs already in
memory (:class:`MemorySource`). A :class:`SourceView` maps the index's rows to ids and reads
the paragraphs a query ranks.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Sequence
from typing import Protocol

import numpy as np

from hopkit.errors import RetrievalError
from hopkit.records import Paragraph
from hopkit.retrieval.corpus_view import CorpusView, RankedCorpus, in_id_order


class ParagraphSource(Protocol):
    """Where a large corpus lives (:class:`hopkit.store.stored_corpus.StoredCorpus` is one)."""

    fingerprint: str

    def ids(self) -> np.ndarray: ...

    def batches(self, size: int, after: int | None = None) -> Iterator[list[Paragraph]]: ...

    def fetch(self, ids: Collection[int]) -> dict[int, Paragraph]: ...

    def ids_with_titles(self, titles: Collection[str]) -> list[int]: ...


class SourceView(RankedCorpus):
    """The rows of an index built over ``source`` in id order; 8 bytes a paragraph in memory.

    Args:
        source: the corpus's home, asked for the paragraphs a query ranks (about a hundred).
    """

    def __init__(self, source: ParagraphSource) -> None:
        self.source = source
        self.ids = source.ids()

    @property
    def fingerprint(self) -> str:
        return self.source.fingerprint

    def title_positions(self, titles: Collection[str]) -> np.ndarray:
        return self.positions_of(self.source.ids_with_titles(titles))

    def positions_of(self, ids: Collection[int]) -> np.ndarray:
        wanted = np.fromiter(ids, dtype=np.int64)
        positions = np.searchsorted(self.ids, wanted)
        inside = positions < self.ids.size
        found = positions[inside][self.ids[positions[inside]] == wanted[inside]]
        return np.sort(found)

    def paragraphs_at(self, positions: list[int]) -> list[Paragraph]:
        wanted = self.ids[positions].tolist()
        found = self.source.fetch(wanted)
        missing = [pid for pid in wanted if pid not in found]
        if missing:
            raise RetrievalError(f"paragraphs {missing[:10]} are in the index but no longer in the store; the corpus "
                                 "changed since the index was built: run again to rebuild it")
        return [found[pid] for pid in wanted]


class MemorySource:
    """Paragraphs held in memory, offered as a :class:`ParagraphSource`.

    Args:
        paragraphs: the corpus, unique ids, in any order.
        fingerprint: :func:`hopkit.records.corpus_fingerprint` of ``paragraphs`` when the caller
            has it (the store keeps it); computed otherwise.

    Raises:
        RetrievalError: if two paragraphs share an id.
    """

    def __init__(self, paragraphs: Sequence[Paragraph], fingerprint: str | None = None) -> None:
        self._view = CorpusView(in_id_order(paragraphs))
        self.fingerprint = fingerprint if fingerprint is not None else self._view.fingerprint

    def ids(self) -> np.ndarray:
        return self._view.ids

    def batches(self, size: int, after: int | None = None) -> Iterator[list[Paragraph]]:
        start = 0 if after is None else int(np.searchsorted(self._view.ids, after, side="right"))
        paragraphs = self._view.paragraphs
        for offset in range(start, len(paragraphs), size):
            yield list(paragraphs[offset:offset + size])

    def fetch(self, ids: Collection[int]) -> dict[int, Paragraph]:
        positions = self._view.positions_of(ids)
        return {p.id: p for p in self._view.paragraphs_at(positions.tolist())}

    def ids_with_titles(self, titles: Collection[str]) -> list[int]:
        return self._view.ids[self._view.title_positions(titles)].tolist()
