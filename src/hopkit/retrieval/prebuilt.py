"""A FAISS index built elsewhere (FlashRAG's, Search-R1's, one's own), searched over a stored corpus.

Row ``i`` of the index is the corpus's ``i``-th passage in id order. For a corpus stored once
(``hopkit corpus add``) a passage's id is its position in the corpus file, so the rows follow the file's
order: the order in which FlashRAG's and Search-R1's index builders embed ``wiki-18.jsonl``. Before the
first query the index is checked against the corpus and the embedder (:func:`check_rows`,
:func:`check_dimension`): a row count that is not the corpus's passage count, or a dimension that is not the
embedder's, is refused in one line.

The file is memory-mapped where FAISS can map its type (:func:`read_faiss_file`), so the processes of one
machine share one copy through the page cache.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Any, Callable, Collection, Sequence

import numpy as np

from hopkit.errors import RetrievalError
from hopkit.records import ScoredParagraph
from hopkit.retrieval.batch_nearest import BatchNearest
from hopkit.retrieval.corpus_view import RankedCorpus
from hopkit.retrieval.dense import query_vector
from hopkit.retrieval.embedders import Embedder

logger = logging.getLogger(__name__)

WIDEN = 4  # how much more a search asks for when identical texts or excluded ids left fewer than k


def _faiss() -> Any:
    try:
        import faiss
    except ImportError as error:
        raise RetrievalError("index_path needs FAISS: pip install faiss-cpu (or pip install 'hopkit[dense]')") \
            from error
    return faiss


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def read_faiss_file(path: Path) -> tuple[Any, str]:
    """The FAISS index in ``path`` and how it was read: ``"mapped"`` or ``"read whole"``.

    Read-only and memory-mapped first (``IO_FLAG_MMAP_IFC``: FAISS 1.11 and later map a flat, scalar-quantised
    or HNSW index's vectors this way; FAISS 1.15 was seen to map an IVF index's lists so too), then with
    ``IO_FLAG_MMAP`` (an IVF index's lists), then read into memory.

    Raises:
        RetrievalError: the file is missing, not a file, or not an index FAISS can read (naming it).
    """
    faiss = _faiss()
    if not path.exists():
        raise RetrievalError(f"index_path {path}: no such file")
    if not path.is_file():
        raise RetrievalError(f"index_path {path}: not a file; give the FAISS index file itself")
    read_only = faiss.IO_FLAG_READ_ONLY
    attempts = [flags for flags in (getattr(faiss, "IO_FLAG_MMAP_IFC", None), faiss.IO_FLAG_MMAP) if flags is not None]
    for flags in attempts:
        try:
            return faiss.read_index(str(path), flags | read_only), "mapped"
        except RuntimeError:
            continue  # this type cannot be mapped this way: the next way
    try:
        return faiss.read_index(str(path)), "read whole"
    except RuntimeError as error:
        raise RetrievalError(f"index_path {path}: not a FAISS index FAISS can read ({_first_line(error)})") from None


def check_rows(index: Any, where: str, passages: int, corpus: str) -> None:
    """Refuse an index whose rows are not the corpus's passages: one row per passage, in order.

    Args:
        index: the FAISS index.
        where: what names the index in the message (its file, and the config giving it).
        passages: the corpus's passage count.
        corpus: what names the corpus in the message.

    Raises:
        RetrievalError: one line with both counts.
    """
    if int(index.ntotal) != passages:
        raise RetrievalError(
            f"{where}: the index holds {int(index.ntotal):,} rows but {corpus} holds {passages:,} passages; row i is "
            "the corpus's i-th passage, so the two must be equal: give the index built over this corpus file (and "
            "the whole corpus stored)")


def check_dimension(index: Any, where: str, dim: int, embedder: str) -> None:
    """Refuse an index whose vectors are not of the embedder's dimension.

    Raises:
        RetrievalError: one line with both dimensions.
    """
    if int(index.d) != dim:
        raise RetrievalError(
            f"{where}: the index's vectors have {int(index.d)} dimensions but embedder {embedder!r} gives {dim}; "
            "name the embedder the index was built with")


class PrebuiltRetriever:
    """Queries embedded by ``embedder`` searched in a FAISS index whose rows are ``corpus``'s passages.

    Build one with :meth:`load`. Scores are FAISS's: the inner product for an inner-product index (the
    cosine similarity for unit passage vectors, as FlashRAG and Search-R1 build theirs), the negated squared
    distance for an L2 one. Queries are scaled to unit length, as FlashRAG's and Search-R1's encoders do.

    Args:
        index: the FAISS index (checked: :func:`check_rows`, :func:`check_dimension`).
        corpus: the passages, in the index's row order.
        embedder: the model that embeds the queries (the index's own model, with its query prefix).
        ef_search: an HNSW index's search breadth; None: the one saved in the index.
        nprobe: an IVF index's lists searched per query; None: the one saved in the index.
    """

    def __init__(self, index: Any, corpus: RankedCorpus, embedder: Embedder, *, ef_search: int | None = None,
                 nprobe: int | None = None) -> None:
        self.index = index
        self.corpus = corpus
        self.embedder = embedder
        self.ef_search = ef_search
        self.nprobe = nprobe
        faiss = _faiss()
        self._higher_is_better = int(index.metric_type) != faiss.METRIC_L2
        self._batch = BatchNearest()

    @classmethod
    def load(cls, path: Path, corpus: RankedCorpus, embedder: Callable[[], Embedder], *, where: str,
             corpus_label: str, ef_search: int | None = None, nprobe: int | None = None) -> PrebuiltRetriever:
        """Read the index at ``path`` (mapped where FAISS can), check its rows against ``corpus``, then load the
        embedder and check the index's dimension against it.

        Args:
            embedder: loads the query embedder (called once the rows are checked).
            where, corpus_label: what names the index and the corpus in a refusal.

        Raises:
            RetrievalError: the file cannot be read, or does not match the corpus or the embedder
                (:func:`check_rows`, :func:`check_dimension`).
        """
        started = time.perf_counter()
        index, how = read_faiss_file(path)
        check_rows(index, where, len(corpus), corpus_label)
        logger.info("index %s: %s, %d rows of %d dimensions, %s in %.1f s", path, type(index).__name__, index.ntotal,
                    index.d, how, time.perf_counter() - started)
        model = embedder()
        check_dimension(index, where, int(query_vector(model, "dimension").shape[0]), model.model_id)
        return cls(index, corpus, model, ef_search=ef_search, nprobe=nprobe)

    def _parameters(self, wanted: int) -> Any:
        faiss = _faiss()
        if isinstance(self.index, faiss.IndexHNSW) and self.ef_search is not None:
            return faiss.SearchParametersHNSW(efSearch=max(self.ef_search, wanted))
        if isinstance(self.index, faiss.IndexIVF) and self.nprobe is not None:
            return faiss.SearchParametersIVF(nprobe=self.nprobe)
        return None

    def nearest(self, vector: np.ndarray, wanted: int) -> tuple[np.ndarray, np.ndarray]:
        """Positions and scores of up to ``wanted`` rows nearest to ``vector``, best first."""
        return self.nearest_many(vector.reshape(1, -1), wanted)[0]

    def nearest_many(self, vectors: np.ndarray, wanted: int) -> list[tuple[np.ndarray, np.ndarray]]:
        """:meth:`nearest` of each row of ``vectors``, in one search of the index."""
        distances, found = self.index.search(np.ascontiguousarray(vectors, dtype=np.float32), wanted,
                                             params=self._parameters(wanted))
        results = []
        for row_distances, row_found in zip(distances, found):
            keep = row_found >= 0
            scores = row_distances[keep] if self._higher_is_better else -row_distances[keep]
            results.append((row_found[keep].astype(np.int64), scores.astype(np.float32)))
        return results

    def _wanted(self, k: int, excluded: int) -> int:
        return min(len(self.corpus), 2 * k + excluded)

    def prepare_batch(self, queries: Sequence[tuple[str, int, int]]) -> None:
        """Search the index once for a batch of queries, each ``(text, k, ids excluded)``; their :meth:`retrieve`
        calls, until :meth:`forget_batch`, take their rows from that search."""
        asked = [(query_vector(self.embedder, text).astype(np.float32), self._wanted(k, excluded))
                 for text, k, excluded in queries if k > 0 and text.strip()]
        self._batch.fill([vector for vector, _ in asked], [wanted for _, wanted in asked], self.nearest_many)

    def forget_batch(self) -> None:
        self._batch.clear()

    def _among(self, vector: np.ndarray, positions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The rows at ``positions`` with their scores: from the vectors the index gives back, else (an IVF index
        without a direct map) from a search restricted to them, every list probed."""
        if positions.size == 0:
            return positions, np.empty(0, dtype=np.float32)
        try:
            rows = self.index.reconstruct_batch(positions)
        except RuntimeError:
            faiss = _faiss()
            selector = faiss.IDSelectorBatch(positions)
            parameters = (faiss.SearchParametersIVF(sel=selector, nprobe=self.index.nlist)
                          if isinstance(self.index, faiss.IndexIVF) else faiss.SearchParameters(sel=selector))
            distances, found = self.index.search(vector.reshape(1, -1), positions.size, params=parameters)
            keep = found[0] >= 0
            scores = distances[0][keep] if self._higher_is_better else -distances[0][keep]
            return found[0][keep].astype(np.int64), scores.astype(np.float32)
        if self._higher_is_better:
            return positions, np.asarray(rows @ vector, dtype=np.float32)
        return positions, -np.sum((rows - vector) ** 2, axis=1, dtype=np.float32)

    def retrieve(
        self,
        query: str,
        k: int,
        exclude: Collection[int] = frozenset(),
        titles: Collection[str] | None = None,
    ) -> list[ScoredParagraph]:
        """The ``k`` passages nearest to ``query``, best first (identical texts once, ``exclude`` left out).

        Raises:
            RetrievalError: ``k`` is negative, or the embedder misbehaves.
        """
        if k < 0:
            raise RetrievalError(f"k must be >= 0, got {k}")
        if k == 0 or not query.strip():
            return []
        vector = query_vector(self.embedder, query).astype(np.float32)
        if not vector.any():
            return []
        if titles is not None:
            return self.corpus.select_among(*self._among(vector, self.corpus.title_positions(titles)), k, exclude)
        rows = len(self.corpus)
        wanted = self._wanted(k, len(exclude))
        prepared = self._batch.take(vector, wanted)
        while True:
            positions, scores = prepared if prepared is not None else self.nearest(vector, wanted)
            prepared = None
            hits = self.corpus.select_among(positions, scores, k, exclude)
            if len(hits) >= k or positions.size < wanted or wanted >= rows:
                return hits
            wanted = min(rows, wanted * WIDEN)
