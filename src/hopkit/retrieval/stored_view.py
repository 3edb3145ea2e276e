"""A corpus an index searches without holding it: ids in memory, paragraphs read when ranked."""

from __future__ import annotations

from collections.abc import Collection, Iterator
from typing import Protocol

import numpy as np

from hopkit.errors import RetrievalError
from hopkit.records import Paragraph
from hopkit.retrieval.corpus_view import RankedCorpus


class ParagraphSource(Protocol):
    """Where a large corpus lives (:class:`hopkit.store.stored_corpus.StoredCorpus` is one)."""

    fingerprint: str

    def ids(self) -> np.ndarray: ...

    def batches(self, size: int) -> Iterator[list[Paragraph]]: ...

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
