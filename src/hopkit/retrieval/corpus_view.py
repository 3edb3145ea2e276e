"""What every index-backed retriever shares: id/title lookups, filtering, dedup, top-k.

A retriever computes one score per paragraph (a vector aligned with the corpus
order) and hands it to :meth:`CorpusView.select`, which applies the protocol's
semantics the same way for BM25 and dense retrieval alike:

- ``titles`` restricts the candidates to paragraphs of those titles;
- ``exclude`` ids are never returned;
- paragraphs with identical text (lowercased, whitespace-normalised) are
  returned once, the best-scored one (ties: lowest id);
- best first, ties broken by ascending paragraph id.

Like the IRCoT authors, it first looks at a pool of the 100 best candidates; if
deduplication leaves fewer than ``k`` it widens the pool until ``k`` distinct
paragraphs are found or the candidates run out.
"""

from __future__ import annotations

from itertools import pairwise
from operator import attrgetter
from typing import Collection, Sequence

import numpy as np

from hopkit.errors import RetrievalError
from hopkit.records import Paragraph, ScoredParagraph, corpus_fingerprint

INITIAL_POOL = 100


def in_id_order(paragraphs: Sequence[Paragraph]) -> Sequence[Paragraph]:
    """``paragraphs`` sorted by id (returned as given when already sorted).

    The row order of every saved index, so that an index depends only on the corpus's
    content, as its fingerprint (:func:`hopkit.records.corpus_fingerprint`) does: the
    same paragraphs given in another order load the same index correctly.
    """
    if all(a.id < b.id for a, b in pairwise(paragraphs)):
        return paragraphs
    return sorted(paragraphs, key=attrgetter("id"))


def dedup_key(text: str) -> str:
    """The key under which two paragraph texts count as identical."""
    return " ".join(text.lower().split())


def passage_text(paragraph: Paragraph) -> str:
    """What the indexes see of a paragraph: its title, then its text (as in the IRCoT paper)."""
    return f"{paragraph.title}\n{paragraph.text}"


