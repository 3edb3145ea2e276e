"""A dependency-free retriever for unit tests: scores by shared words."""

from __future__ import annotations

import re
from typing import Collection, Sequence

from hopkit.errors import RetrievalError
from hopkit.records import Paragraph, ScoredParagraph

_WORD = re.compile(r"\w+")


def _words(text: str) -> frozenset[str]:
    return frozenset(_WORD.findall(text.lower()))


class InMemoryRetriever:
    """Scores each paragraph by how many distinct query words its title and text share.

    Words are lowercased ``\\w+`` runs; there is no stemming and no stopword list.
    Paragraphs sharing no word with the query are never returned; ties are broken
    by ascending paragraph id, so results are deterministic.

    Args:
        paragraphs: the corpus (ids must be unique).

    Raises:
        RetrievalError: if two paragraphs share an id.
    """

    def __init__(self, paragraphs: Sequence[Paragraph]) -> None:
        seen: set[int] = set()
        for paragraph in paragraphs:
            if paragraph.id in seen:
                raise RetrievalError(
                    f"InMemoryRetriever: paragraph id {paragraph.id} appears twice; ids must be unique")
            seen.add(paragraph.id)
        self.paragraphs = tuple(paragraphs)
        self._words = tuple(_words(f"{p.title} {p.text}") for p in self.paragraphs)

    def retrieve(
        self,
        query: str,
        k: int,
        exclude: Collection[int] = frozenset(),
        titles: Collection[str] | None = None,
    ) -> list[ScoredParagraph]:
        """Return at most ``k`` paragraphs sharing words with ``query``, best first.

        Args:
            query: free text.
            k: how many paragraphs to return at most (0 gives ``[]``).
            exclude: paragraph ids never to return.
            titles: if given, only paragraphs whose title is in this collection.

        Returns:
            Scored paragraphs, highest score first, ties by ascending id.

        Raises:
            RetrievalError: if ``k`` is negative.
        """
        if k < 0:
            raise RetrievalError(f"k must be >= 0, got {k}")
        query_words = _words(query)
        if k == 0 or not query_words:
            return []
        excluded = frozenset(exclude)
        allowed = None if titles is None else frozenset(titles)
        hits: list[ScoredParagraph] = []
        for paragraph, words in zip(self.paragraphs, self._words):
            if paragraph.id in excluded or (allowed is not None and paragraph.title not in allowed):
                continue
            score = len(query_words & words)
            if score > 0:
                hits.append(ScoredParagraph(paragraph=paragraph, score=float(score)))
        hits.sort(key=lambda hit: (-hit.score, hit.paragraph.id))
        return hits[:k]
