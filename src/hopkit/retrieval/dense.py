"""Dense retrieval: cosine similarity between embedded query and paragraphs (title + text)."""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Collection, Sequence

import numpy as np

from hopkit.errors import RetrievalError
from hopkit.records import Paragraph, ScoredParagraph
from hopkit.retrieval.corpus_view import CorpusView, in_id_order, passage_text
from hopkit.retrieval.embedders import (
    Embedder,
    HashingEmbedder,
    SentenceTransformerEmbedder,
    WordLlamaEmbedder,
    embed_passages,
    embed_queries,
    load_embedder,
)
from hopkit.retrieval.index_meta import check_corpus, read_meta, write_meta

__all__ = ["DenseRetriever", "Embedder", "HashingEmbedder", "SentenceTransformerEmbedder", "WordLlamaEmbedder", "load_embedder"]

logger = logging.getLogger(__name__)

MATRIX_FILE = "embeddings.npy"


def _normalise(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (all-zero rows stay zero), as float32."""
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return np.divide(vectors, norms, out=np.zeros_like(vectors), where=norms > 0)


def _embed(embedder: Embedder, texts: Sequence[str], *, queries: bool = False) -> np.ndarray:
    vectors = embed_queries(embedder, texts) if queries else embed_passages(embedder, texts)
    if vectors.ndim != 2 or vectors.shape[0] != len(texts):
        raise RetrievalError(
            f"embedder {embedder.model_id!r} returned shape {vectors.shape} for {len(texts)} texts; "
            "expected (len(texts), dim)")
    return vectors


class DenseRetriever:
    """Cosine-similarity retrieval; build with :meth:`build` or :meth:`load`, not the constructor.

    Args:
        matrix: ``(n, dim)`` unit-length float32 rows, one per paragraph of ``corpus``.
        corpus: the paragraphs, in row order (id order when built or loaded here).
        embedder: the model that embedded them; it embeds the queries too.

    Raises:
        RetrievalError: if ``matrix`` is not 2-D or its rows do not match the corpus.
    """

    def __init__(self, matrix: np.ndarray, corpus: CorpusView, embedder: Embedder) -> None:
        if matrix.ndim != 2 or matrix.shape[0] != len(corpus):
            raise RetrievalError(f"embedding matrix of shape {matrix.shape} for a corpus of {len(corpus)} paragraphs")
        self.matrix = matrix
        self.corpus = corpus
        self.embedder = embedder

    @classmethod
    def build(cls, paragraphs: Sequence[Paragraph], embedder: Embedder, *, batch_size: int = 1024) -> DenseRetriever:
        """Embed every paragraph's title and text.

        Args:
            paragraphs: the corpus, with unique ids, in any order (the index keeps them in
                id order).
            embedder: the embedding model.
            batch_size: paragraphs handed to the embedder at once.

        Returns:
            A ready retriever.

        Raises:
            RetrievalError: for an empty corpus, duplicate ids, a bad batch size or
                an embedder returning the wrong shape.
        """
        if batch_size < 1:
            raise RetrievalError(f"batch_size must be >= 1, got {batch_size}")
        if not paragraphs:
            raise RetrievalError("cannot build a dense index over an empty corpus")
        corpus = CorpusView(in_id_order(paragraphs))
        start = time.perf_counter()
        parts = []
        for offset in range(0, len(corpus), batch_size):
            batch = [passage_text(p) for p in corpus.paragraphs[offset: offset + batch_size]]
            parts.append(_normalise(_embed(embedder, batch)))
            logger.info("embedded %d/%d paragraphs", offset + len(batch), len(corpus))
        matrix = np.concatenate(parts)
        logger.info("built the dense index (%s, dim %d) in %.1fs", embedder.model_id, matrix.shape[1],
                    time.perf_counter() - start)
        return cls(matrix, corpus, embedder)

    def save(self, directory: Path) -> None:
        """Write the embeddings (not the paragraphs) to ``directory``, created if needed."""
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        np.save(directory / MATRIX_FILE, self.matrix, allow_pickle=False)
        write_meta(directory, "dense", self.corpus, model_id=self.embedder.model_id,
                   dim=int(self.matrix.shape[1]))

    @classmethod
    def load(cls, directory: Path, paragraphs: Sequence[Paragraph], embedder: Embedder, *,
             mmap: bool = False) -> DenseRetriever:
        """Load an index written by :meth:`save` for exactly these ``paragraphs`` and this model.

        Args:
            directory: the folder :meth:`save` wrote.
            paragraphs: the same corpus as at build time, in any order.
            embedder: the same model (same ``model_id``) that built the index.
            mmap: memory-map the embeddings instead of reading them into memory.

        Returns:
            A ready retriever.

        Raises:
            RetrievalError: if the folder holds no dense index, or one built with
                another model or for other paragraphs (then rebuild it).
        """
        directory = Path(directory)
        meta = read_meta(directory, "dense")
        rebuild = f"delete {directory} and rebuild it with DenseRetriever.build(paragraphs, embedder).save(...)"
        if meta.get("model_id") != embedder.model_id:
            raise RetrievalError(
                f"{directory}: index embedded with {meta.get('model_id')!r}, queries would use "
                f"{embedder.model_id!r}; load it with the same embedder or {rebuild}")
        corpus = CorpusView(in_id_order(paragraphs))
        check_corpus(directory, meta, corpus, rebuild)
        try:
            matrix = np.load(directory / MATRIX_FILE, mmap_mode="r" if mmap else None, allow_pickle=False)
        except (OSError, ValueError) as error:
            raise RetrievalError(f"{directory / MATRIX_FILE}: cannot read ({error}); {rebuild}") from error
        return cls(matrix, corpus, embedder)

    def retrieve(
        self,
        query: str,
        k: int,
        exclude: Collection[int] = frozenset(),
        titles: Collection[str] | None = None,
    ) -> list[ScoredParagraph]:
        """Return the ``k`` paragraphs most similar to ``query``, best first.

        Args:
            query: free text.
            k: how many paragraphs to return at most (more than the corpus is fine).
            exclude: paragraph ids never to return.
            titles: if given, only paragraphs whose title is in this collection.

        Returns:
            Distinct-text paragraphs with their cosine similarity; ``[]`` for a blank
            query or one the model maps to the zero vector.

        Raises:
            RetrievalError: if ``k`` is negative or the embedder misbehaves.
        """
        if k < 0:
            raise RetrievalError(f"k must be >= 0, got {k}")
        if k == 0 or not query.strip():
            return []
        vector = _normalise(_embed(self.embedder, [query], queries=True))[0]
        if vector.shape[0] != self.matrix.shape[1]:
            raise RetrievalError(
                f"query embedding has dim {vector.shape[0]}, the index {self.matrix.shape[1]}; "
                "use the embedder that built the index")
        if not vector.any():
            return []
        return self.corpus.select(self.matrix @ vector, k, exclude, titles)
