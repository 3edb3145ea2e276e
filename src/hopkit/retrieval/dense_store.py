"""A dense index from a paragraph source: vectors encoded once per model and corpus, structures on top.

Two kinds of folder, beside the BM25 indexes:

- ``vectors-<fingerprint>-<model hash>``: the passages' unit float16 vectors in id order
  (:mod:`hopkit.retrieval.vector_build` builds them shard by shard, resumably), shared by
  every structure over them;
- ``dense-<kind>-<fingerprint>-<hash>``: a FAISS structure (flat, HNSW, IVF-PQ) over those
  vectors, keyed by the model, the kind and its build settings.

Each is used only when whole and matching: a folder built for other paragraphs, another
dimension or that cannot be read is rebuilt, with a line saying why.
"""

from __future__ import annotations

import logging
import os
import shutil
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from hopkit.errors import RetrievalError
from hopkit.retrieval.ann import (EF_SEARCH, Candidates, build_settings, build_structure, chosen_kind,
                                 faiss_installed, load_structure, save_structure)
from hopkit.retrieval.dense import DenseRetriever, query_vector
from hopkit.retrieval.embedders import Embedder
from hopkit.retrieval.index_folders import build_lock, index_path, load_or_save
from hopkit.retrieval.index_meta import META_FILE, check_corpus, read_meta, write_meta
from hopkit.retrieval.stored_view import ParagraphSource, SourceView
from hopkit.retrieval.vector_build import SHARD_SIZE, VECTORS_FILE, Shard, VectorBuild, local_shards

logger = logging.getLogger(__name__)

VECTORS_FORMAT = 1

#: Encodes the pending shards of a source: ``(source, ids, embedder, batch_size, pending)``
#: to ``(shard, float16 rows)`` pairs as they are done (in this process, or on a Ray cluster).
ShardEncoder = Callable[[ParagraphSource, np.ndarray, Embedder, int, Iterable[Shard]],
                        Iterator[tuple[Shard, np.ndarray]]]


def vectors_folder(index_dir: Path, fingerprint: str, model_id: str) -> Path:
    return index_path(index_dir, "vectors", fingerprint, {"model_id": model_id, "vectors_format": VECTORS_FORMAT})


def load_or_build_dense(source: ParagraphSource, index_dir: Path, embedder: Embedder, *, index: str = "auto",
                        batch_size: int = 1024, shard_size: int = SHARD_SIZE, rescore: int | None = None,
                        nprobe: int | None = None, ef_search: int = EF_SEARCH, progress: bool | None = None,
                        encoder: ShardEncoder | None = None) -> DenseRetriever:
    """The dense retriever over ``source``: its vectors and structure loaded, or built and saved first.

    Args:
        source: where the paragraphs are (the store's corpus, or paragraphs in memory).
        index_dir: the folder of all indexes.
        embedder: the model; its ``model_id`` keys the vectors.
        index: ``auto``, ``flat``, ``hnsw`` or ``ivfpq`` (:mod:`hopkit.retrieval.ann`).
        batch_size: passages per forward pass of the model.
        shard_size: passages per shard of a new build (the unit of resuming and of Ray tasks).
        rescore: candidates the structure proposes for exact scoring (None: 200, or 1,000 for IVF-PQ).
        nprobe: IVF-PQ lists searched per query (None: half the lists, at least 128).
        ef_search: HNSW search breadth.
        progress: show a progress bar while encoding (None: when stderr is a terminal).
        encoder: how the pending shards are encoded (default: in this process).

    Raises:
        RetrievalError: for an empty corpus, a bad option, or an embedder that misbehaves.
    """
    corpus = SourceView(source)
    kind = chosen_kind(index, len(corpus))
    vectors = load_or_build_vectors(source, index_dir, embedder, batch_size=batch_size, shard_size=shard_size,
                                    progress=progress, encoder=encoder, corpus=corpus)
    candidates = None
    if kind != "flat" or faiss_installed():  # without FAISS, exact search scores the vectors in numpy
        settings = build_settings(kind, len(corpus), int(vectors.shape[1]))
        place = index_path(Path(index_dir), f"dense-{kind}", source.fingerprint,
                           {"model_id": embedder.model_id, **settings})
        structure = _structure(place, kind, vectors, settings, corpus)
        candidates = Candidates(structure.index, kind, nprobe=nprobe, ef_search=ef_search)
    return DenseRetriever(vectors, corpus, embedder, candidates, rescore=rescore)


def load_or_build_vectors(source: ParagraphSource, index_dir: Path, embedder: Embedder, *, batch_size: int = 1024,
                          shard_size: int = SHARD_SIZE, progress: bool | None = None,
                          encoder: ShardEncoder | None = None, corpus: SourceView | None = None) -> np.ndarray:
    """The passages' unit float16 vectors in id order, memory-mapped: loaded, or encoded and saved first
    (options as :func:`load_or_build_dense`; ``corpus``: the source's view when the caller has it).

    Raises:
        RetrievalError: for an empty corpus, a bad batch size, or an embedder that misbehaves.
    """
    if batch_size < 1:
        raise RetrievalError(f"batch_size must be >= 1, got {batch_size}")
    corpus = corpus if corpus is not None else SourceView(source)
    if not len(corpus):
        raise RetrievalError("cannot build a dense index over an empty corpus (the dataset holds no paragraphs)")
    folder = vectors_folder(Path(index_dir), source.fingerprint, embedder.model_id)
    vectors = _usable_vectors(folder, corpus, embedder)
    if vectors is None:
        with build_lock(folder):
            vectors = _usable_vectors(folder, corpus, embedder)
            if vectors is None:
                _build_vectors(folder, source, corpus, embedder, batch_size, shard_size, progress,
                               encoder or local_shards)
                vectors = np.load(folder / VECTORS_FILE, mmap_mode="r", allow_pickle=False)
    return vectors


