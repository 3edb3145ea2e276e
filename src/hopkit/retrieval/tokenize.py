"""The one tokenisation BM25 uses, for the index and for every query alike.

A text becomes tokens in three steps, the same ones Elasticsearch's English
analyzer (used by the IRCoT authors) applies:

1. lowercase, drop the possessive ``'s``, split into ``\\w+`` runs;
2. drop English stopwords (Lucene's list);
3. stem with the Snowball English stemmer (PyStemmer).

Indexing (:func:`tokenize_corpus`) and querying (:func:`tokenize`) share
:func:`analyze_word`, so a query can never be tokenised differently from the
index it searches. :data:`TOKENIZER_ID` is saved with every index; change it
whenever this file changes behaviour, so stale indexes are refused.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from typing import Iterable

import Stemmer

TOKENIZER_ID = "hopkit-en-v1:lower+lucene-stop+snowball-english"

# Lucene's English stop set (EnglishAnalyzer.ENGLISH_STOP_WORDS_SET), as Elasticsearch uses.
STOPWORDS_EN: frozenset[str] = frozenset(
    "a an and are as at be but by for if in into is it no not of on or such "
    "that the their then there these they this to was will with".split()
)

_POSSESSIVE = re.compile(r"(?<=\w)['\u2019]s\b")
_WORD = re.compile(r"\w+")
_local = threading.local()  # PyStemmer stemmers must not be shared between threads


def _stemmer() -> Stemmer.Stemmer:
    stemmer = getattr(_local, "stemmer", None)
    if stemmer is None:
        stemmer = Stemmer.Stemmer("english")
        _local.stemmer = stemmer
    return stemmer


def split_words(text: str) -> list[str]:
    """Lowercase ``text``, drop possessive ``'s`` and return its ``\\w+`` runs (no stemming)."""
    return _WORD.findall(_POSSESSIVE.sub("", text.lower()))


def analyze_word(word: str) -> str | None:
    """Turn one lowercased word into its index token, or None for a stopword.

    Args:
        word: a lowercased ``\\w+`` run, as :func:`split_words` returns it.

    Returns:
        The stemmed token, or None if the word is a stopword.
    """
    if word in STOPWORDS_EN:
        return None
    return _stemmer().stemWord(word)


def tokenize(text: str) -> list[str]:
    """Tokenise one text (a query, or a paragraph) exactly as the index is tokenised.

    Args:
        text: any text.

    Returns:
        The tokens in order, repeats kept; empty for an empty or stopword-only text.
    """
    tokens = []
    for word in split_words(text):
        token = analyze_word(word)
        if token is not None:
            tokens.append(token)
    return tokens


@dataclass(frozen=True)
class TokenizedCorpus:
    """Token ids of every document and the vocabulary they index into.

    Has the ``ids`` and ``vocab`` attributes bm25s accepts as a tokenised corpus.
    """

    ids: list[list[int]]
    vocab: dict[str, int]

    def tokens(self) -> list[list[str]]:
        """The documents as token strings (shared string objects, so cheap in memory)."""
        words = [""] * len(self.vocab)
        for token, token_id in self.vocab.items():
            words[token_id] = token
        return [[words[i] for i in doc] for doc in self.ids]


class CorpusTokenizer:
    """Tokenises document after document with :func:`analyze_word`, analysing each distinct
    word once; the vocabulary (token -> id, dense from 0, in order of first appearance)
    grows as documents come."""

    def __init__(self) -> None:
        self.vocab: dict[str, int] = {}
        self._word_ids: dict[str, int] = {}  # raw word -> token id, or -1 for a stopword

    def token_ids(self, text: str) -> list[int]:
        """The token ids of one document, in order, repeats kept."""
        word_ids, doc = self._word_ids, []
        for word in split_words(text):
            token_id = word_ids.get(word)
            if token_id is None:
                token = analyze_word(word)
                token_id = -1 if token is None else self.vocab.setdefault(token, len(self.vocab))
                word_ids[word] = token_id
            if token_id >= 0:
                doc.append(token_id)
        return doc


def tokenize_corpus(texts: Iterable[str]) -> TokenizedCorpus:
    """Tokenise many texts with :class:`CorpusTokenizer`.

    Args:
        texts: the documents.

    Returns:
        Their token ids and the vocabulary (token -> id, ids dense from 0).
    """
    tokenizer = CorpusTokenizer()
    ids = [tokenizer.token_ids(text) for text in texts]
    return TokenizedCorpus(ids=ids, vocab=tokenizer.vocab)
