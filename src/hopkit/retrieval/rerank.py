"""A cross-encoder rerank stage over any retriever: the first stage's best ``depth``, read again with the query.

The stage is handed its scorer; the retrieval pipelines load a config's ``rerank:`` model
(:func:`hopkit.pipelines.retrieval.reranker.load_cross_encoder`).
"""

from __future__ import annotations

from typing import Collection, Protocol, Sequence

from hopkit.errors import RetrievalError
from hopkit.records import ScoredParagraph
from hopkit.retrieval.corpus_view import passage_text
from hopkit.retrieval.protocol import Retriever

RERANK_DEPTH = 50


class PairScorer(Protocol):
    """Scores ``(query, text)`` pairs (:class:`hopkit.judges.CrossEncoderRelevance` is one)."""

    def relevance(self, query: str, texts: Sequence[str]) -> list[float]: ...


class RerankedRetriever:
    """``first``'s ``depth`` best for a query, ordered by ``scorer`` reading the query with each passage.

    Ties keep the first stage's order; the scores returned are the scorer's.

    Args:
        first: the first-stage retriever (BM25, dense, hybrid).
        scorer: the cross-encoder.
        depth: how many first-stage results are read again (at least ``k``).

    Raises:
        RetrievalError: if ``depth`` < 1.
    """

    def __init__(self, first: Retriever, scorer: PairScorer, depth: int = RERANK_DEPTH) -> None:
        if depth < 1:
            raise RetrievalError(f"rerank depth must be >= 1, got {depth}")
        self.first = first
        self.scorer = scorer
        self.depth = depth

    def retrieve(self, query: str, k: int, exclude: Collection[int] = frozenset(),
                 titles: Collection[str] | None = None) -> list[ScoredParagraph]:
        if k < 0:
            raise RetrievalError(f"k must be >= 0, got {k}")
        if k == 0:
            return []
        candidates = self.first.retrieve(query, max(self.depth, k), exclude, titles)
        scores = self.scorer.relevance(query, [passage_text(hit.paragraph) for hit in candidates])
        if len(scores) != len(candidates):
            raise RetrievalError(f"the reranker gave {len(scores)} scores for {len(candidates)} passages")
        order = sorted(range(len(candidates)), key=lambda i: (-scores[i], i))
        return [ScoredParagraph(paragraph=candidates[i].paragraph, score=float(scores[i])) for i in order[:k]]
