"""Build an index once, save it under a name that says what it is, load it thereafter."""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import shutil
import socket
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence, TypeVar

from hopkit.errors import RetrievalError, UnknownNameError
from hopkit.processes import process_alive
from hopkit.records import Paragraph
from hopkit.retrieval.bm25 import BM25Retriever
from hopkit.retrieval.dense import DenseRetriever
from hopkit.retrieval.embedders import DEFAULT_EMBEDDER, Embedder, load_embedder
from hopkit.retrieval.hybrid import HybridRetriever
from hopkit.retrieval.index_meta import FORMAT as INDEX_FORMAT
from hopkit.retrieval.protocol import Retriever
from hopkit.retrieval.stored_view import ParagraphSource
from hopkit.retrieval.tokenize import TOKENIZER_ID

logger = logging.getLogger(__name__)

BM25_DEFAULTS: Mapping[str, Any] = {"k1": 1.2, "b": 0.75, "method": "lucene"}
DENSE_DEFAULTS: Mapping[str, Any] = {"embedder": DEFAULT_EMBEDDER, "batch_size": 1024}
HYBRID_DEFAULTS: Mapping[str, Any] = {**BM25_DEFAULTS, **DENSE_DEFAULTS, "rrf_k": 60, "depth": 100}
KINDS: Mapping[str, Mapping[str, Any]] = {"bm25": BM25_DEFAULTS, "dense": DENSE_DEFAULTS, "hybrid": HYBRID_DEFAULTS}

_SAFE = re.compile(r"[0-9A-Za-z_-]+")
_Saved = TypeVar("_Saved", BM25Retriever, DenseRetriever)


def load_or_build(kind: str, paragraphs: Sequence[Paragraph], index_dir: Path, fingerprint: str,
                  **options: Any) -> Retriever:
    """Return a retriever of ``kind`` over ``paragraphs``, building and saving its index only once.

    The index lives in ``index_dir/<kind>-<fingerprint[:12]>-<options hash>``; the hash
    covers only what changes the index (BM25: k1, b, method and the tokeniser; dense:
    the embedder's ``model_id``), so a changed option never reuses an old index. A
    hybrid retriever stores nothing itself: it fuses the ``bm25`` and ``dense`` indexes,
    each stored under its own name. Saving writes a temporary folder and renames it,
    so a crash or a concurrent build never leaves a half-written index behind.

    Args:
        kind: ``"bm25"``, ``"dense"`` or ``"hybrid"``.
        paragraphs: the corpus, with unique ids, in any order.
        index_dir: the folder holding all indexes (created if needed).
        fingerprint: :func:`hopkit.records.corpus_fingerprint` of ``paragraphs``, which
            the store keeps (``Store.fingerprint(dataset)``); the index's metadata file
            records the same value. Letters, digits, ``-`` and ``_`` only.
        **options: bm25: ``k1``, ``b``, ``method``; dense: ``embedder`` (an
            :class:`Embedder` or a model id such as ``"wordllama:l2_supercat:256"``),
            ``batch_size``; hybrid: all of those plus ``rrf_k`` and ``depth``.

    Returns:
        The retriever (not metered: wrap it in :class:`MeteredRetriever` to count time).

    Raises:
        UnknownNameError: for an unknown kind or option.
        RetrievalError: for a bad fingerprint, or a saved index that does not match
            ``paragraphs`` (its message says which folder to delete).
    """
    _check(kind, options, fingerprint)
    settings = {**KINDS[kind], **options}
    index_dir = Path(index_dir)
    if kind == "bm25":
        return _bm25(paragraphs, index_dir, fingerprint, settings)
    if kind == "dense":
        return _dense(paragraphs, index_dir, fingerprint, settings)
    return HybridRetriever([_bm25(paragraphs, index_dir, fingerprint, settings),
                            _dense(paragraphs, index_dir, fingerprint, settings)],
                           rrf_k=int(settings["rrf_k"]), depth=int(settings["depth"]))


def _check(kind: str, options: Mapping[str, Any], fingerprint: str) -> None:
    if kind not in KINDS:
        raise UnknownNameError("retriever kind", kind, list(KINDS))
    for name in options:
        if name not in KINDS[kind]:
            raise UnknownNameError(f"{kind} retriever option", name, list(KINDS[kind]))
    if not _SAFE.fullmatch(fingerprint):
        raise RetrievalError(f"corpus fingerprint {fingerprint!r} must be letters, digits, '-' or '_' only")