class RankedCorpus:
    """The protocol's selection over one score per index row, whatever holds the paragraphs.

    Subclasses give the rows' ids (ascending), positions by id and by title, and the
    paragraphs at given positions.
    """

    ids: np.ndarray

    def __len__(self) -> int:
        return int(self.ids.size)

    @property
    def fingerprint(self) -> str:
        """:func:`~hopkit.records.corpus_fingerprint` of the paragraphs."""
        raise NotImplementedError

    def title_positions(self, titles: Collection[str]) -> np.ndarray:
        """Sorted positions of the paragraphs whose title is in ``titles``."""
        raise NotImplementedError

    def positions_of(self, ids: Collection[int]) -> np.ndarray:
        """Positions of those of ``ids`` that are in the corpus."""
        raise NotImplementedError

    def paragraphs_at(self, positions: list[int]) -> list[Paragraph]:
        """The paragraphs at ``positions``, in that order."""
        raise NotImplementedError

    def select(
        self,
        scores: np.ndarray,
        k: int,
        exclude: Collection[int] = frozenset(),
        titles: Collection[str] | None = None,
        *,
        positive_only: bool = False,
    ) -> list[ScoredParagraph]:
        """Apply the protocol's semantics to one score per paragraph.

        Args:
            scores: 1-D, one score per paragraph in corpus order (not modified).
            k: how many paragraphs to return at most.
            exclude: paragraph ids never to return.
            titles: if given, only paragraphs whose title is in this collection.
            positive_only: drop paragraphs scoring 0 or less (BM25: no query term).

        Returns:
            At most ``k`` distinct-text paragraphs, best first.

        Raises:
            RetrievalError: if ``k`` is negative or ``scores`` does not match the corpus.
        """
        if k < 0:
            raise RetrievalError(f"k must be >= 0, got {k}")
        if scores.shape != (len(self),):
            raise RetrievalError(f"got {scores.shape} scores for a corpus of {len(self)} paragraphs")
        if k == 0:
            return []
        # Narrow to the candidates first (BM25 scores are sparse: usually few paragraphs
        # share a query term), then rank only those. positions None means "all, in order".
        positions: np.ndarray | None
        if titles is not None:
            positions = self.title_positions(titles)
            values = scores[positions]
        elif positive_only:
            positions = np.flatnonzero(scores > 0)
            values = scores[positions]
        else:
            positions, values = None, scores
        return self._ranked(positions, values, k, exclude, positive_only)

    def select_among(
        self,
        positions: np.ndarray,
        scores: np.ndarray,
        k: int,
        exclude: Collection[int] = frozenset(),
        titles: Collection[str] | None = None,
    ) -> list[ScoredParagraph]:
        """:meth:`select` over some candidates only (what an approximate index found).

        Args:
            positions: distinct row positions of the candidates.
            scores: their scores, aligned with ``positions``.
            k, exclude, titles: as :meth:`select`.

        Raises:
            RetrievalError: if ``k`` is negative or the arrays differ in shape.
        """
        if k < 0:
            raise RetrievalError(f"k must be >= 0, got {k}")
        positions = np.asarray(positions, dtype=np.int64)
        if scores.shape != positions.shape:
            raise RetrievalError(f"got {scores.shape} scores for {positions.shape} candidates")
        if k == 0:
            return []
        if titles is not None:
            inside = np.isin(positions, self.title_positions(titles))
            positions, scores = positions[inside], scores[inside]
        return self._ranked(positions, scores, k, exclude, False)

    def _ranked(self, positions: np.ndarray | None, values: np.ndarray, k: int, exclude: Collection[int],
                positive_only: bool) -> list[ScoredParagraph]:
        keep = np.isfinite(values)
        if positive_only:
            keep &= values > 0
        if exclude:
            excluded = self.positions_of(exclude)
            if positions is None:
                keep[excluded] = False
            else:
                keep &= ~np.isin(positions, excluded)
        if not keep.all():
            kept = np.flatnonzero(keep)
            positions = kept if positions is None else positions[kept]
            values = values[kept]
        pool = min(values.size, max(INITIAL_POOL, k))
        while True:
            hits = self._dedup(*self._top(values, pool, positions), k)
            if len(hits) >= k or pool >= values.size:
                return hits
            pool = min(values.size, pool * 4)

    def _top(self, values: np.ndarray, pool: int, positions: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
        """Positions and scores of the ``pool`` best values (plus ties), best first, ties by id."""
        if pool <= 0:
            return np.empty(0, dtype=np.int64), np.empty(0)
        if pool < values.size:
            threshold = np.partition(values, values.size - pool)[values.size - pool]
            picked = np.flatnonzero(values >= threshold)
        else:
            picked = np.arange(values.size)
        chosen = picked if positions is None else positions[picked]
        picked_values = values[picked]
        order = np.lexsort((self.ids[chosen], -picked_values))
        return chosen[order], picked_values[order]

    def _dedup(self, positions: np.ndarray, scores: np.ndarray, k: int) -> list[ScoredParagraph]:
        seen: set[str] = set()
        hits: list[ScoredParagraph] = []
        ranked, values = positions.tolist(), scores.tolist()
        for start, end in read_slices(len(ranked), k):
            for paragraph, score in zip(self.paragraphs_at(ranked[start:end]), values[start:end]):
                key = dedup_key(paragraph.text)
                if key in seen:
                    continue
                seen.add(key)
                hits.append(ScoredParagraph(paragraph=paragraph, score=score))
                if len(hits) == k:
                    return hits
        return hits


def read_slices(count: int, k: int) -> list[tuple[int, int]]:
    """The ranked candidates read a slice at a time: first twice ``k`` (enough unless many are
    duplicates), then :data:`INITIAL_POOL` at a time."""
    first = min(count, max(1, 2 * k), INITIAL_POOL)
    bounds = [0, first, *range(first + INITIAL_POOL, count, INITIAL_POOL), count]
    return [(a, b) for a, b in pairwise(dict.fromkeys(bounds)) if a < b]


class CorpusView(RankedCorpus):
    """A corpus held in memory, in index order.

    Args:
        paragraphs: the corpus; position ``i`` is row ``i`` of the index.

    Raises:
        RetrievalError: if two paragraphs share an id.
    """

    def __init__(self, paragraphs: Sequence[Paragraph]) -> None:
        self.paragraphs = tuple(paragraphs)
        self._position: dict[int, int] = {}
        for position, paragraph in enumerate(self.paragraphs):
            if paragraph.id in self._position:
                raise RetrievalError(
                    f"paragraph id {paragraph.id} appears twice in the corpus (positions "
                    f"{self._position[paragraph.id]} and {position}); pool and deduplicate the corpus first")
            self._position[paragraph.id] = position
        self.ids = np.fromiter((p.id for p in self.paragraphs), dtype=np.int64, count=len(self.paragraphs))
        self._by_title: dict[str, np.ndarray] | None = None
        self._fingerprint: str | None = None

    @property
    def fingerprint(self) -> str:
        if self._fingerprint is None:
            self._fingerprint = corpus_fingerprint(self.paragraphs)
        return self._fingerprint

    def title_positions(self, titles: Collection[str]) -> np.ndarray:
        if self._by_title is None:
            groups: dict[str, list[int]] = {}
            for position, paragraph in enumerate(self.paragraphs):
                groups.setdefault(paragraph.title, []).append(position)
            self._by_title = {title: np.asarray(pos, dtype=np.int64) for title, pos in groups.items()}
        parts = [self._by_title[t] for t in set(titles) if t in self._by_title]
        if not parts:
            return np.empty(0, dtype=np.int64)
        return np.sort(np.concatenate(parts))

    def positions_of(self, ids: Collection[int]) -> np.ndarray:
        return np.fromiter((self._position[i] for i in ids if i in self._position), dtype=np.int64)

    def paragraphs_at(self, positions: list[int]) -> list[Paragraph]:
        return [self.paragraphs[position] for position in positions]
