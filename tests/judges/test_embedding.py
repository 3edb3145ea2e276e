"""Embedding-cosine judges: the hashing embedder (exact arithmetic) and WordLlama (real weights)."""

import math

import pytest

from hopkit.judges import EmbeddingRelevance, EmbeddingSimilarity, build_judge
from hopkit.usage import track_usage


@pytest.mark.unit
def test_cosines_on_token_count_vectors() -> None:
    judge = EmbeddingSimilarity("hashing:4096")
    same, disjoint, empty = judge.similarity("capital of France", ["France capital", "octopus arms", ""])
    assert same == pytest.approx(1.0) and disjoint == pytest.approx(0.0) and empty == 0.0
    half = judge.similarity("capital France", ["capital octopus"])[0]
    assert half == pytest.approx(0.5)  # one shared token of two, both vectors of norm sqrt(2)
    assert judge.similarity("anything", []) == []


@pytest.mark.unit
def test_relevance_is_timed_under_its_component_and_built_by_name() -> None:
    judge = build_judge("relevance", {"kind": "embedding", "embedder": "hashing:256"})
    assert isinstance(judge, EmbeddingRelevance) and judge.judge_id == "embedding:hashing:256"
    with track_usage() as usage:
        scores = judge.relevance("Paris France", ["Paris is in France", "octopus"])
    assert usage.calls("judge:relevance") == 1 and scores[0] > scores[1]


@pytest.mark.integration
def test_wordllama_puts_a_paraphrase_above_an_unrelated_query() -> None:
    judge = build_judge("similarity", {"kind": "embedding"})
    paraphrase, unrelated = judge.similarity("Who directed the film Titanic?",
                                             ["Which director made Titanic?", "How many arms does an octopus have?"])
    assert math.isfinite(paraphrase) and paraphrase > unrelated
