"""Cosine similarity of text embeddings, as a similarity judge and as a cheap relevance judge.

The embedder is any of :mod:`hopkit.retrieval.embedders` by its model id. The default,
WordLlama's static token embeddings (installed with hopkit, weights included), embeds
thousands of texts a second on a CPU, so a method can score every candidate without a
model call: SearChain's duplicate-query check (the paper compares query embeddings), or
a first-pass reranker where an LLM judge per passage would cost too much. Scores are
cosines in [-1, 1]; a threshold is in that scale.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from hopkit.judges.protocol import RELEVANCE, SIMILARITY
from hopkit.judges.timing import timed
from hopkit.retrieval.embedders import DEFAULT_EMBEDDER, Embedder, load_embedder


def cosines(embedder: Embedder, text: str, others: Sequence[str]) -> list[float]:
    """The cosine of ``text``'s embedding with each other text's (0.0 against an empty vector)."""
    if not others:
        return []
    vectors = embedder.embed([text, *others]).astype(np.float64)
    norms = np.linalg.norm(vectors, axis=1)
    norms[norms == 0] = np.inf  # an empty text's vector is all zeros: cosine 0 with anything
    unit = vectors / norms[:, None]
    return [float(value) for value in unit[1:] @ unit[0]]


class EmbeddingSimilarity:
    """Similarity as the cosine of two texts' embeddings.

    Args:
        embedder: the embedder's model id (``"wordllama:l2_supercat:256"``,
            ``"sentence-transformers:<model>"``...).
    """

    def __init__(self, embedder: str = DEFAULT_EMBEDDER) -> None:
        self.embedder = load_embedder(embedder)
        self.judge_id = f"embedding:{embedder}"

    @timed(SIMILARITY)
    def similarity(self, text: str, others: Sequence[str]) -> list[float]:
        """The cosine of ``text`` with each other text."""
        return cosines(self.embedder, text, others)


class EmbeddingRelevance:
    """Relevance as the cosine of the query's embedding with each text's.

    Args:
        embedder: the embedder's model id, as for :class:`EmbeddingSimilarity`.
    """

    def __init__(self, embedder: str = DEFAULT_EMBEDDER) -> None:
        self.embedder = load_embedder(embedder)
        self.judge_id = f"embedding:{embedder}"

    @timed(RELEVANCE)
    def relevance(self, query: str, texts: Sequence[str]) -> list[float]:
        """The cosine of ``query`` with each text."""
        return cosines(self.embedder, query, texts)
