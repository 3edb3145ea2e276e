"""A corpus's passage vectors, encoded shard by shard into one float16 file that a killed build resumes.

The build folder holds ``vectors.npy`` (``count x dim`` float16, unit rows, in id order),
allocated whole at the start, and ``progress.json``: what is being built (model, corpus
fingerprint, count, dimension, shard size) and, for each finished shard, the CRC-32 of its
rows. A shard is recorded only after its rows are flushed to disk, so a build killed at any
moment resumes at the first unfinished shard; a shard whose bytes no longer match their CRC,
or lie past the end of a truncated file, is encoded again. When every shard is done the
folder is renamed to its final name in one step: a half-built set of vectors is never used. The
finished folder keeps the shards' CRC-32s in its metadata; a load that finds one no longer matching
moves the folder back here, and the shards that changed are encoded again (:mod:`hopkit.retrieval.dense_store`).
"""

from __future__ import annotations

import json
import logging
import os
import zlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from hopkit.errors import RetrievalError
from hopkit.records import Paragraph
from hopkit.retrieval.corpus_view import passage_text
from hopkit.retrieval.embedders import Embedder, embed_passages
from hopkit.retrieval.mapped_files import CRC_CHUNK
from hopkit.retrieval.stored_view import ParagraphSource

logger = logging.getLogger(__name__)

VECTORS_FILE = "vectors.npy"
PROGRESS_FILE = "progress.json"
SHARD_SIZE = 65_536
ROW_DTYPE = np.float16


@dataclass(frozen=True)
class Shard:
    """Rows ``start`` to ``stop`` (exclusive) of the vector file."""

    number: int
    start: int
    stop: int

    def __len__(self) -> int:
        return self.stop - self.start


def shards_of(count: int, shard_size: int) -> list[Shard]:
    """The shards of ``count`` rows, ``shard_size`` rows each but the last."""
    return [Shard(number, start, min(start + shard_size, count))
            for number, start in enumerate(range(0, count, shard_size))]


