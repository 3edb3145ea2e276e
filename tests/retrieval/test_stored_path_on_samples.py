"""On the real benchmark samples, BM25 over the store ranks exactly as BM25 over the corpus in memory
did before runs moved to it: saved runs keep their answers."""

from __future__ import annotations

import os
from pathlib import Path

import bm25s
import numpy as np
import pytest

from hopkit.data import load_dataset, pool_corpus, sample_path
from hopkit.retrieval.bm25 import BM25Retriever
from hopkit.retrieval.corpus_view import in_id_order, passage_text
from hopkit.retrieval.tokenize import tokenize_corpus
from hopkit.store import Store

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(not os.environ.get("HOPKIT_DATA_DIR"),
                       reason="HOPKIT_DATA_DIR is not set: point it at the benchmark samples folder to run this"),
]


@pytest.mark.parametrize("name", ["hotpotqa", "2wikimultihopqa", "musique", "strategyqa"])
def test_every_question_ranks_the_same(name: str, tmp_path: Path) -> None:
    store = Store.connect(f"sqlite:///{tmp_path / 'hopkit.db'}")
    corpus = pool_corpus(name, load_dataset(name, sample_path(name)))
    store.add_corpus(corpus)
    in_memory = BM25Retriever.build(store.paragraphs(name))
    in_memory.save(tmp_path / "index")
    stored = BM25Retriever.load_from(tmp_path / "index", store.corpus(name))
    for query in corpus.queries:
        assert stored.retrieve(query.text, 15) == in_memory.retrieve(query.text, 15), query.id
        titles = set(query.gold_titles)
        assert stored.retrieve(query.text, 4, titles=titles) == in_memory.retrieve(query.text, 4, titles=titles)


@pytest.mark.parametrize("name", ["hotpotqa", "musique"])
def test_the_batch_builder_makes_the_index_bm25s_made(name: str) -> None:
    paragraphs = in_id_order(pool_corpus(name, load_dataset(name, sample_path(name))).paragraphs)
    before = bm25s.BM25(k1=1.2, b=0.75, method="lucene")  # how hopkit built its indexes until now
    before.index(tokenize_corpus(passage_text(p) for p in paragraphs), create_empty_token=False, show_progress=False)
    now = BM25Retriever.build(paragraphs).model
    assert now.vocab_dict == before.vocab_dict
    for part in ("data", "indices", "indptr"):
        assert np.array_equal(now.scores[part], before.scores[part]), part


@pytest.mark.parametrize("name", ["hotpotqa", "2wikimultihopqa", "musique", "strategyqa"])
def test_the_faiss_flat_search_ranks_as_scoring_every_vector_in_numpy(name: str, tmp_path: Path) -> None:
    """The dense runs on the samples began with numpy's exact scoring: the FAISS flat index that
    replaced it returns the same paragraphs in the same order, the scores equal within 1e-5."""
    from hopkit.retrieval.dense import DenseRetriever
    from hopkit.retrieval.dense_store import load_or_build_dense
    from hopkit.retrieval.embedders import HashingEmbedder

    store = Store.connect(f"sqlite:///{tmp_path / 'hopkit.db'}")
    corpus = pool_corpus(name, load_dataset(name, sample_path(name)))
    store.add_corpus(corpus)
    flat = load_or_build_dense(store.corpus(name), tmp_path / "indexes", HashingEmbedder(384), index="flat")
    assert flat.candidates is not None
    every_vector = DenseRetriever(flat.vectors, flat.corpus, flat.embedder)
    for query in corpus.queries:
        for k in (4, 15):
            found, expected = flat.retrieve(query.text, k), every_vector.retrieve(query.text, k)
            assert [hit.id for hit in found] == [hit.id for hit in expected], query.id
            assert [hit.score for hit in found] == pytest.approx([hit.score for hit in expected], abs=1e-5)
