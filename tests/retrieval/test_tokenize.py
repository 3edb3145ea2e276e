"""The one tokenisation shared by BM25 indexing and querying."""

from __future__ import annotations

import threading

import pytest

from hopkit.retrieval.tokenize import STOPWORDS_EN, TOKENIZER_ID, tokenize, tokenize_corpus

pytestmark = pytest.mark.unit

TEXTS = [
    "Who directed the films Einstein's Dreams and The Directors?",
    "The director was directing; directors DIRECT.",
    "Running runners ran in 1999 — naïve café résumé",
    "",
    "the of and is",
]


def test_lowercases_drops_stopwords_and_possessive_and_stems() -> None:
    assert tokenize("The Directors of Einstein's FILMS") == ["director", "einstein", "film"]
    assert tokenize("the of and is a") == []
    assert tokenize("") == []


def test_plural_and_singular_share_a_token() -> None:
    assert tokenize("directors") == tokenize("director") == ["director"]
    assert tokenize("films") == tokenize("film")


def test_corpus_tokenisation_equals_query_tokenisation() -> None:
    corpus = tokenize_corpus(TEXTS)
    assert corpus.tokens() == [tokenize(text) for text in TEXTS]
    assert sorted(corpus.vocab.values()) == list(range(len(corpus.vocab)))


def test_stopwords_are_lucenes_english_set() -> None:
    assert len(STOPWORDS_EN) == 33
    assert {"the", "of", "and", "with"} <= STOPWORDS_EN
    assert "who" not in STOPWORDS_EN
    assert TOKENIZER_ID


def test_same_tokens_from_several_threads() -> None:
    expected = [tokenize(text) for text in TEXTS] * 50
    results: list[list[list[str]]] = []

    def work() -> None:
        results.append([tokenize(text) for text in TEXTS] * 50)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == [expected] * 4
