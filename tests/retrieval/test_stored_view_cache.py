"""A stored index's view keeps the paragraphs it read: a small corpus is read once, whole."""

from __future__ import annotations

from collections.abc import Collection, Iterator

import numpy as np

from hopkit.records import Paragraph
from hopkit.retrieval.bm25 import BM25Retriever
from hopkit.retrieval.corpus_view import read_slices
from hopkit.retrieval.stored_view import MemorySource, ParagraphCache, SourceView

PARAGRAPHS = [Paragraph(i, f"Town {i}", f"Town {i} lies on river {i % 7} near hill {i}.") for i in range(60)]


class CountingSource:
    """A real in-memory source that counts how often it is read."""

    def __init__(self, paragraphs: list[Paragraph]) -> None:
        self.inner = MemorySource(paragraphs)
        self.fingerprint = self.inner.fingerprint
        self.fetched: list[int] = []
        self.whole_reads = 0

    def ids(self) -> np.ndarray:
        return self.inner.ids()

    def batches(self, size: int, after: int | None = None) -> Iterator[list[Paragraph]]:
        self.whole_reads += 1
        return self.inner.batches(size, after)

    def fetch(self, ids: Collection[int]) -> dict[int, Paragraph]:
        self.fetched.extend(ids)
        return self.inner.fetch(ids)

    def ids_with_titles(self, titles: Collection[str]) -> list[int]:
        return self.inner.ids_with_titles(titles)


def test_a_small_corpus_is_read_whole_once_and_answers_as_before() -> None:
    source = CountingSource(PARAGRAPHS)
    retriever = BM25Retriever.build_from(source)
    reference = BM25Retriever.build(PARAGRAPHS)
    source.whole_reads = 0  # the build's read
    for query in ("river 3 hill 10", "town 59", "hill 4 river 4", "river 3 hill 10"):
        assert retriever.retrieve(query, 5) == reference.retrieve(query, 5), query
    assert source.whole_reads == 1 and source.fetched == []


def test_a_large_corpus_fetches_only_what_it_has_not_read() -> None:
    source = CountingSource(PARAGRAPHS)
    view = SourceView(source, cached=10)
    assert [p.id for p in view.paragraphs_at([3, 4, 5])] == [3, 4, 5]
    assert [p.id for p in view.paragraphs_at([5, 6, 3])] == [5, 6, 3]
    assert source.fetched == [3, 4, 5, 6] and source.whole_reads == 0


def test_the_cache_forgets_the_oldest_paragraphs_first() -> None:
    cache = ParagraphCache(3)
    cache.put_many({p.id: p for p in PARAGRAPHS[:3]})
    cache.put_many({PARAGRAPHS[3].id: PARAGRAPHS[3]})
    assert sorted(cache.get_many([0, 1, 2, 3])) == [1, 2, 3]
    assert ParagraphCache(0).get_many([0]) == {}


def test_ranked_candidates_are_read_twice_k_first_then_a_pool_at_a_time() -> None:
    assert read_slices(100, 5) == [(0, 10), (10, 100)]
    assert read_slices(250, 15) == [(0, 30), (30, 130), (130, 230), (230, 250)]
    assert read_slices(3, 5) == [(0, 3)]
    assert read_slices(0, 5) == []
    assert read_slices(200, 100) == [(0, 100), (100, 200)]
