"""Build a bm25s index from a stream of text batches, in memory that grows with the index only.

bm25s builds from a Python list of token lists (tens of bytes per token). This builder makes the
same index in two passes over the texts' postings, (document, token, count) of each distinct token
of each document:

1. tokenise batch by batch, writing each batch's postings to a temporary folder and keeping only
   each document's length and each token's document frequency;
2. read the batches back in order, score their postings with the arithmetic bm25s uses, and
   write each one at its final place in the token-major arrays (each token's postings follow
   document order, as bm25s's stable sort leaves them).

At its peak it holds the finished index (8 bytes a posting) and one batch, never all postings
at once, so the saved index is the one ``bm25s.BM25.index`` makes, bit for bit.
"""

from __future__ import annotations

import itertools
import math
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

import bm25s
import numpy as np

from hopkit.errors import RetrievalError
from hopkit.retrieval.tokenize import CorpusTokenizer

_TOKEN_BITS = 32
SCORE_CHUNK = 4_000_000
_COLUMNS = (("docs", np.int32), ("tokens", np.int32), ("counts", np.float32))


def _idf(method: str, df: int, n_docs: int) -> float:
    if method == "lucene":
        return math.log(1 + (n_docs - df + 0.5) / (df + 0.5))
    if method == "robertson":
        return math.log(max(1.0, (n_docs - df + 0.5) / (df + 0.5)))
    return math.log(n_docs / df)  # atire


