"""Search structures (FAISS) over a corpus's stored float16 vectors.

``flat`` scores every vector (a FAISS float16 scalar-quantiser index: the stored values, scored
with SIMD, memory-mapped); ``hnsw`` (a graph over float32 copies of the vectors, held in memory)
and ``ivfpq`` (inverted lists of product-quantised codes, memory-mapped) look at some. Each
proposes candidates that :class:`hopkit.retrieval.dense.DenseRetriever` scores exactly from the
stored vectors. ``auto`` is ``flat`` up to :data:`FLAT_UP_TO` passages and ``ivfpq`` above
(docs/retrieval.md says why).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from hopkit.errors import RetrievalError

logger = logging.getLogger(__name__)

INDEX_KINDS = ("auto", "flat", "hnsw", "ivfpq")
FLAT_UP_TO = 200_000
INDEX_FILE = "index.faiss"
MIN_NPROBE = 128  # IVF lists searched per query, at least
NPROBE_SHARE = 2  # ... and at least one list in this many
RESCORE = 200  # candidates a flat or HNSW index proposes for exact scoring, by default
IVFPQ_RESCORE = 1000  # ... and an IVF-PQ index, whose codes rank them more roughly
EF_SEARCH = 128  # HNSW search breadth
ADD_BATCH = 65_536
TRAINING_POINTS_PER_LIST = 32
TRAINING_ITERATIONS = 10
MIN_POINTS_PER_CODE = 39  # FAISS's own floor for k-means


def chosen_kind(kind: str, count: int) -> str:
    """The structure ``kind`` means for a corpus of ``count`` passages.

    Raises:
        RetrievalError: for an unknown kind.
    """
    if kind not in INDEX_KINDS:
        raise RetrievalError(f"unknown dense index {kind!r}; choose one of {', '.join(INDEX_KINDS)}")
    if kind == "auto":
        return "flat" if count <= FLAT_UP_TO else "ivfpq"
    return kind


def _largest_divisor_at_most(dim: int, limit: int) -> int:
    return max(m for m in range(1, max(1, limit) + 1) if dim % m == 0)


def build_settings(kind: str, count: int, dim: int) -> dict[str, Any]:
    """What a structure of ``kind`` is built with for ``count`` vectors of ``dim`` dimensions.

    IVF-PQ: about ``2 * sqrt(count)`` lists (a power of two: 4,096 for 5 million passages, 8,192
    for 21 million), codes of ``dim / 8`` bytes (one byte per 8 dimensions: 48 bytes at 384),
    fewer bits per code on a corpus too small to train 256 centroids per sub-vector. HNSW: 32
    links per node, 200 candidates while building.
    """
    if kind == "ivfpq":
        lists = 2 ** round(math.log2(max(1.0, 2 * math.sqrt(count))))
        lists = max(1, min(lists, count // MIN_POINTS_PER_CODE))
        bits = max(1, min(8, int(math.log2(max(2, count // MIN_POINTS_PER_CODE)))))
        return {"nlist": lists, "m": _largest_divisor_at_most(dim, dim // 8), "nbits": bits}
    if kind == "hnsw":
        return {"links": 32, "ef_construction": 200}
    return {}


def lists_searched(nlist: int, nprobe: int | None = None) -> int:
    """IVF lists searched per query: ``nprobe`` when given, else half of them and at least
    :data:`MIN_NPROBE` (2,048 of 4,096 at 5 million passages, 4,096 of 8,192 at 21 million), so that
    the share of the exact top 15 found does not fall as the corpus grows (docs/retrieval.md)."""
    wanted = nprobe if nprobe is not None else max(MIN_NPROBE, nlist // NPROBE_SHARE)
    return max(1, min(wanted, nlist))


def faiss_installed() -> bool:
    import importlib.util

    return importlib.util.find_spec("faiss") is not None


def _faiss() -> Any:
    try:
        import faiss
    except ImportError as error:
        raise RetrievalError("the hnsw and ivfpq dense indexes need FAISS: pip install faiss-cpu "
                             "(or pip install 'hopkit[dense]')") from error
    return faiss


def _float32(vectors: np.ndarray, start: int, stop: int) -> np.ndarray:
    """Rows ``start`` to ``stop`` as float32; from a mapped file they are read, not mapped, so that the
    file's pages do not add up in the building process's memory."""
    if isinstance(vectors, np.memmap) and vectors.filename is not None:
        row_bytes = vectors.shape[1] * vectors.dtype.itemsize
        rows = np.fromfile(vectors.filename, dtype=vectors.dtype, count=(stop - start) * vectors.shape[1],
                           offset=vectors.offset + start * row_bytes)
        return rows.reshape(stop - start, vectors.shape[1]).astype(np.float32)
    return np.ascontiguousarray(vectors[start:stop], dtype=np.float32)


def build_structure(kind: str, vectors: np.ndarray, settings: dict[str, Any],
                    on_rows: Callable[[int], None] = lambda rows: None) -> Any:
    """A FAISS index of ``kind`` over ``vectors`` (float16 rows, read ``ADD_BATCH`` at a time).

    The IVF-PQ quantiser is trained on an evenly spaced sample of the rows, at most
    ``32 * nlist`` of them, in 10 k-means iterations.
    """
    faiss = _faiss()
    count, dim = vectors.shape
    if kind == "flat":
        index = faiss.IndexScalarQuantizer(dim, faiss.ScalarQuantizer.QT_fp16, faiss.METRIC_INNER_PRODUCT)
    elif kind == "hnsw":
        index = faiss.IndexHNSWFlat(dim, int(settings["links"]), faiss.METRIC_INNER_PRODUCT)
        index.hnsw.efConstruction = int(settings["ef_construction"])
    elif kind == "ivfpq":
        quantizer = faiss.IndexFlatIP(dim)
        index = faiss.IndexIVFPQ(quantizer, dim, int(settings["nlist"]), int(settings["m"]),
                                 int(settings["nbits"]), faiss.METRIC_INNER_PRODUCT)
        index.cp.niter = TRAINING_ITERATIONS
        sample = np.unique(np.linspace(0, count - 1, min(count, TRAINING_POINTS_PER_LIST * int(settings["nlist"])),
                                       dtype=np.int64))
        logger.info("training the IVF-PQ quantiser (%d lists, %d-byte codes) on %d of %d vectors",
                    settings["nlist"], settings["m"], sample.size, count)
        index.train(np.concatenate([_float32(vectors, int(row), int(row) + 1) for row in sample]))
    else:
        raise RetrievalError(f"no FAISS structure for a {kind!r} dense index")
    for start in range(0, count, ADD_BATCH):
        stop = min(start + ADD_BATCH, count)
        index.add(_float32(vectors, start, stop))
        on_rows(stop - start)
    return index


def save_structure(index: Any, folder: Path) -> None:
    _faiss().write_index(index, str(folder / INDEX_FILE))


def load_structure(folder: Path, kind: str) -> Any:
    """The saved structure; a flat or IVF-PQ one memory-mapped, so a node's workers share one copy.

    Raises:
        RetrievalError: if the file is missing or unreadable (truncated, another format).
    """
    faiss = _faiss()
    path = folder / INDEX_FILE
    flags = {"ivfpq": faiss.IO_FLAG_MMAP | faiss.IO_FLAG_READ_ONLY, "flat": faiss.IO_FLAG_MMAP_IFC}.get(kind, 0)
    try:
        return faiss.read_index(str(path), flags)
    except RuntimeError as error:
        first_line = str(error).strip().splitlines()[0] if str(error).strip() else "unreadable"
        raise RetrievalError(f"{path}: cannot read the {kind} index ({first_line})") from error


class Candidates:
    """Proposes the rows nearest to a query from a FAISS structure.

    Args:
        index: the structure.
        kind: ``flat``, ``hnsw`` or ``ivfpq``.
        nprobe: IVF-PQ lists searched per query (None: :func:`lists_searched`'s default).
        ef_search: HNSW candidates kept while searching (at least the number asked for).
    """

    def __init__(self, index: Any, kind: str, *, nprobe: int | None = None, ef_search: int = EF_SEARCH) -> None:
        self.index = index
        self.kind = kind
        self.nprobe = nprobe
        self.ef_search = ef_search

    @property
    def rescore(self) -> int:
        """How many candidates this structure proposes for exact scoring by default."""
        return IVFPQ_RESCORE if self.kind == "ivfpq" else RESCORE

    def nearest(self, query: np.ndarray, count: int) -> np.ndarray:
        """Positions of up to ``count`` rows nearest to ``query`` (a unit float32 vector), best first."""
        return self.nearest_many(query.reshape(1, -1), count)[0]

    def nearest_many(self, queries: np.ndarray, count: int) -> list[np.ndarray]:
        """:meth:`nearest` of each row of ``queries`` (``(m, dim)``), in one search of the structure."""
        faiss = _faiss()
        if self.kind == "ivfpq":
            parameters = faiss.SearchParametersIVF(nprobe=lists_searched(self.index.nlist, self.nprobe))
        elif self.kind == "hnsw":
            parameters = faiss.SearchParametersHNSW(efSearch=max(self.ef_search, count))
        else:
            parameters = None
        _, found = self.index.search(np.ascontiguousarray(queries, dtype=np.float32), count, params=parameters)
        return [row[row >= 0].astype(np.int64) for row in found]
