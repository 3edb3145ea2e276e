"""Build a bm25s index from a stream of text batches, in memory that grows with the index only.

bm25s builds from a Python list of token lists (tens of bytes per token); this builder keeps,
per batch, only numpy arrays of (document, token, count), and computes the scores bm25s would,
with the same arithmetic, so the saved index is the one ``bm25s.BM25.index`` makes.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Sequence

import bm25s
import numpy as np

from hopkit.errors import RetrievalError
from hopkit.retrieval.tokenize import CorpusTokenizer

_TOKEN_BITS = 32
SCORE_CHUNK = 4_000_000


def _idf(method: str, df: int, n_docs: int) -> float:
    if method == "lucene":
        return math.log(1 + (n_docs - df + 0.5) / (df + 0.5))
    if method == "robertson":
        return math.log(max(1.0, (n_docs - df + 0.5) / (df + 0.5)))
    return math.log(n_docs / df)  # atire


class _Postings:
    """(document, token, term count) of every distinct token of every document, batch by batch."""

    def __init__(self) -> None:
        self.docs: list[np.ndarray] = []
        self.tokens: list[np.ndarray] = []
        self.counts: list[np.ndarray] = []
        self.lengths: list[np.ndarray] = []
        self.n_docs = 0

    def add(self, documents: Sequence[list[int]]) -> None:
        lengths = np.fromiter((len(doc) for doc in documents), dtype=np.int64, count=len(documents))
        flat = np.fromiter(itertools.chain.from_iterable(documents), dtype=np.int64, count=int(lengths.sum()))
        local = np.repeat(np.arange(len(documents), dtype=np.int64), lengths)
        pairs, counts = np.unique((local << _TOKEN_BITS) | flat, return_counts=True)  # by document, then token
        self.docs.append(((pairs >> _TOKEN_BITS) + self.n_docs).astype(np.int32))
        self.tokens.append((pairs & ((1 << _TOKEN_BITS) - 1)).astype(np.int32))
        self.counts.append(counts.astype(np.float32))
        self.lengths.append(lengths)
        self.n_docs += len(documents)


def _joined(parts: list[np.ndarray], dtype: type) -> np.ndarray:
    """The parts as one array; the list is emptied so that they are freed as soon as copied."""
    joined = np.concatenate(parts) if parts else np.empty(0, dtype=dtype)
    parts.clear()
    return joined


def build_bm25(batches: Iterable[Sequence[str]], *, k1: float, b: float, method: str) -> bm25s.BM25:
    """An indexed ``bm25s.BM25`` over the texts, which come in batches (rows in stream order).

    Raises:
        RetrievalError: if no text holds an indexable token.
    """
    tokenizer = CorpusTokenizer()
    postings = _Postings()
    for texts in batches:
        postings.add([tokenizer.token_ids(text) for text in texts])
    if not tokenizer.vocab:
        raise RetrievalError("every paragraph of the corpus is empty or stopwords only; nothing to index")
    n_docs, n_vocab = postings.n_docs, len(tokenizer.vocab)
    lengths = _joined(postings.lengths, np.int64)
    docs = _joined(postings.docs, np.int32)
    tokens = _joined(postings.tokens, np.int32)
    counts = _joined(postings.counts, np.float32)
    frequencies = np.bincount(tokens, minlength=n_vocab)
    idf = np.array([_idf(method, int(df), n_docs) for df in frequencies.tolist()], dtype=np.float32)
    average = lengths.mean()
    scores = np.empty(counts.size, dtype=np.float32)
    for start in range(0, counts.size, SCORE_CHUNK):  # bounds the float64 temporaries
        part = slice(start, start + SCORE_CHUNK)
        scores[part] = _scores(method, counts[part], lengths[docs[part]], float(k1), float(b), average,
                               idf[tokens[part]])
    del counts, lengths
    order = np.argsort(tokens, kind="stable")  # by token, then (already) by document
    del tokens
    data = scores[order]
    del scores
    indices = docs[order]
    del docs, order
    indptr = np.zeros(n_vocab + 1, dtype=np.int64)
    np.cumsum(frequencies, out=indptr[1:])
    model = bm25s.BM25(k1=k1, b=b, method=method)
    model.scores = {"data": data, "indices": indices, "indptr": indptr, "num_docs": n_docs}
    model.vocab_dict = tokenizer.vocab
    model.unique_token_ids_set = set(tokenizer.vocab.values())
    model.nonoccurrence_array = None
    return model


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