def index_path(index_dir: Path, kind: str, fingerprint: str, identity: Mapping[str, Any]) -> Path:
    """The folder of an index: ``<kind>-<fingerprint[:12]>-<12 hex of the identity's hash>``.

    The hash covers the index format too, so an index of another format is not found
    (and is built anew beside it) rather than refused.
    """
    identity = {**identity, "index_format": INDEX_FORMAT}
    digest = hashlib.sha256(json.dumps(identity, sort_keys=True).encode("utf-8")).hexdigest()[:12]
    return index_dir / f"{kind}-{fingerprint[:12]}-{digest}"


def _bm25(paragraphs: Sequence[Paragraph], index_dir: Path, fingerprint: str,
          settings: Mapping[str, Any]) -> BM25Retriever:
    path, parameters = _bm25_place(index_dir, fingerprint, settings)
    return _load_or_save(path, load=lambda folder: BM25Retriever.load(folder, paragraphs),
                         build=lambda: BM25Retriever.build(paragraphs, **parameters))


def _bm25_place(index_dir: Path, fingerprint: str, settings: Mapping[str, Any]) -> tuple[Path, dict[str, Any]]:
    """The folder of a BM25 index and the parameters it is built with."""
    parameters = {"k1": float(settings["k1"]), "b": float(settings["b"]), "method": str(settings["method"])}
    identity = {**parameters, "tokenizer": TOKENIZER_ID}
    return index_path(index_dir, "bm25", fingerprint, identity), parameters


def load_or_build_bm25(source: ParagraphSource, index_dir: Path, **options: Any) -> BM25Retriever:
    """:func:`load_or_build` of a BM25 index for a corpus too large to hold, read from ``source``.

    The index is the one :func:`load_or_build` saves for the same paragraphs (same folder),
    built in bounded memory and loaded memory-mapped; the paragraphs stay in ``source``
    (e.g. :meth:`hopkit.store.store.Store.corpus`) and are read when a query ranks them.

    Raises:
        UnknownNameError: for an unknown option.
        RetrievalError: as :func:`load_or_build`.
    """
    _check("bm25", options, source.fingerprint)
    path, parameters = _bm25_place(Path(index_dir), source.fingerprint, {**BM25_DEFAULTS, **options})
    return _load_or_save(path, load=lambda folder: BM25Retriever.load_from(folder, source),
                         build=lambda: BM25Retriever.build_from(source, **parameters))


def _dense(paragraphs: Sequence[Paragraph], index_dir: Path, fingerprint: str,
           settings: Mapping[str, Any]) -> DenseRetriever:
    option = settings["embedder"]
    embedder: Embedder = load_embedder(option) if isinstance(option, str) else option
    batch_size = int(settings["batch_size"])
    return _load_or_save(
        index_path(index_dir, "dense", fingerprint, {"model_id": embedder.model_id}),
        load=lambda path: DenseRetriever.load(path, paragraphs, embedder),
        build=lambda: DenseRetriever.build(paragraphs, embedder, batch_size=batch_size),
    )


_HOST = re.sub(r"[^0-9A-Za-z]", "", socket.gethostname())[:32] or "host"
_TMP_OWNER = re.compile(r"\.tmp-(?P<host>[0-9A-Za-z]+)-(?P<pid>\d+)-")
ABANDONED_AFTER_SECONDS = 24 * 3600  # a save folder that names no process of this machine


def _remove_abandoned_saves(path: Path) -> None:
    """Delete the temporary folders that saves of ``path`` left behind when their process was killed.

    A save writes ``.<name>.tmp-<host>-<pid>-<random>`` and renames it: a folder of this host whose
    process is gone is abandoned; one of another host (a shared disk) or of an older hopkit is
    removed only once it is a day old.
    """
    for folder in path.parent.glob(f".{path.name}.tmp-*"):
        owner = _TMP_OWNER.search(folder.name[len(path.name) + 1:])
        if owner is not None and owner["host"] == _HOST:
            abandoned = not process_alive(int(owner["pid"]))
        else:
            try:
                abandoned = time.time() - folder.stat().st_mtime > ABANDONED_AFTER_SECONDS
            except OSError:
                continue
        if abandoned:
            logger.info("removing %s, left by an index save that did not finish", folder)
            shutil.rmtree(folder, ignore_errors=True)


def _load_or_save(path: Path, *, load: Callable[[Path], _Saved], build: Callable[[], _Saved]) -> _Saved:
    if path.exists():
        logger.info("loading the index at %s", path)
        return load(path)
    logger.info("building the index for %s", path)
    retriever = build()
    path.parent.mkdir(parents=True, exist_ok=True)
    _remove_abandoned_saves(path)
    tmp = Path(tempfile.mkdtemp(prefix=f".{path.name}.tmp-{_HOST}-{os.getpid()}-", dir=path.parent))
    try:
        retriever.save(tmp)
        try:
            os.rename(tmp, path)
        except OSError:
            if not path.exists():
                raise
            logger.info("another process saved %s first; keeping its copy", path)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp)
    return retriever
