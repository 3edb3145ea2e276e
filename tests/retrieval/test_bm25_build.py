"""The batch-by-batch BM25 builder makes, bit for bit, the index bm25s itself makes."""

from __future__ import annotations

import random

import bm25s
import numpy as np
import pytest

from hopkit.errors import RetrievalError
from hopkit.retrieval.bm25_build import build_bm25
from hopkit.retrieval.tokenize import tokenize_corpus

pytestmark = pytest.mark.unit

WORDS = [f"word{i}" for i in range(800)] + ["the", "and", "running", "runs", "Paris", "paris's"]


def texts(count: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    made = [" ".join(rng.choices(WORDS, k=rng.randint(0, 40))) for _ in range(count)]
    made[5] = "the and"  # stopwords only: a document with no token
    return made


def by_bm25s(corpus: list[str], k1: float, b: float, method: str) -> bm25s.BM25:
    model = bm25s.BM25(k1=k1, b=b, method=method)
    model.index(tokenize_corpus(corpus), create_empty_token=False, show_progress=False)
    return model


@pytest.mark.parametrize("method", ["lucene", "robertson", "atire"])
@pytest.mark.parametrize(("k1", "b"), [(1.2, 0.75), (0.5, 0.0), (2.0, 1.0)])
def test_same_arrays_as_bm25s(method: str, k1: float, b: float) -> None:
    corpus = texts(1500)
    expected = by_bm25s(corpus, k1, b, method)
    built = build_bm25([corpus[i:i + 333] for i in range(0, len(corpus), 333)], k1=k1, b=b, method=method)

    assert built.vocab_dict == expected.vocab_dict
    assert built.scores["num_docs"] == expected.scores["num_docs"] == 1500
    for name in ("data", "indices", "indptr"):
        assert built.scores[name].dtype == expected.scores[name].dtype, name
        assert np.array_equal(built.scores[name], expected.scores[name]), name


def test_batch_size_does_not_matter() -> None:
    corpus = texts(300, seed=3)
    one = build_bm25([corpus], k1=1.2, b=0.75, method="lucene")
    many = build_bm25([[text] for text in corpus], k1=1.2, b=0.75, method="lucene")
    for name in ("data", "indices", "indptr"):
        assert np.array_equal(one.scores[name], many.scores[name])


def test_scores_rank_like_bm25s() -> None:
    corpus = texts(400, seed=11)
    expected, built = by_bm25s(corpus, 1.2, 0.75, "lucene"), build_bm25([corpus], k1=1.2, b=0.75, method="lucene")
    query = [built.vocab_dict[token] for token in ("word1", "word2", "run") if token in built.vocab_dict]
    assert np.array_equal(built.get_scores_from_ids(query), expected.get_scores_from_ids(query))


def test_nothing_to_index() -> None:
    with pytest.raises(RetrievalError, match="nothing to index"):
        build_bm25([["the and", ""], []], k1=1.2, b=0.75, method="lucene")


def test_scores_computed_in_chunks_are_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    corpus = texts(500, seed=13)
    whole = build_bm25([corpus], k1=1.2, b=0.75, method="atire")
    monkeypatch.setattr("hopkit.retrieval.bm25_build.SCORE_CHUNK", 97)
    chunked = build_bm25([corpus], k1=1.2, b=0.75, method="atire")
    assert np.array_equal(whole.scores["data"], chunked.scores["data"])


def test_postings_wait_in_the_spill_folder_between_passes_and_are_removed(tmp_path, monkeypatch) -> None:
    from hopkit.retrieval import bm25_build

    spilled: dict[str, int] = {}
    read_back = bm25_build._SpilledPostings.batches

    def batches_seen(self):  # type: ignore[no-untyped-def]
        spilled.update({path.name: path.stat().st_size for path in tmp_path.rglob("*.bin")})
        yield from read_back(self)

    monkeypatch.setattr(bm25_build._SpilledPostings, "batches", batches_seen)
    model = build_bm25([texts(200, seed=5)], k1=1.2, b=0.75, method="lucene", spill_folder=tmp_path)

    postings = model.scores["data"].size
    assert spilled == {"docs.bin": 4 * postings, "tokens.bin": 4 * postings, "counts.bin": 4 * postings}
    assert list(tmp_path.iterdir()) == []


def test_nothing_to_index_leaves_no_spilled_postings(tmp_path) -> None:
    with pytest.raises(RetrievalError, match="nothing to index"):
        build_bm25([["the and"]], k1=1.2, b=0.75, method="lucene", spill_folder=tmp_path)
    assert list(tmp_path.iterdir()) == []
