"""Retrievers: BM25 (bm25s), dense (embedding model), hybrid (reciprocal rank fusion).

The heavy backends live in their own modules (``bm25``, ``dense``, ``hybrid``,
``index_store``); this package root only exports the protocol and the light parts.
"""

from hopkit.retrieval.memory import InMemoryRetriever
from hopkit.retrieval.meter import MeteredRetriever
from hopkit.retrieval.protocol import Retriever

__all__ = ["InMemoryRetriever", "MeteredRetriever", "Retriever"]
