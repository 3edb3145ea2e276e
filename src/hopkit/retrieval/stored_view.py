"""Where an index's paragraphs live, and the view an index searches them through.

Every index is built from a :class:`ParagraphSource`, read in id order a batch at a time: the
store's corpus (:class:`hopkit.store.stored_corpus.StoredCorpus`) or paragraphs already in
memory (:class:`MemorySource`). A :class:`SourceView` maps the index's rows to ids and reads
the paragraphs a query ranks.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Protocol

import numpy as np

from hopkit.errors import RetrievalError
from hopkit.records import Paragraph
from hopkit.retrieval.corpus_view import CorpusView, RankedCorpus, in_id_order
from hopkit.retrieval.mapped_files import save_array


# Paragraphs a view keeps after reading them (about 16 MB): every sample corpus whole, and the
# paragraphs a run keeps coming back to on a Wikipedia-size one.
CACHED_PARAGRAPHS = 20_000
READ_WHOLE = 5_000  # paragraphs per read when a small corpus is read whole
ROW_IDS_FILE = "row_ids.npy"  # an index's paragraph id per row, for every process to map


def write_row_ids(directory: Path, corpus: RankedCorpus) -> None:
    """Save the paragraph id of each of the index's rows beside the index."""
    save_array(directory / ROW_IDS_FILE, np.asarray(corpus.ids, dtype=np.int64))


def mapped_row_ids(directory: Path) -> np.ndarray | None:
    """The row ids :func:`write_row_ids` saved, memory-mapped; None for an index saved without them."""
    path = directory / ROW_IDS_FILE
    return np.load(path, mmap_mode="r") if path.is_file() else None


class ParagraphCache:
    """The last ``size`` paragraphs read, by id, safe to share between threads."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._paragraphs: OrderedDict[int, Paragraph] = OrderedDict()
        self.filled = False
        self._lock = threading.Lock()

    def fill(self, batches: Iterable[list[Paragraph]]) -> None:
        """Hold every paragraph of ``batches`` (at most ``size`` are kept)."""
        paragraphs = {p.id: p for batch in batches for p in batch}
        self.put_many(paragraphs)
        self.filled = True

    def get_many(self, ids: Sequence[int]) -> dict[int, Paragraph]:
        with self._lock:
            return {pid: self._paragraphs[pid] for pid in ids if pid in self._paragraphs}

    def put_many(self, paragraphs: Mapping[int, Paragraph]) -> None:
        if self.size <= 0:
            return
        with self._lock:
            self._paragraphs.update(paragraphs)
            while len(self._paragraphs) > self.size:
                self._paragraphs.popitem(last=False)  # the oldest read goes first


class ParagraphSource(Protocol):
    """Where a large corpus lives (:class:`hopkit.store.stored_corpus.StoredCorpus` is one)."""

    fingerprint: str

    def ids(self) -> np.ndarray: ...

    def batches(self, size: int, after: int | None = None) -> Iterator[list[Paragraph]]: ...

    def fetch(self, ids: Collection[int]) -> dict[int, Paragraph]: ...

    def ids_with_titles(self, titles: Collection[str]) -> list[int]: ...


class SourceView(RankedCorpus):
    """The rows of an index built over ``source`` in id order.

    The paragraphs read are kept, the last ``cached`` of them; a corpus of at most ``cached``
    paragraphs is read whole at the first query, so that its queries read nothing more.

    Args:
        source: the corpus's home, asked for the paragraphs a query ranks (a few dozen).
        cached: how many paragraphs to keep (0: none).
        ids: the rows' paragraph ids, ascending, when the index saved them
            (:func:`mapped_row_ids`, shared by the processes that map them); read from
            ``source`` otherwise (8 bytes a paragraph in each process).
    """

    def __init__(self, source: ParagraphSource, *, cached: int = CACHED_PARAGRAPHS,
                 ids: np.ndarray | None = None) -> None:
        self.source = source
        self.ids = source.ids() if ids is None else ids
        self._cache = ParagraphCache(cached)
        self._reading_whole = threading.Lock()

    @property
    def fingerprint(self) -> str:
        return self.source.fingerprint

    def title_positions(self, titles: Collection[str]) -> np.ndarray:
        return self.positions_of(self.source.ids_with_titles(titles))

    def positions_of(self, ids: Collection[int]) -> np.ndarray:
        wanted = np.fromiter(ids, dtype=np.int64)
        positions = np.searchsorted(self.ids, wanted)
        inside = positions < self.ids.size
        found = positions[inside][self.ids[positions[inside]] == wanted[inside]]
        return np.sort(found)

    def _read_whole(self) -> None:
        """A small corpus is read once, whole, by the first thread that needs a paragraph."""
        with self._reading_whole:
            if not self._cache.filled:
                self._cache.fill(self.source.batches(READ_WHOLE))

    def paragraphs_at(self, positions: list[int]) -> list[Paragraph]:
        wanted = self.ids[positions].tolist()
        if not self._cache.filled and len(self) <= self._cache.size:
            self._read_whole()
        found = self._cache.get_many(wanted)
        unread = [pid for pid in wanted if pid not in found]
        if unread:
            fetched = self.source.fetch(unread)
            self._cache.put_many(fetched)
            found.update(fetched)
        missing = [pid for pid in wanted if pid not in found]
        if missing:
            raise RetrievalError(f"paragraphs {missing[:10]} are in the index but no longer in the store; the corpus "
                                 "changed since the index was built: run again to rebuild it")
        return [found[pid] for pid in wanted]


class MemorySource:
    """Paragraphs held in memory, offered as a :class:`ParagraphSource`.

    Args:
        paragraphs: the corpus, unique ids, in any order.
        fingerprint: :func:`hopkit.records.corpus_fingerprint` of ``paragraphs`` when the caller
            has it (the store keeps it); computed otherwise.

    Raises:
        RetrievalError: if two paragraphs share an id.
    """

    def __init__(self, paragraphs: Sequence[Paragraph], fingerprint: str | None = None) -> None:
        self._view = CorpusView(in_id_order(paragraphs))
        self.fingerprint = fingerprint if fingerprint is not None else self._view.fingerprint

    def ids(self) -> np.ndarray:
        return self._view.ids

    def batches(self, size: int, after: int | None = None) -> Iterator[list[Paragraph]]:
        start = 0 if after is None else int(np.searchsorted(self._view.ids, after, side="right"))
        paragraphs = self._view.paragraphs
        for offset in range(start, len(paragraphs), size):
            yield list(paragraphs[offset:offset + size])

    def fetch(self, ids: Collection[int]) -> dict[int, Paragraph]:
        positions = self._view.positions_of(ids)
        return {p.id: p for p in self._view.paragraphs_at(positions.tolist())}

    def ids_with_titles(self, titles: Collection[str]) -> list[int]:
        return self._view.ids[self._view.title_positions(titles)].tolist()
