"""Dense retrieval: cosine similarity between the embedded query and stored passage vectors.

The vectors are unit float16 rows, one per paragraph in id order (memory-mapped when loaded
from an index folder). Exact search scores every row; with an approximate structure
(:mod:`hopkit.retrieval.ann`) the structure proposes candidates and the stored vectors score
them exactly, so the scores and ranks are the exact ones among the candidates.
"""

from __future__ import annotations

import logging
import os
import time
from typing import BinaryIO, Collection, Sequence

import numpy as np

from hopkit.errors import RetrievalError
from hopkit.records import Paragraph, ScoredParagraph
from hopkit.retrieval.ann import RESCORE, Candidates
from hopkit.retrieval.batch_nearest import BatchNearest
from hopkit.retrieval.corpus_view import CorpusView, RankedCorpus, in_id_order
from hopkit.retrieval.embedders import (
    Embedder,
    HashingEmbedder,
    SentenceTransformerEmbedder,
    WordLlamaEmbedder,
    embed_queries,
    load_embedder,
)
from hopkit.retrieval.vector_build import encode_passages, unit_rows

__all__ = ["DenseRetriever", "Embedder", "HashingEmbedder", "SentenceTransformerEmbedder", "WordLlamaEmbedder",
           "load_embedder", "query_vector"]

logger = logging.getLogger(__name__)

SCORE_BLOCK = 65_536  # rows converted to float32 at a time by exact search


def query_vector(embedder: Embedder, query: str) -> np.ndarray:
    """The unit float32 vector of ``query`` as a query.

    Raises:
        RetrievalError: if the embedder returns anything but one finite vector.
    """
    vectors = embed_queries(embedder, [query])
    if vectors.ndim != 2 or vectors.shape[0] != 1 or not np.isfinite(vectors).all():
        raise RetrievalError(f"embedder {embedder.model_id!r} returned shape {vectors.shape} (or a non-finite "
                             "value) for one query; expected one finite vector")
    return unit_rows(vectors)[0]


class DenseRetriever:
    """Cosine-similarity retrieval over stored vectors.

    Build one with :meth:`build` (in memory) or
    :func:`hopkit.retrieval.index_store.load_or_build` (saved, resumable, memory-mapped).

    Args:
        vectors: ``(n, dim)`` unit float16 rows, one per paragraph of ``corpus``, in its order.
        corpus: the paragraphs (or a view of where they live).
        embedder: the model that embedded them; it embeds the queries too.
        candidates: an approximate structure proposing rows (None: exact search of every row).
        rescore: how many candidates the structure proposes and the vectors score exactly (at
            least ``k`` plus the excluded ids; more when deduplication needs them). None: the
            structure's default (:attr:`Candidates.rescore`).

    Raises:
        RetrievalError: if ``vectors`` is not 2-D, its rows do not match the corpus, or
            ``rescore`` < 1.
    """

    def __init__(self, vectors: np.ndarray, corpus: RankedCorpus, embedder: Embedder,
                 candidates: Candidates | None = None, *, rescore: int | None = None) -> None:
        if vectors.ndim != 2 or vectors.shape[0] != len(corpus):
            raise RetrievalError(f"vectors of shape {vectors.shape} for a corpus of {len(corpus)} paragraphs")
        if rescore is None:
            rescore = candidates.rescore if candidates is not None else RESCORE
        if rescore < 1:
            raise RetrievalError(f"rescore must be >= 1, got {rescore}")
        self.vectors = vectors
        self.corpus = corpus
        self.embedder = embedder
        self.candidates = candidates
        self.rescore = rescore
        self._file: BinaryIO | None = None
        self._batch = BatchNearest()

    @property
    def dim(self) -> int:
        return int(self.vectors.shape[1])

    @classmethod
    def build(cls, paragraphs: Sequence[Paragraph], embedder: Embedder, *, batch_size: int = 1024) -> DenseRetriever:
        """Embed every paragraph's title and text, in memory, for exact search.

        Args:
            paragraphs: the corpus, with unique ids, in any order (kept in id order).
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
        vectors = encode_passages(embedder, corpus.paragraphs, batch_size)
        logger.info("embedded %d paragraphs (%s, dim %d) in %.1fs", len(corpus), embedder.model_id,
                    vectors.shape[1], time.perf_counter() - start)
        return cls(vectors, corpus, embedder)

    def rows(self, positions: np.ndarray) -> np.ndarray:
        """The vectors at ``positions``, as float32. From a vector file they are read (``pread``), not
        mapped: a worker's memory then holds no page of the file, which its page cache shares instead."""
        filename = getattr(self.vectors, "filename", None)
        if filename is None:
            return np.asarray(self.vectors[positions], dtype=np.float32)
        if self._file is None:
            self._file = open(filename, "rb")  # noqa: SIM115 (kept open for the retriever's life)
        row_bytes = self.dim * self.vectors.dtype.itemsize
        start = self.vectors.offset
        data = b"".join(os.pread(self._file.fileno(), row_bytes, start + int(position) * row_bytes)
                        for position in positions)
        return np.frombuffer(data, dtype=self.vectors.dtype).reshape(len(positions), self.dim).astype(np.float32)

    def exact_scores(self, query: np.ndarray, positions: np.ndarray | None = None) -> np.ndarray:
        """Cosine similarity of ``query`` with the rows at ``positions`` (None: every row), float32."""
        if positions is not None:
            return self.rows(positions) @ query
        scores = np.empty(self.vectors.shape[0], dtype=np.float32)
        for start in range(0, scores.size, SCORE_BLOCK):
            block = np.asarray(self.vectors[start:start + SCORE_BLOCK], dtype=np.float32)
            scores[start:start + block.shape[0]] = block @ query
        return scores

    def _wanted(self, k: int, excluded: int) -> int:
        return min(len(self.corpus), max(self.rescore, k + excluded))

    def prepare_batch(self, queries: Sequence[tuple[str, int, int]]) -> None:
        """Search the approximate structure once for a batch of queries, each ``(text, k, ids excluded)``; their
        :meth:`retrieve` calls, until :meth:`forget_batch`, take their candidates from that search. Exact search
        (no structure) has nothing to prepare."""
        if self.candidates is None:
            return
        asked = [(query_vector(self.embedder, text), self._wanted(k, excluded))
                 for text, k, excluded in queries if k > 0 and text.strip()]
        self._batch.fill([vector for vector, _ in asked], [wanted for _, wanted in asked],
                         self.candidates.nearest_many)

    def forget_batch(self) -> None:
        self._batch.clear()

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
            titles: if given, only paragraphs whose title is in this collection (scored
                exactly, whatever the index).

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
        vector = query_vector(self.embedder, query)
        if vector.shape[0] != self.dim:
            raise RetrievalError(f"query embedding has dim {vector.shape[0]}, the index {self.dim}; "
                                 "use the embedder that built the index")
        if not vector.any():
            return []
        if titles is not None:
            positions = self.corpus.title_positions(titles)
            return self.corpus.select_among(positions, self.exact_scores(vector, positions), k, exclude)
        if self.candidates is None:
            return self.corpus.select(self.exact_scores(vector), k, exclude)
        wanted = self._wanted(k, len(exclude))
        prepared = self._batch.take(vector, wanted)
        while True:
            positions = prepared if prepared is not None else self.candidates.nearest(vector, wanted)
            prepared = None
            hits = self.corpus.select_among(positions, self.exact_scores(vector, positions), k, exclude)
            if len(hits) >= k or positions.size < wanted or wanted >= len(self.corpus):
                return hits
            wanted = min(len(self.corpus), wanted * 4)
