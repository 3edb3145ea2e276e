"""A dense index from a paragraph source: vectors encoded once per model and corpus, structures on top.

Two kinds of folder, beside the BM25 indexes:

- ``vectors-<fingerprint>-<model hash>``: the passages' unit float16 vectors in id order
  (:mod:`hopkit.retrieval.vector_build` builds them shard by shard, resumably), shared by
  every structure over them;
- ``dense-<kind>-<fingerprint>-<hash>``: a FAISS structure (flat, HNSW, IVF-PQ) over those
  vectors, keyed by the model, the kind and its build settings.

Each is used only when whole and matching: a folder built for other paragraphs, another
dimension or that cannot be read is rebuilt, with a line saying why. A finished folder's metadata
records the CRC-32 of each shard of its vectors (and of a structure's file); the first load after the
file changed reads it whole and checks them (docs/benchmarks.md, section index-check), a shard that no
longer matches is encoded again (a structure built again), and a file that passed is stamped
(:mod:`hopkit.retrieval.mapped_files`) so that later loads only ``stat`` it.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from hopkit.errors import RetrievalError
from hopkit.retrieval.ann import (EF_SEARCH, INDEX_FILE, Candidates, build_settings, build_structure, chosen_kind,
                                 faiss_installed, load_structure, save_structure)
from hopkit.retrieval.dense import DenseRetriever, query_vector
from hopkit.retrieval.embedders import Embedder
from hopkit.retrieval.index_folders import build_lock, index_path, load_or_save
from hopkit.retrieval.index_meta import META_FILE, check_corpus, read_meta, write_meta
from hopkit.retrieval.mapped_files import checked_since, file_crc32, file_state, mark_checked, matches_recorded_crc
from hopkit.retrieval.stored_view import ParagraphSource, SourceView
from hopkit.retrieval.vector_build import (PROGRESS_FILE, SHARD_SIZE, VECTORS_FILE, Shard, VectorBuild, changed_shards,
                                           local_shards, shards_of, write_progress)

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
    vectors = _usable_vectors(folder, corpus, embedder, repair=False)
    if vectors is None:
        with build_lock(folder):
            vectors = _usable_vectors(folder, corpus, embedder, repair=True)
            if vectors is None:
                _build_vectors(folder, source, corpus, embedder, batch_size, shard_size, progress,
                               encoder or local_shards)
                vectors = np.load(folder / VECTORS_FILE, mmap_mode="r", allow_pickle=False)
    return vectors


def _discard(folder: Path, why: str) -> None:
    logger.warning("%s: %s; building it again", folder, why)
    shutil.rmtree(folder, ignore_errors=True)
    return None


def _usable_vectors(folder: Path, corpus: SourceView, embedder: Embedder, *, repair: bool) -> np.ndarray | None:
    """The saved vectors when whole and matching; None otherwise, and then, when ``repair`` (the build
    lock held), the folder removed, or moved back to be resumed when only its rows are damaged."""
    if not folder.exists():
        return None
    try:
        meta = read_meta(folder, "vectors")
    except RetrievalError as error:
        return _discard(folder, str(error)) if repair else None
    if meta.get("model_id") != embedder.model_id or meta.get("count") != len(corpus) \
            or meta.get("fingerprint") != corpus.fingerprint:
        return _discard(folder, f"vectors of {meta.get('model_id')!r} for {meta.get('count')} paragraphs, not "
                                f"of {embedder.model_id!r} for these {len(corpus)}") if repair else None
    dim = query_vector(embedder, "dimension").shape[0]
    if meta.get("dim") != dim:
        return _discard(folder, f"vectors of dimension {meta.get('dim')}, but {embedder.model_id!r} now gives "
                                f"{dim} (the model's files changed)") if repair else None
    shard_size = meta.get("shard_size")
    if not isinstance(shard_size, int) or isinstance(shard_size, bool) or shard_size < 1:
        return _discard(folder, f"{META_FILE}: field 'shard_size' is {shard_size!r}, not a number of rows") \
            if repair else None
    path = folder / VECTORS_FILE
    try:
        vectors = np.load(path, mmap_mode="r", allow_pickle=False)
        if vectors.shape != (len(corpus), dim) or vectors.dtype != np.float16:
            raise ValueError(f"shape {vectors.shape} {vectors.dtype}")
    except (OSError, ValueError) as error:
        if repair:
            logger.warning("%s: cannot read %s (%s); resuming its build from the last good shard", folder,
                           VECTORS_FILE, error)
            _resume_from(folder, _recorded_crcs(folder, meta), meta)
        return None
    if checked_since(path):
        return vectors
    state, started = file_state(path), time.time_ns()
    crcs = _recorded_crcs(folder, meta)
    shards = shards_of(len(corpus), shard_size)
    changed = changed_shards(path, vectors.offset, dim * vectors.itemsize, shards, crcs)
    if changed:
        if repair:
            logger.warning("%s: %d of %d shards (%s) no longer match the CRC-32 recorded when the vectors were "
                           "written; encoding them again", path, len(changed), len(shards),
                           _shard_list(changed) if crcs else "no CRC-32 recorded")
            _resume_from(folder, crcs, meta)
        return None
    mark_checked(path, state, started)
    return vectors


def _recorded_crcs(folder: Path, meta: dict[str, Any]) -> dict[int, int]:
    """The CRC-32 of each shard, by number, as the finished index recorded them (an index finished by an
    older hopkit: as its build's progress file did); empty when there is no such record."""
    recorded = meta.get("shard_crcs")
    try:
        if isinstance(recorded, list):
            return {number: int(crc) for number, crc in enumerate(recorded)}
        saved = json.loads((folder / PROGRESS_FILE).read_text(encoding="utf-8"))
        return {int(number): int(crc) for number, crc in saved["done"].items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}


def _shard_list(shards: list[Shard]) -> str:
    named = [f"{shard.number} (rows {shard.start}..{shard.stop - 1})" for shard in shards[:5]]
    return ", ".join(named) + (f" and {len(shards) - 5} more" if len(shards) > 5 else "")


def _resume_from(folder: Path, crcs: dict[int, int], meta: dict[str, Any]) -> None:
    """Move a finished folder whose rows are damaged back to its build folder, with its shards' recorded
    CRC-32s as the build's progress: the build encodes again only the shards that no longer match."""
    build = _build_folder(folder)
    shutil.rmtree(build, ignore_errors=True)
    (folder / META_FILE).unlink(missing_ok=True)
    try:
        if crcs:
            write_progress(folder, {"model_id": meta["model_id"], "fingerprint": meta["fingerprint"],
                                    "count": meta["count"]}, int(meta["shard_size"]), int(meta["dim"]), crcs)
        else:
            (folder / PROGRESS_FILE).unlink(missing_ok=True)
    except OSError as error:
        logger.warning("%s: cannot record its shards for the rebuild (%s); encoding every shard again",
                       folder, error)
    os.rename(folder, build)


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
               shard_size=build.shard_size, shard_crcs=[build.done[shard.number] for shard in build.shards()])
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
        _check_structure_file(folder / INDEX_FILE, meta)
        if index.ntotal != len(corpus):
            raise RetrievalError(f"{folder}: a {kind} index of {index.ntotal} vectors for {len(corpus)} paragraphs")
        return cls(index, kind, corpus)

    def save(self, directory: Path) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        save_structure(self.index, directory)
        write_meta(directory, f"dense-{self.kind}", self.corpus, file_crc32=file_crc32(directory / INDEX_FILE))


def _check_structure_file(path: Path, meta: dict[str, Any]) -> None:
    """Refuse a structure file whose bytes no longer have the CRC-32 its metadata recorded (read whole once,
    then while unchanged trusted: :func:`hopkit.retrieval.mapped_files.checked_since`). A structure saved by
    an older hopkit recorded none and is not checked.

    Raises:
        RetrievalError: naming the file.
    """
    recorded = meta.get("file_crc32")
    if recorded is None:
        return
    try:
        matches = isinstance(recorded, int) and matches_recorded_crc(path, recorded)
    except OSError as error:
        raise RetrievalError(f"{path}: cannot read the index file ({error.strerror or error})") from None
    if not matches:
        raise RetrievalError(f"{path}: its bytes no longer match the CRC-32 recorded when it was written")


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
