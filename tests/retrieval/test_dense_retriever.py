"""DenseRetriever with the hashing test embedder (unit) and with WordLlama (integration)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Sequence

import numpy as np
import pytest

from hopkit.errors import RetrievalError, UnknownNameError
from hopkit.records import Paragraph, corpus_fingerprint
from hopkit.retrieval.dense import (
    DenseRetriever,
    Embedder,
    HashingEmbedder,
    SentenceTransformerEmbedder,
    WordLlamaEmbedder,
    load_embedder,
)
from hopkit.retrieval.index_meta import META_FILE
from hopkit.retrieval.index_store import load_or_build
from hopkit.retrieval.protocol import Retriever

PARAGRAPHS = [
    Paragraph(1, "Paris", "Paris is the capital and largest city of France."),
    Paragraph(2, "Berlin", "Berlin is the capital of Germany."),
    Paragraph(3, "Berlin copy", "BERLIN is the capital   of Germany."),
    Paragraph(4, "Alien (film)", "Alien is a 1979 science fiction horror film directed by Ridley Scott."),
    Paragraph(5, "Mount Everest", "Mount Everest is the highest mountain on Earth, in the Himalayas."),
    Paragraph(6, "Photosynthesis", "Plants turn sunlight, water and carbon dioxide into sugar and oxygen."),
]


class WrongShape:
    model_id = "wrong"

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return np.ones((len(texts) + 1, 4), dtype=np.float32)


def ids(hits: list) -> list[int]:
    return [hit.id for hit in hits]


@pytest.fixture(scope="module")
def hashed() -> DenseRetriever:
    return DenseRetriever.build(PARAGRAPHS, HashingEmbedder(64), batch_size=4)


@pytest.mark.unit
def test_semantics_with_hashing_embedder(hashed: DenseRetriever) -> None:
    assert isinstance(hashed, Retriever)
    assert isinstance(HashingEmbedder(), Embedder)
    assert np.allclose(np.linalg.norm(hashed.vectors.astype(np.float32), axis=1), 1.0, atol=2e-3)
    assert hashed.vectors.dtype == np.float16
    assert ids(hashed.retrieve("capital of France", k=1)) == [1]
    hits = hashed.retrieve("capital Germany", k=10)
    assert len({2, 3} & set(ids(hits))) == 1  # identical texts returned once
    assert len(hits) == 5
    assert ids(hashed.retrieve("capital Germany", k=1, exclude={2, 3}))[0] == 1
    assert ids(hashed.retrieve("capital", k=10, titles={"Paris"})) == [1]
    assert hashed.retrieve("   ", k=3) == []
    assert hashed.retrieve("the of", k=3) == []  # the hashing embedder maps stopwords to zero
    assert hashed.retrieve("capital", k=0) == []
    with pytest.raises(RetrievalError, match="k must be"):
        hashed.retrieve("capital", k=-2)


@pytest.mark.unit
def test_a_saved_index_answers_as_the_one_in_memory(hashed: DenseRetriever, tmp_path: Path) -> None:
    fingerprint = corpus_fingerprint(PARAGRAPHS)
    built = load_or_build("dense", PARAGRAPHS, tmp_path, fingerprint, embedder="hashing:64")
    loaded = load_or_build("dense", PARAGRAPHS, tmp_path, fingerprint, embedder="hashing:64")
    assert isinstance(loaded, DenseRetriever) and isinstance(loaded.vectors, np.memmap)
    for query in ["capital of France", "highest mountain", "film horror"]:
        assert built.retrieve(query, k=3) == hashed.retrieve(query, k=3)
        assert loaded.retrieve(query, k=3) == hashed.retrieve(query, k=3)
    (folder,) = tmp_path.glob("vectors-*")
    assert json.loads((folder / META_FILE).read_text())["model_id"] == "hashing:64"


@pytest.mark.unit
def test_build_rejects_bad_input() -> None:
    with pytest.raises(RetrievalError, match="returned shape"):
        DenseRetriever.build(PARAGRAPHS, WrongShape())
    with pytest.raises(RetrievalError, match="empty corpus"):
        DenseRetriever.build([], HashingEmbedder())
    with pytest.raises(RetrievalError, match="batch_size"):
        DenseRetriever.build(PARAGRAPHS, HashingEmbedder(), batch_size=0)


@pytest.mark.unit
def test_load_embedder_specs() -> None:
    assert load_embedder("hashing:16").model_id == "hashing:16"
    with pytest.raises(UnknownNameError, match="unknown embedder 'openai:text-embedding-3'; known: .*minilm"):
        load_embedder("openai:text-embedding-3")
    with pytest.raises(RetrievalError, match="wordllama:<config>:<dim>"):
        load_embedder("wordllama:l2_supercat")
    with pytest.raises(RetrievalError, match="hashing:<dim>"):
        load_embedder("hashing:x")


@pytest.mark.unit
@pytest.mark.skipif(importlib.util.find_spec("sentence_transformers") is not None,
                    reason="sentence-transformers is installed")
def test_sentence_transformers_missing_says_how_to_install() -> None:
    with pytest.raises(RetrievalError, match=r"pip install 'hopkit\[dense\]'"):
        SentenceTransformerEmbedder.load("all-MiniLM-L6-v2")


@pytest.mark.integration
def test_wordllama_offline_retrieval(tmp_path: Path) -> None:
    embedder = WordLlamaEmbedder.load()  # bundled weights, no download
    assert embedder.model_id == "wordllama:l2_supercat:256"
    assert load_embedder("wordllama:l2_supercat:256").model_id == embedder.model_id
    retriever = DenseRetriever.build(PARAGRAPHS, embedder)
    assert retriever.vectors.shape == (6, 256)
    assert ids(retriever.retrieve("Which city is the French capital?", k=1)) == [1]
    assert ids(retriever.retrieve("tallest peak in the world", k=1)) == [5]
    assert ids(retriever.retrieve("how do plants make sugar from light", k=1)) == [6]
    assert ids(retriever.retrieve("sci-fi horror movie", k=1)) == [4]
    loaded = load_or_build("dense", PARAGRAPHS, tmp_path, corpus_fingerprint(PARAGRAPHS), embedder=embedder)
    assert loaded.retrieve("German capital", k=2) == retriever.retrieve("German capital", k=2)


@pytest.mark.integration
def test_hybrid_index_with_the_default_wordllama_embedder(tmp_path: Path) -> None:
    hybrid = load_or_build("hybrid", PARAGRAPHS, tmp_path, corpus_fingerprint(PARAGRAPHS))
    assert ids(hybrid.retrieve("tallest mountain peak on Earth", k=1)) == [5]
    again = load_or_build("hybrid", PARAGRAPHS, tmp_path, corpus_fingerprint(PARAGRAPHS))
    assert again.retrieve("German capital", k=3) == hybrid.retrieve("German capital", k=3)
