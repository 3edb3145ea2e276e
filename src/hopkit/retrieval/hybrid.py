"""Hybrid retrieval by reciprocal rank fusion (Cormack et al., 2009)."""

from __future__ import annotations

from typing import Collection, Sequence

from hopkit.errors import RetrievalError
from hopkit.records import Paragraph, ScoredParagraph
from hopkit.retrieval.corpus_view import dedup_key
from hopkit.retrieval.protocol import Retriever


class HybridRetriever:
    """Fuses several retrievers: a paragraph scores ``sum(1 / (rrf_k + rank))`` over their lists.

    Each retriever is asked for its ``depth`` best (at least ``k``) with the same
    ``exclude`` and ``titles``; ranks start at 1. Ties go to the lower paragraph id,
    and identical texts (lowercased, whitespace-normalised) are returned once.

    Args:
        retrievers: at least one retriever over the same corpus.
        rrf_k: the fusion constant (60 in the original paper).
        depth: how many results to take from each retriever.

    Raises:
        RetrievalError: for no retrievers, ``rrf_k`` < 0 or ``depth`` < 1.
    """

    def __init__(self, retrievers: Sequence[Retriever], *, rrf_k: int = 60, depth: int = 100) -> None:
        if not retrievers:
            raise RetrievalError("HybridRetriever needs at least one retriever")
        if rrf_k < 0 or depth < 1:
            raise RetrievalError(f"HybridRetriever needs rrf_k >= 0 and depth >= 1, got rrf_k={rrf_k}, depth={depth}")
        self.retrievers = tuple(retrievers)
        self.rrf_k = rrf_k
        self.depth = depth

    def retrieve(
        self,
        query: str,
        k: int,
        exclude: Collection[int] = frozenset(),
        titles: Collection[str] | None = None,
    ) -> list[ScoredParagraph]:
        """Return at most ``k`` paragraphs by fused rank, best first.

        Args:
            query: free text.
            k: how many paragraphs to return at most.
            exclude: paragraph ids never to return.
            titles: if given, only paragraphs whose title is in this collection.

        Returns:
            Paragraphs with their fused score.

        Raises:
            RetrievalError: if ``k`` is negative.
        """
        if k < 0:
            raise RetrievalError(f"k must be >= 0, got {k}")
        if k == 0:
            return []
        fused: dict[int, float] = {}
        paragraphs: dict[int, Paragraph] = {}
        for retriever in self.retrievers:
            for rank, hit in enumerate(retriever.retrieve(query, max(self.depth, k), exclude, titles), start=1):
                fused[hit.id] = fused.get(hit.id, 0.0) + 1.0 / (self.rrf_k + rank)
                paragraphs[hit.id] = hit.paragraph
        seen: set[str] = set()
        hits: list[ScoredParagraph] = []
        for paragraph_id in sorted(fused, key=lambda i: (-fused[i], i)):
            key = dedup_key(paragraphs[paragraph_id].text)
            if key in seen:
                continue
            seen.add(key)
            hits.append(ScoredParagraph(paragraph=paragraphs[paragraph_id], score=fused[paragraph_id]))
            if len(hits) == k:
                break
        return hits
