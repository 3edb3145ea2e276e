"""An index's vocabulary in files every process maps, instead of a dict each one builds.

bm25s keeps the vocabulary as a JSON object that each process loads into a Python dict: on a
Wikipedia-size corpus, millions of tokens and hundreds of MB in every worker. Here the tokens are
sorted by their UTF-8 bytes and written end to end, with their start offsets and their ids
beside them; a lookup is a binary search over the mapped pages, which the processes of one
machine share through the page cache.
"""

from __future__ import annotations

import functools
import mmap
from collections.abc import Callable, Mapping
from pathlib import Path

import numpy as np

from hopkit.errors import RetrievalError
from hopkit.retrieval.mapped_files import save_array, write_atomically

TOKENS_FILE = "vocab.tokens.bin"  # the tokens' UTF-8 bytes, in byte order, end to end
OFFSETS_FILE = "vocab.offsets.npy"  # where each token starts, then where the last one ends (int64)
IDS_FILE = "vocab.ids.npy"  # each token's id, in the same order (int32)
FILES = (TOKENS_FILE, OFFSETS_FILE, IDS_FILE)
WRITTEN_AT_ONCE = 100_000  # tokens encoded per write
REMEMBERED_LOOKUPS = 65_536  # tokens a process keeps the id of, so that common ones are looked up once


def write_vocabulary(directory: Path, vocab: Mapping[str, int]) -> None:
    """Write the three files of ``vocab`` (token -> id) into ``directory``; the offsets file last,
    so that its presence means the other two are whole."""
    ordered = sorted(vocab)  # code point order is UTF-8 byte order
    ids = np.fromiter((vocab[token] for token in ordered), dtype=np.int32, count=len(ordered))
    offsets = np.zeros(len(ordered) + 1, dtype=np.int64)
    np.cumsum(np.fromiter((len(token.encode("utf-8")) for token in ordered), dtype=np.int64, count=len(ordered)),
              out=offsets[1:])

    def write_tokens(path: Path) -> None:
        with path.open("wb") as file:
            for start in range(0, len(ordered), WRITTEN_AT_ONCE):
                file.write("".join(ordered[start:start + WRITTEN_AT_ONCE]).encode("utf-8"))

    write_atomically(directory / TOKENS_FILE, write_tokens)
    save_array(directory / IDS_FILE, ids)
    save_array(directory / OFFSETS_FILE, offsets)


def has_vocabulary(directory: Path) -> bool:
    return all((directory / name).is_file() for name in FILES)


class MappedVocabulary:
    """Token -> id over the files :func:`write_vocabulary` wrote, read through memory maps.

    Raises:
        RetrievalError: if the files disagree with each other (a damaged index).
    """

    def __init__(self, directory: Path) -> None:
        self._offsets = np.load(directory / OFFSETS_FILE, mmap_mode="r")
        self._ids = np.load(directory / IDS_FILE, mmap_mode="r")
        size = (directory / TOKENS_FILE).stat().st_size
        if self._ids.size + 1 != self._offsets.size or int(self._offsets[-1]) != size:
            raise RetrievalError(f"{directory}: the vocabulary files ({', '.join(FILES)}) do not match; "
                                 f"delete {directory} and rebuild the index")
        self._tokens = b""
        if size:
            with open(directory / TOKENS_FILE, "rb") as file:
                self._tokens = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)
        self.get: Callable[[str], int | None] = functools.lru_cache(maxsize=REMEMBERED_LOOKUPS)(self._lookup)

    def __len__(self) -> int:
        return int(self._ids.size)

    def _token(self, row: int) -> bytes:
        return self._tokens[int(self._offsets[row]):int(self._offsets[row + 1])]

    def _lookup(self, token: str) -> int | None:
        """The id of ``token``, or None if the index never saw it."""
        wanted, low, high = token.encode("utf-8"), 0, len(self)
        while low < high:
            middle = (low + high) // 2
            if self._token(middle) < wanted:
                low = middle + 1
            else:
                high = middle
        if low < len(self) and self._token(low) == wanted:
            return int(self._ids[low])
        return None