def unit_rows(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (all-zero rows stay zero), as float32."""
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return np.divide(vectors, norms, out=np.zeros_like(vectors), where=norms > 0)


def encode_passages(embedder: Embedder, paragraphs: Sequence[Paragraph], batch_size: int) -> np.ndarray:
    """The unit float16 vectors of ``paragraphs`` (title, then text), ``batch_size`` at a time.

    Raises:
        RetrievalError: if the embedder returns the wrong shape or a non-finite value.
    """
    parts = []
    for offset in range(0, len(paragraphs), batch_size):
        texts = [passage_text(p) for p in paragraphs[offset:offset + batch_size]]
        vectors = embed_passages(embedder, texts)
        if vectors.ndim != 2 or vectors.shape[0] != len(texts):
            raise RetrievalError(f"embedder {embedder.model_id!r} returned shape {vectors.shape} for "
                                 f"{len(texts)} texts; expected (len(texts), dim)")
        if not np.isfinite(vectors).all():
            raise RetrievalError(f"embedder {embedder.model_id!r} returned a non-finite value for one of "
                                 f"paragraphs {paragraphs[offset].id}..{paragraphs[offset + len(texts) - 1].id}")
        parts.append(unit_rows(vectors).astype(ROW_DTYPE))
    return np.concatenate(parts)


def first_id_before(ids: np.ndarray, shard: Shard) -> int | None:
    """The id of the row before ``shard`` (where its range read starts), None for the first shard."""
    return int(ids[shard.start - 1]) if shard.start else None


def shard_paragraphs(source: ParagraphSource, shard: Shard, shard_ids: np.ndarray, after: int | None) -> list[Paragraph]:
    """The paragraphs of ``shard`` (ids ``shard_ids``, the first after id ``after``), read from ``source`` in one range.

    Raises:
        RetrievalError: if the source no longer holds exactly those ids (the corpus changed).
    """
    batch = next(iter(source.batches(len(shard), after)), [])
    if [p.id for p in batch] != shard_ids.tolist():
        raise RetrievalError(f"the corpus changed while its vectors were being built (shard {shard.number}, "
                             f"rows {shard.start}..{shard.stop - 1}); run the command again to start over")
    return batch


def local_shards(source: ParagraphSource, ids: np.ndarray, embedder: Embedder, batch_size: int,
                 pending: Iterable[Shard]) -> Iterator[tuple[Shard, np.ndarray]]:
    """Each pending shard with its vectors, encoded in this process."""
    for shard in pending:
        paragraphs = shard_paragraphs(source, shard, ids[shard.start:shard.stop], first_id_before(ids, shard))
        yield shard, encode_passages(embedder, paragraphs, batch_size)


def write_progress(folder: Path, identity: dict[str, Any], shard_size: int, dim: int, done: dict[int, int]) -> None:
    """Record (atomically) what ``folder`` builds and the CRC-32 of each finished shard, by number."""
    progress = {**identity, "shard_size": shard_size, "dim": dim,
                "done": {str(number): crc for number, crc in sorted(done.items())}}
    tmp = folder / f".{PROGRESS_FILE}.{os.getpid()}"
    tmp.write_text(json.dumps(progress), encoding="utf-8")
    os.replace(tmp, folder / PROGRESS_FILE)


def npy_header(path: Path) -> tuple[tuple[int, ...], np.dtype, int]:
    """The shape, dtype and data offset an ``.npy`` file declares (its header only is read).

    Raises:
        OSError, ValueError: the file cannot be read or is not an ``.npy`` file.
    """
    with open(path, "rb") as handle:
        version = np.lib.format.read_magic(handle)
        read_header = (np.lib.format.read_array_header_1_0 if version == (1, 0)
                       else np.lib.format.read_array_header_2_0)
        shape, _, dtype = read_header(handle)
        return tuple(shape), np.dtype(dtype), handle.tell()


def changed_shards(path: Path, offset: int, row_bytes: int, shards: Sequence[Shard],
                   crcs: dict[int, int]) -> list[Shard]:
    """The shards of the vector file at ``path`` (rows from byte ``offset``, ``row_bytes`` each) whose
    bytes no longer have the CRC-32 in ``crcs`` (or none is recorded, or the file ends before them).
    The file is read (not mapped) ``CRC_CHUNK`` bytes at a time, so checking costs no more memory
    than that whatever the file's size.
    """
    changed = []
    with open(path, "rb") as handle:
        for shard in shards:
            handle.seek(offset + shard.start * row_bytes)
            left, crc = len(shard) * row_bytes, 0
            while left:
                chunk = handle.read(min(left, CRC_CHUNK))
                if not chunk:
                    break
                crc = zlib.crc32(chunk, crc)
                left -= len(chunk)
            if left or crcs.get(shard.number) != crc:
                changed.append(shard)
    return changed


class VectorBuild:
    """The folder a set of passage vectors is built in, resumed from, then published.

    Args:
        folder: the build folder (created if needed).
        identity: what the vectors are of: ``model_id``, ``fingerprint``, ``count``.
        shard_size: rows per shard for a new build (a resumed one keeps its own).
    """

    def __init__(self, folder: Path, identity: dict[str, Any], shard_size: int = SHARD_SIZE) -> None:
        if shard_size < 1:
            raise RetrievalError(f"shard_size must be >= 1, got {shard_size}")
        self.folder = Path(folder)
        self.identity = identity
        self.shard_size = shard_size
        self.dim: int | None = None
        self.done: dict[int, int] = {}
        self._rows: np.memmap | None = None
        self._resume()

    @property
    def count(self) -> int:
        return int(self.identity["count"])

    def shards(self) -> list[Shard]:
        return shards_of(self.count, self.shard_size)

    def pending(self) -> list[Shard]:
        """The shards still to encode, in order."""
        return [shard for shard in self.shards() if shard.number not in self.done]

    def rows_done(self) -> int:
        return sum(len(shard) for shard in self.shards() if shard.number in self.done)

    def _resume(self) -> None:
        progress = self.folder / PROGRESS_FILE
        if not progress.is_file():
            return
        try:
            saved = json.loads(progress.read_text(encoding="utf-8"))
            same = {key: saved.get(key) for key in self.identity} == self.identity
            shard_size, dim = int(saved["shard_size"]), int(saved["dim"])
            done = {int(number): int(crc) for number, crc in saved["done"].items()}
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
            logger.warning("%s: unreadable (%s); encoding every shard again", progress, error)
            return
        if not same:
            logger.warning("%s: a build of other vectors; encoding every shard again", progress)
            return
        self.shard_size, self.dim = shard_size, dim
        rows = self._open_rows(create=False)
        if rows is None:
            self.dim = None
            return
        by_number = {shard.number: shard for shard in self.shards()}
        recorded = [by_number[number] for number in sorted(done) if number in by_number]
        changed = {shard.number for shard in changed_shards(self.folder / VECTORS_FILE, rows.offset,
                                                            rows.shape[1] * rows.itemsize, recorded, done)}
        self.done = {shard.number: done[shard.number] for shard in recorded if shard.number not in changed}
        lost = len(done) - len(self.done)
        if lost:
            logger.warning("%s: %d finished shard(s) no longer match what was written; encoding them again",
                           self.folder / VECTORS_FILE, lost)
        if self.done:
            logger.info("resuming the vectors in %s: %d of %d shards done", self.folder, len(self.done),
                        len(self.shards()))

    def _open_rows(self, create: bool) -> np.memmap | None:
        """The vector file, memory-mapped for writing; a truncated one is extended (its lost rows'
        shards then fail their CRC and are encoded again). None when there is none to resume."""
        path = self.folder / VECTORS_FILE
        shape = (self.count, self.dim)
        if create:
            self.folder.mkdir(parents=True, exist_ok=True)
            self._rows = np.lib.format.open_memmap(path, mode="w+", dtype=ROW_DTYPE, shape=shape)
            return self._rows
        try:
            found_shape, found_dtype, offset = npy_header(path)
        except (OSError, ValueError) as error:
            logger.warning("%s: unreadable (%s); encoding every shard again", path, error)
            return None
        if tuple(found_shape) != shape or np.dtype(found_dtype) != ROW_DTYPE:
            logger.warning("%s: holds %s %s rows, not %s; encoding every shard again", path, found_shape,
                           found_dtype, shape)
            return None
        expected = offset + self.count * int(self.dim or 0) * ROW_DTYPE().itemsize
        if os.path.getsize(path) < expected:
            logger.warning("%s: truncated; the shards past its end are encoded again", path)
            os.truncate(path, expected)
        self._rows = np.memmap(path, dtype=ROW_DTYPE, mode="r+", offset=offset, shape=shape)
        return self._rows

    def write(self, shard: Shard, rows: np.ndarray) -> None:
        """Store one encoded shard and record it as done.

        Raises:
            RetrievalError: if ``rows`` do not fit the shard or the dimension of the others.
        """
        if rows.ndim != 2 or rows.shape[0] != len(shard):
            raise RetrievalError(f"shard {shard.number}: {rows.shape} vectors for {len(shard)} paragraphs")
        if self.dim is None:
            self.dim = int(rows.shape[1])
            self._open_rows(create=True)
            self.done.clear()
        if rows.shape[1] != self.dim:
            raise RetrievalError(f"shard {shard.number}: vectors of dimension {rows.shape[1]}, the others "
                                 f"{self.dim}; the model changed during the build")
        assert self._rows is not None
        data = np.ascontiguousarray(rows, dtype=ROW_DTYPE)
        # written with pwrite, not through the mapping: the file's pages do not count in this process's memory
        with open(self._rows.filename, "r+b") as handle:
            os.pwrite(handle.fileno(), data.data, self._rows.offset + shard.start * self.dim * data.itemsize)
            os.fdatasync(handle.fileno())
        self.done[shard.number] = zlib.crc32(data.data)
        self._save_progress()

    def _save_progress(self) -> None:
        assert self.dim is not None
        write_progress(self.folder, self.identity, self.shard_size, self.dim, self.done)

    def run(self, encoded: Iterable[tuple[Shard, np.ndarray]], on_rows: Callable[[int], None]) -> None:
        """Write each ``(shard, vectors)`` as it comes, calling ``on_rows`` with its row count."""
        for shard, rows in encoded:
            self.write(shard, rows)
            on_rows(len(shard))
        self._rows = None
