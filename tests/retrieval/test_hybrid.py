"""Reciprocal rank fusion."""

from __future__ import annotations

from typing import Collection

import pytest

from hopkit.errors import RetrievalError
from hopkit.records import Paragraph, ScoredParagraph
from hopkit.retrieval.hybrid import HybridRetriever
from hopkit.retrieval.memory import InMemoryRetriever
from hopkit.retrieval.protocol import Retriever

pytestmark = pytest.mark.unit

P = {i: Paragraph(i, f"T{i}", f"text number {i}") for i in range(1, 6)}
P[6] = Paragraph(6, "T6", "TEXT number  1")  # duplicate text of 1


class Ranked:
    """Returns a fixed ranking (filtered like a real retriever) and records its calls."""

    def __init__(self, ranking: list[int]) -> None:
        self.ranking = ranking
        self.calls: list[tuple[int, frozenset[int], frozenset[str] | None]] = []

    def retrieve(self, query: str, k: int, exclude: Collection[int] = frozenset(),
                 titles: Collection[str] | None = None) -> list[ScoredParagraph]:
        self.calls.append((k, frozenset(exclude), None if titles is None else frozenset(titles)))
        ids = [i for i in self.ranking if i not in exclude and (titles is None or P[i].title in titles)]
        return [ScoredParagraph(P[i], 1.0 / rank) for rank, i in enumerate(ids[:k], start=1)]


def test_fused_scores_and_order() -> None:
    hybrid = HybridRetriever([Ranked([1, 2, 3]), Ranked([3, 2, 4])], rrf_k=60)
    assert isinstance(hybrid, Retriever)
    hits = hybrid.retrieve("q", k=10)
    # 3: 1/63 + 1/61 = 0.032266; 2: 1/62 + 1/62 = 0.032258; 1: 1/61; 4: 1/63
    assert [h.id for h in hits] == [3, 2, 1, 4]
    assert hits[0].score == pytest.approx(1 / 63 + 1 / 61)
    assert hits[1].score == pytest.approx(2 / 62)
    assert hits[3].score == pytest.approx(1 / 63)


def test_ties_by_id_and_k() -> None:
    hybrid = HybridRetriever([Ranked([4, 5]), Ranked([5, 4])], rrf_k=0)
    assert [h.id for h in hybrid.retrieve("q", k=10)] == [4, 5]
    assert [h.id for h in hybrid.retrieve("q", k=1)] == [4]
    assert hybrid.retrieve("q", k=0) == []


def test_passes_filters_and_depth_down() -> None:
    first, second = Ranked([1, 2, 3]), Ranked([2, 3])
    hybrid = HybridRetriever([first, second], depth=7)
    hits = hybrid.retrieve("q", k=3, exclude={2}, titles={"T1", "T2", "T3"})
    assert [h.id for h in hits] == [3, 1]
    assert first.calls == [(7, frozenset({2}), frozenset({"T1", "T2", "T3"}))]
    hybrid.retrieve("q", k=20)
    assert first.calls[-1][0] == 20


def test_duplicate_texts_fused_once() -> None:
    hits = HybridRetriever([Ranked([1, 2]), Ranked([6, 2])]).retrieve("q", k=10)
    assert [h.id for h in hits] == [2, 1]


def test_with_real_members() -> None:
    paragraphs = list(P.values())[:5]
    hybrid = HybridRetriever([InMemoryRetriever(paragraphs), InMemoryRetriever(paragraphs)])
    assert [h.id for h in hybrid.retrieve("number 3", k=2)] == [3, 1]


def test_rejects_bad_settings() -> None:
    with pytest.raises(RetrievalError, match="at least one"):
        HybridRetriever([])
    with pytest.raises(RetrievalError, match="depth"):
        HybridRetriever([Ranked([1])], depth=0)
    with pytest.raises(RetrievalError, match="k must be"):
        HybridRetriever([Ranked([1])]).retrieve("q", k=-1)
