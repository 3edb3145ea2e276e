"""BM25 over a corpus left in the store answers exactly as BM25 over the corpus in memory."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from hopkit.errors import RetrievalError
from hopkit.records import ContextParagraph, Corpus, Paragraph
from hopkit.retrieval.bm25 import BM25Retriever
from hopkit.retrieval.dense import DenseRetriever, HashingEmbedder
from hopkit.retrieval.hybrid import HybridRetriever
from hopkit.retrieval.index_store import load_or_build, load_or_build_from
from hopkit.store import Store

pytestmark = pytest.mark.unit

TOPICS = ["film director", "science fiction", "capital city", "river flows", "horror film", "Paris France"]


def corpus_lines(count: int) -> list[ContextParagraph]:
    rng = random.Random(5)
    lines = []
    for i in range(count):
        words = rng.sample(TOPICS, 2)
        lines.append(ContextParagraph(title=f"Article {i % 40}", text=f"{words[0]} and {words[1]} number {i % 9}."))
    return lines  # titles repeat, and so do many texts (duplicates that retrieval returns once)


@pytest.fixture
def store(db_url: str) -> Store:
    store = Store.connect(db_url)
    own = (Paragraph(0, "Ridley Scott", "Ridley Scott is an English film director."),)
    store.add_corpus(Corpus("wiki", own, ()), more=corpus_lines(600))
    return store


QUERIES = ["film director", "science fiction horror", "capital of France", "river", "number 3 city", "unseen"]


@pytest.mark.parametrize("query", QUERIES)
def test_same_hits_as_in_memory(store: Store, query: str) -> None:
    in_memory = BM25Retriever.build(store.paragraphs("wiki"))
    stored = BM25Retriever.build_from(store.corpus("wiki"))
    for k in (1, 5, 150):
        assert stored.retrieve(query, k) == in_memory.retrieve(query, k)
    exclude = {hit.id for hit in in_memory.retrieve(query, 3)} | {10_000}
    assert stored.retrieve(query, 10, exclude=exclude) == in_memory.retrieve(query, 10, exclude=exclude)
    titles = {"Article 3", "Article 17", "Ridley Scott", "missing"}
    assert stored.retrieve(query, 10, titles=titles) == in_memory.retrieve(query, 10, titles=titles)


def test_same_folder_and_index_as_the_in_memory_path(store: Store, tmp_path: Path) -> None:
    stored = load_or_build_from("bm25", store.corpus("wiki"), tmp_path, k1=0.9)
    folders = list(tmp_path.iterdir())
    assert len(folders) == 1
    in_memory = load_or_build("bm25", store.paragraphs("wiki"), tmp_path, store.fingerprint("wiki"), k1=0.9)
    assert list(tmp_path.iterdir()) == folders  # found the index the stored path saved
    assert in_memory.retrieve("film director", 8) == stored.retrieve("film director", 8)


def test_loaded_memory_mapped(store: Store, tmp_path: Path) -> None:
    load_or_build_from("bm25", store.corpus("wiki"), tmp_path)
    loaded = load_or_build_from("bm25", store.corpus("wiki"), tmp_path)
    assert isinstance(loaded.model.scores["data"], np.memmap)
    assert [hit.id for hit in loaded.retrieve("river flows", 3)]


def test_index_of_a_replaced_corpus_is_not_reused(store: Store, tmp_path: Path) -> None:
    old = load_or_build_from("bm25", store.corpus("wiki"), tmp_path)
    store.add_corpus(Corpus("wiki", (Paragraph(0, "Only", "only paragraph about rivers"),), ()), replace=True)
    assert [hit.id for hit in load_or_build_from("bm25", store.corpus("wiki"), tmp_path).retrieve("rivers", 5)] == [0]
    assert len(list(tmp_path.iterdir())) == 2
    with pytest.raises(RetrievalError, match="no longer in the store"):
        old.retrieve("film director", 5)  # ranks paragraphs the store no longer has


def test_unknown_option(store: Store, tmp_path: Path) -> None:
    with pytest.raises(Exception, match="embedder"):
        load_or_build_from("bm25", store.corpus("wiki"), tmp_path, embedder="x")


@pytest.mark.parametrize("index", ["flat", "ivfpq", "hnsw"])
def test_dense_over_the_store_answers_as_dense_in_memory(store: Store, tmp_path: Path, index: str) -> None:
    """Vectors encoded from the store a shard at a time (shards of 128 rows across the 601 paragraphs)."""
    in_memory = DenseRetriever.build(store.paragraphs("wiki"), HashingEmbedder(32))
    stored = load_or_build_from("dense", store.corpus("wiki"), tmp_path, embedder="hashing:32", index=index,
                                shard_size=128, nprobe=1000, rescore=601)
    for query in QUERIES:
        assert stored.retrieve(query, 10) == in_memory.retrieve(query, 10)
    titles = {"Article 3", "Article 17", "Ridley Scott"}
    assert stored.retrieve("film", 10, titles=titles) == in_memory.retrieve("film", 10, titles=titles)
    hybrid = load_or_build_from("hybrid", store.corpus("wiki"), tmp_path, embedder="hashing:32", index=index,
                                shard_size=128, nprobe=1000, rescore=601)
    fused = HybridRetriever([BM25Retriever.build(store.paragraphs("wiki")), in_memory])
    for query in QUERIES:
        assert hybrid.retrieve(query, 10) == fused.retrieve(query, 10)