def _postings_of(documents: Sequence[list[int]], first_doc: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(document, token, term count) of each distinct token of each document, by document then token."""
    lengths = np.fromiter((len(doc) for doc in documents), dtype=np.int64, count=len(documents))
    flat = np.fromiter(itertools.chain.from_iterable(documents), dtype=np.int64, count=int(lengths.sum()))
    local = np.repeat(np.arange(len(documents), dtype=np.int64), lengths)
    pairs, counts = np.unique((local << _TOKEN_BITS) | flat, return_counts=True)
    docs = ((pairs >> _TOKEN_BITS) + first_doc).astype(np.int32)
    tokens = (pairs & ((1 << _TOKEN_BITS) - 1)).astype(np.int32)
    return docs, tokens, counts.astype(np.float32)


class _SpilledPostings:
    """Every batch's postings in files of ``folder``; each document's length and each token's
    document frequency in memory."""

    def __init__(self, folder: Path) -> None:
        self._paths = {name: folder / f"{name}.bin" for name, _ in _COLUMNS}
        self._files = {name: path.open("wb") for name, path in self._paths.items()}
        self._batch_sizes: list[int] = []
        self._lengths: list[np.ndarray] = []
        self.frequencies = np.zeros(0, dtype=np.int64)
        self.n_docs = 0

    def add(self, documents: Sequence[list[int]]) -> None:
        columns = dict(zip(self._files, _postings_of(documents, self.n_docs)))
        for name, values in columns.items():
            values.tofile(self._files[name])
        in_batch = np.bincount(columns["tokens"])
        if in_batch.size > self.frequencies.size:
            self.frequencies = np.pad(self.frequencies, (0, in_batch.size - self.frequencies.size))
        self.frequencies[:in_batch.size] += in_batch
        self._batch_sizes.append(columns["docs"].size)
        self._lengths.append(np.fromiter((len(doc) for doc in documents), dtype=np.int64, count=len(documents)))
        self.n_docs += len(documents)

    def lengths(self) -> np.ndarray:
        return np.concatenate(self._lengths) if self._lengths else np.empty(0, dtype=np.int64)

    def batches(self) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """Each batch's (documents, tokens, counts), in the order added."""
        for file in self._files.values():
            file.close()
        readers = [self._paths[name].open("rb") for name, _ in _COLUMNS]
        try:
            for size in self._batch_sizes:
                docs, tokens, counts = (np.fromfile(reader, dtype=dtype, count=size)
                                        for reader, (_, dtype) in zip(readers, _COLUMNS))
                yield docs, tokens, counts
        finally:
            for reader in readers:
                reader.close()


def build_bm25(batches: Iterable[Sequence[str]], *, k1: float, b: float, method: str,
               spill_folder: Path | None = None) -> bm25s.BM25:
    """An indexed ``bm25s.BM25`` over the texts, which come in batches (rows in stream order).

    Args:
        spill_folder: where the postings wait between the two passes (12 bytes a posting; the
            system's temporary folder by default, ``TMPDIR``); removed when done.

    Raises:
        RetrievalError: if no text holds an indexable token.
    """
    tokenizer = CorpusTokenizer()
    with tempfile.TemporaryDirectory(prefix="hopkit-bm25-postings-", dir=spill_folder) as folder:
        postings = _SpilledPostings(Path(folder))
        for texts in batches:
            postings.add([tokenizer.token_ids(text) for text in texts])
        vocab = tokenizer.vocab
        del tokenizer  # its word -> id memo, as large as the vocabulary, is not needed any more
        if not vocab:
            raise RetrievalError("every paragraph of the corpus is empty or stopwords only; nothing to index")
        n_vocab = len(vocab)
        frequencies = np.pad(postings.frequencies, (0, n_vocab - postings.frequencies.size))
        indptr = np.zeros(n_vocab + 1, dtype=np.int64)
        np.cumsum(frequencies, out=indptr[1:])
        idf = np.array([_idf(method, int(df), postings.n_docs) for df in frequencies.tolist()], dtype=np.float32)
        data, indices = _placed(postings, indptr, idf, method, float(k1), float(b))
    model = bm25s.BM25(k1=k1, b=b, method=method)
    model.scores = {"data": data, "indices": indices, "indptr": indptr, "num_docs": postings.n_docs}
    model.vocab_dict = vocab
    model.unique_token_ids_set = None  # bm25s's own retrieve() needs it; hopkit's does not (hundreds of MB)
    model.nonoccurrence_array = None
    return model


def _placed(postings: _SpilledPostings, indptr: np.ndarray, idf: np.ndarray, method: str, k1: float,
            b: float) -> tuple[np.ndarray, np.ndarray]:
    """The token-major score and document arrays, filled batch by batch at each token's next free place."""
    lengths = postings.lengths()
    average = lengths.mean()
    data = np.empty(int(indptr[-1]), dtype=np.float32)
    indices = np.empty(int(indptr[-1]), dtype=np.int32)
    next_free = indptr[:-1].copy()
    for docs, tokens, counts in postings.batches():
        if not tokens.size:
            continue
        scores = np.empty(counts.size, dtype=np.float32)
        for start in range(0, counts.size, SCORE_CHUNK):  # bounds the float64 temporaries
            part = slice(start, start + SCORE_CHUNK)
            scores[part] = _scores(method, counts[part], lengths[docs[part]], k1, b, average, idf[tokens[part]])
        order = np.argsort(tokens, kind="stable")  # by token, then (already) by document
        by_token = tokens[order]
        firsts = np.flatnonzero(np.concatenate(([True], by_token[1:] != by_token[:-1])))
        group_sizes = np.diff(np.append(firsts, by_token.size))
        group_tokens = by_token[firsts]
        places = np.repeat(next_free[group_tokens] - firsts, group_sizes) + np.arange(by_token.size)
        data[places] = scores[order]
        indices[places] = docs[order]
        next_free[group_tokens] += group_sizes
    return data, indices


def _scores(method: str, tf: np.ndarray, doc_length: np.ndarray, k1: float, b: float, average: np.float64,
            idf: np.ndarray) -> np.ndarray:
    """Each posting's score, as bm25s 0.3 computes it: the term-frequency part in float64
    (float32 counts against a float64 length norm), times the float32 idf, kept as float32."""
    norm = (1 - b) + b * doc_length / average
    if method == "atire":
        part = (tf * (k1 + 1)) / (tf + k1 * norm)
    else:
        part = tf / (k1 * norm + tf)
    return (idf * part).astype(np.float32)
