"""Build an index once, save it under a name that says what it is, load it thereafter.

One way for every kind: the paragraphs come from a :class:`ParagraphSource` (the store's
corpus, or :class:`MemorySource` around paragraphs in memory), read in id order a batch at a
time; the index is built and saved beside the others; a :class:`SourceView` maps its rows back
to the paragraphs a query ranks. The kinds are data (:data:`KINDS`): each one's options with
their defaults, written here once, and how it is built.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from hopkit.errors import RetrievalError, UnknownNameError
from hopkit.full_disk import free_space, is_disk_full
from hopkit.records import Paragraph
from hopkit.retrieval.ann import EF_SEARCH, INDEX_KINDS
from hopkit.retrieval.bm25 import BM25_DEFAULTS, BM25Retriever
from hopkit.retrieval.dense import DenseRetriever
from hopkit.retrieval.dense_store import ShardEncoder, load_or_build_dense
from hopkit.retrieval.embedders import DEFAULT_EMBEDDER_NAME, Embedder, load_embedder
from hopkit.retrieval.hybrid import HybridRetriever
from hopkit.retrieval.index_folders import index_path, load_or_save, scratch_folder
from hopkit.retrieval.protocol import Retriever
from hopkit.retrieval.stored_view import MemorySource, ParagraphSource
from hopkit.retrieval.tokenize import TOKENIZER_ID
from hopkit.retrieval.vector_build import SHARD_SIZE

DENSE_DEFAULTS: Mapping[str, Any] = {"embedder": DEFAULT_EMBEDDER_NAME, "batch_size": 1024, "index": "auto",
                                     "shard_size": SHARD_SIZE, "rescore": None, "nprobe": None,
                                     "ef_search": EF_SEARCH}
HYBRID_DEFAULTS: Mapping[str, Any] = {**BM25_DEFAULTS, **DENSE_DEFAULTS, "rrf_k": 60, "depth": 100}

_SAFE = re.compile(r"[0-9A-Za-z_-]+")


def load_or_build(kind: str, paragraphs: Sequence[Paragraph], index_dir: Path, fingerprint: str,
                  **options: Any) -> Retriever:
    """:func:`load_or_build_from` over paragraphs held in memory.

    Args:
        fingerprint: :func:`hopkit.records.corpus_fingerprint` of ``paragraphs`` (the store
            keeps it: ``Store.fingerprint(dataset)``); letters, digits, ``-`` and ``_`` only.

    Raises:
        RetrievalError: also when ``fingerprint`` is not that of ``paragraphs``.
    """
    _check(kind, options, fingerprint)
    source = MemorySource(paragraphs)
    if source.fingerprint != fingerprint:
        raise RetrievalError(f"corpus fingerprint {fingerprint!r} given for paragraphs whose fingerprint is "
                             f"{source.fingerprint!r}; pass hopkit.records.corpus_fingerprint(paragraphs)")
    return load_or_build_from(kind, source, index_dir, **options)


def load_or_build_from(kind: str, source: ParagraphSource, index_dir: Path, *, progress: bool | None = None,
                       encoder: ShardEncoder | None = None, **options: Any) -> Retriever:
    """Return a retriever of ``kind`` over the corpus ``source`` holds, building and saving its index only once.

    The index lives in ``index_dir/<kind>-<fingerprint[:12]>-<options hash>``; the hash
    covers only what changes the index (BM25: k1, b, method and the tokeniser; dense:
    the embedder's ``model_id`` for the vectors, plus the structure's build settings), so a
    changed option never reuses an old index. A hybrid retriever stores nothing itself: it
    fuses the ``bm25`` and ``dense`` indexes, each stored under its own name. Saving writes a
    temporary folder and renames it, so a crash or a concurrent build never leaves a
    half-written index behind; a dense build resumes at its first unfinished shard.

    Args:
        kind: ``"bm25"``, ``"dense"`` or ``"hybrid"``.
        source: the corpus (e.g. :meth:`hopkit.store.store.Store.corpus`).
        index_dir: the folder holding all indexes (created if needed).
        progress: show a progress bar while encoding passages (None: on a terminal).
        encoder: how a dense build encodes its shards (default: in this process;
            :func:`hopkit.executors.ray_encoding.ray_shard_encoder` spreads them over Ray).
        **options: bm25: ``k1``, ``b``, ``method``; dense: ``embedder`` (an
            :class:`Embedder` or a model id such as ``"minilm"``), ``batch_size``, ``index``
            (``auto``, ``flat``, ``hnsw``, ``ivfpq``), ``shard_size``, ``rescore``, ``nprobe``,
            ``ef_search``; hybrid: all of those plus ``rrf_k`` and ``depth``.

    Returns:
        The retriever (not metered: wrap it in :class:`MeteredRetriever` to count time).

    Raises:
        UnknownNameError: for an unknown kind or option.
        RetrievalError: for a bad fingerprint or option, an empty corpus, or an index folder on a full disk
            (one line naming the folder).
    """
    _check(kind, options, source.fingerprint)
    settings = {**KINDS[kind].defaults, **options}
    index_dir = Path(index_dir)
    try:
        return KINDS[kind].build(source, index_dir, settings, progress, encoder)
    except OSError as exc:
        if is_disk_full(exc):
            raise RetrievalError(free_space("the index", exc, index_dir)) from exc
        raise


def _check(kind: str, options: Mapping[str, Any], fingerprint: str) -> None:
    if kind not in KINDS:
        raise UnknownNameError("retriever kind", kind, list(KINDS))
    for name in options:
        if name not in KINDS[kind].defaults:
            raise UnknownNameError(f"{kind} retriever option", name, list(KINDS[kind].defaults))
    if "index" in options and options["index"] not in INDEX_KINDS:
        raise UnknownNameError("dense index", str(options["index"]), list(INDEX_KINDS))
    if not _SAFE.fullmatch(fingerprint):
        raise RetrievalError(f"corpus fingerprint {fingerprint!r} must be letters, digits, '-' or '_' only")


def _bm25(source: ParagraphSource, index_dir: Path, settings: Mapping[str, Any], progress: bool | None = None,
          encoder: ShardEncoder | None = None) -> BM25Retriever:
    parameters = {"k1": float(settings["k1"]), "b": float(settings["b"]), "method": str(settings["method"])}
    path = index_path(index_dir, "bm25", source.fingerprint, {**parameters, "tokenizer": TOKENIZER_ID})

    def build() -> BM25Retriever:
        with scratch_folder(path) as scratch:
            return BM25Retriever.build_from(source, spill_folder=scratch, **parameters)

    return load_or_save(path, load=lambda folder: BM25Retriever.load_from(folder, source), build=build)


def _count(value: Any) -> int | None:
    return None if value is None else int(value)


def _dense(source: ParagraphSource, index_dir: Path, settings: Mapping[str, Any], progress: bool | None,
           encoder: ShardEncoder | None) -> DenseRetriever:
    option = settings["embedder"]
    embedder: Embedder = load_embedder(option) if isinstance(option, str) else option
    return load_or_build_dense(source, index_dir, embedder, index=str(settings["index"]),
                               batch_size=int(settings["batch_size"]), shard_size=int(settings["shard_size"]),
                               rescore=_count(settings["rescore"]), nprobe=_count(settings["nprobe"]),
                               ef_search=int(settings["ef_search"]), progress=progress, encoder=encoder)


def _hybrid(source: ParagraphSource, index_dir: Path, settings: Mapping[str, Any], progress: bool | None,
            encoder: ShardEncoder | None) -> HybridRetriever:
    return HybridRetriever([_bm25(source, index_dir, settings), _dense(source, index_dir, settings, progress, encoder)],
                           rrf_k=int(settings["rrf_k"]), depth=int(settings["depth"]))


@dataclass(frozen=True)
class RetrieverKind:
    """A kind of retriever: its options with their defaults, and how it is loaded or built over a corpus
    (``build(source, index_dir, settings, progress, encoder)``, ``settings`` its defaults with the options over
    them)."""

    defaults: Mapping[str, Any]
    build: Callable[[ParagraphSource, Path, Mapping[str, Any], bool | None, ShardEncoder | None], Retriever]


KINDS: Mapping[str, RetrieverKind] = {"bm25": RetrieverKind(BM25_DEFAULTS, _bm25),
                                      "dense": RetrieverKind(DENSE_DEFAULTS, _dense),
                                      "hybrid": RetrieverKind(HYBRID_DEFAULTS, _hybrid)}
