"""The one interface every retriever offers."""

from __future__ import annotations

from typing import Collection, Protocol, runtime_checkable

from hopkit.records import ScoredParagraph


@runtime_checkable
class Retriever(Protocol):
    """Finds the paragraphs of a corpus that best match a query."""

    def retrieve(
        self,
        query: str,
        k: int,
        exclude: Collection[int] = frozenset(),
        titles: Collection[str] | None = None,
    ) -> list[ScoredParagraph]:
        """Return at most ``k`` paragraphs, best first.

        Args:
            query: free text.
            k: how many paragraphs to return at most.
            exclude: paragraph ids never to return.
            titles: if given, only paragraphs whose title is in this set.
        """
        ...