def _discard(folder: Path, why: str) -> None:
    logger.warning("%s: %s; building it again", folder, why)
    shutil.rmtree(folder, ignore_errors=True)


def _usable_vectors(folder: Path, corpus: SourceView, embedder: Embedder) -> np.ndarray | None:
    """The saved vectors when whole and matching; None (the folder removed, or moved back to be
    resumed when only its rows are damaged) otherwise."""
    if not folder.exists():
        return None
    try:
        meta = read_meta(folder, "vectors")
    except RetrievalError as error:
        _discard(folder, str(error))
        return None
    if meta.get("model_id") != embedder.model_id or meta.get("count") != len(corpus) \
            or meta.get("fingerprint") != corpus.fingerprint:
        _discard(folder, f"vectors of {meta.get('model_id')!r} for {meta.get('count')} paragraphs, not of "
                         f"{embedder.model_id!r} for these {len(corpus)}")
        return None
    dim = query_vector(embedder, "dimension").shape[0]
    if meta.get("dim") != dim:
        _discard(folder, f"vectors of dimension {meta.get('dim')}, but {embedder.model_id!r} now gives {dim} "
                         "(the model's files changed)")
        return None
    try:
        vectors = np.load(folder / VECTORS_FILE, mmap_mode="r", allow_pickle=False)
        if vectors.shape != (len(corpus), dim) or vectors.dtype != np.float16:
            raise ValueError(f"shape {vectors.shape} {vectors.dtype}")
    except (OSError, ValueError) as error:
        build = _build_folder(folder)
        logger.warning("%s: cannot read %s (%s); resuming its build from the last good shard", folder,
                       VECTORS_FILE, error)
        shutil.rmtree(build, ignore_errors=True)
        (folder / META_FILE).unlink(missing_ok=True)
        os.rename(folder, build)
        return None
    return vectors


def _build_folder(folder: Path) -> Path:
    return folder.parent / f".{folder.name}.build"


def _build_vectors(folder: Path, source: ParagraphSource, corpus: SourceView, embedder: Embedder, batch_size: int,
                   shard_size: int, progress: bool | None, encoder: ShardEncoder) -> None:
    build = VectorBuild(_build_folder(folder), {"model_id": embedder.model_id, "fingerprint": corpus.fingerprint,
                                                "count": len(corpus)}, shard_size)
    logger.info("encoding %d passages with %s into %s (%d of %d shards to do)", len(corpus), embedder.model_id,
                build.folder, len(build.pending()), len(build.shards()))
    with tqdm(total=len(corpus), initial=build.rows_done(), unit="passage", unit_scale=True, smoothing=0.1,
              desc=f"encoding ({embedder.model_id.rsplit('/', 1)[-1]})", dynamic_ncols=True,
              disable=None if progress is None else not progress) as bar:
        build.run(encoder(source, corpus.ids, embedder, batch_size, build.pending()), bar.update)
    write_meta(build.folder, "vectors", corpus, model_id=embedder.model_id, dim=build.dim,
               shard_size=build.shard_size)
    os.rename(build.folder, folder)


class _Structure:
    """A FAISS structure as :func:`load_or_save` keeps it: the index file and a metadata file."""

    def __init__(self, index: Any, kind: str, corpus: SourceView) -> None:
        self.index = index
        self.kind = kind
        self.corpus = corpus

    @classmethod
    def build(cls, kind: str, vectors: np.ndarray, settings: dict[str, Any], corpus: SourceView) -> _Structure:
        with tqdm(total=len(corpus), unit="passage", unit_scale=True, desc=f"adding to {kind}",
                  dynamic_ncols=True, disable=None) as bar:
            return cls(build_structure(kind, vectors, settings, bar.update), kind, corpus)

    @classmethod
    def load(cls, folder: Path, kind: str, corpus: SourceView) -> _Structure:
        meta = read_meta(folder, f"dense-{kind}")
        check_corpus(folder, meta, corpus, f"delete {folder} and run again")
        index = load_structure(folder, kind)
        if index.ntotal != len(corpus):
            raise RetrievalError(f"{folder}: a {kind} index of {index.ntotal} vectors for {len(corpus)} paragraphs")
        return cls(index, kind, corpus)

    def save(self, directory: Path) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        save_structure(self.index, directory)
        write_meta(directory, f"dense-{self.kind}", self.corpus)


def _structure(place: Path, kind: str, vectors: np.ndarray, settings: dict[str, Any],
               corpus: SourceView) -> _Structure:
    """The saved structure at ``place``, or a new one (an unreadable or mismatched one is replaced)."""
    def load(path: Path) -> _Structure:
        try:
            return _Structure.load(path, kind, corpus)
        except RetrievalError as error:
            _discard(path, str(error))
            return load_or_save(path, load=lambda again: _Structure.load(again, kind, corpus),
                                build=lambda: _Structure.build(kind, vectors, settings, corpus))

    return load_or_save(place, load=load, build=lambda: _Structure.build(kind, vectors, settings, corpus))
