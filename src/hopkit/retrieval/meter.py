"""Counts the time any retriever spends, into the open :mod:`hopkit.usage` block."""

from __future__ import annotations

from typing import Collection

from hopkit.records import ScoredParagraph
from hopkit.retrieval.protocol import Retriever
from hopkit.usage import RETRIEVAL, usage_component


class MeteredRetriever:
    """Wraps a retriever; each call adds one call and its seconds to the current usage block,
    under the component ``"retrieval"`` (:func:`hopkit.usage.usage_component`, as every meter).

    Outside a :func:`hopkit.usage.track_usage` block it only forwards the call.

    Args:
        inner: the retriever doing the work.
    """

    def __init__(self, inner: Retriever) -> None:
        self.inner = inner

    def retrieve(
        self,
        query: str,
        k: int,
        exclude: Collection[int] = frozenset(),
        titles: Collection[str] | None = None,
    ) -> list[ScoredParagraph]:
        """Forward to the wrapped retriever and record the time taken (also when it raises).

        Args:
            query: free text.
            k: how many paragraphs to return at most.
            exclude: paragraph ids never to return.
            titles: if given, only paragraphs whose title is in this collection.

        Returns:
            What the wrapped retriever returns.
        """
        with usage_component(RETRIEVAL):
            return self.inner.retrieve(query, k, exclude, titles)
