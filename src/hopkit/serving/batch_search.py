"""A batch of queries answered with one call of the query encoder and one search of each dense index, whatever
retriever wraps them.

A retriever answers one query at a time (:class:`~hopkit.retrieval.protocol.Retriever`); a dense one
embeds its query first, one model call per query. :func:`batched_encoding` finds every embedder in a
retriever (inside the meter, a rerank, a hybrid) and puts a :class:`PreparedQueries` in its place: before
a batch is searched, the batch's queries are embedded in one call of each model, and each query's
search then takes its vector from there. Then each dense index inside (a retriever with ``prepare_batch``) is
searched once for the whole batch (:class:`~hopkit.retrieval.batch_nearest.BatchNearest`). A batch's answers are
the ones the queries get one by one, up to what a transformer computes differently for a padded batch (the last
bits of a vector).
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from hopkit.records import ScoredParagraph
from hopkit.remote_retrieval.wire import QueryItem
from hopkit.retrieval.embedders import embed_passages, embed_queries
from hopkit.retrieval.protocol import Retriever

# Where a retriever keeps the retrievers it wraps (meter, rerank, hybrid) and its embedder (dense).
_WRAPPED = ("inner", "first", "retrievers")


class PreparedQueries:
    """An embedder whose query vectors for a batch are computed in one call, before the batch is searched.

    Args:
        inner: the retriever's own embedder.
    """

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.model_id: str = inner.model_id
        self._ready: dict[str, np.ndarray] = {}

    def prepare(self, queries: Sequence[str]) -> None:
        """Embed ``queries`` (each once) in one call; the next :meth:`embed_queries` of them is served from here."""
        distinct = [query for query in dict.fromkeys(queries) if query.strip()]
        vectors = embed_queries(self.inner, distinct) if distinct else np.empty((0, 0))
        self._ready = dict(zip(distinct, vectors))

    def forget(self) -> None:
        self._ready = {}

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        if texts and all(text in self._ready for text in texts):
            return np.stack([self._ready[text] for text in texts])
        return embed_queries(self.inner, texts)

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        return embed_passages(self.inner, texts)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return np.asarray(self.inner.embed(texts))


def _embedder_owners(retriever: Any, seen: set[int]) -> list[Any]:
    if id(retriever) in seen:
        return []
    seen.add(id(retriever))
    owners = [retriever] if getattr(retriever, "embedder", None) is not None else []
    for name in _WRAPPED:
        wrapped = getattr(retriever, name, None)
        for part in wrapped if isinstance(wrapped, (list, tuple)) else [wrapped]:
            if part is not None:
                owners.extend(_embedder_owners(part, seen))
    return owners


def batched_encoding(retriever: Retriever) -> list[PreparedQueries]:
    """Put a :class:`PreparedQueries` in place of each embedder inside ``retriever``; returns them (none for
    BM25). Call once, in the process that serves, before the first batch."""
    prepared = []
    for owner in _embedder_owners(retriever, set()):
        if not isinstance(owner.embedder, PreparedQueries):
            owner.embedder = PreparedQueries(owner.embedder)
        prepared.append(owner.embedder)
    return prepared


def batched_search(retriever: Retriever) -> list[Any]:
    """The dense indexes inside ``retriever`` that can search a whole batch at once (``prepare_batch``)."""
    return [owner for owner in _embedder_owners(retriever, set()) if hasattr(owner, "prepare_batch")]


def search_batch(retriever: Retriever, encoders: Sequence[PreparedQueries],
                 items: Sequence[QueryItem]) -> list[list[ScoredParagraph]]:
    """Each query's paragraphs: the queries of the batch embedded at once by each encoder, then each dense index
    searched once for the batch, before each query's own search takes its rows from there."""
    for encoder in encoders:
        encoder.prepare([item.text for item in items])
    indexes = batched_search(retriever)
    try:
        whole = [(item.text, item.k, len(item.exclude)) for item in items if item.titles is None]
        for index in indexes:
            index.prepare_batch(whole)
        return [retriever.retrieve(item.text, item.k, frozenset(item.exclude), item.titles) for item in items]
    finally:
        for index in indexes:
            index.forget_batch()
        for encoder in encoders:
            encoder.forget()
