"""The lexical similarity judge: overlap of BM25 token sets."""

from __future__ import annotations

import pytest

from hopkit.errors import ConfigError
from hopkit.judges import LexicalSimilarity, SimilarityJudge
from hopkit.judges.lexical import token_overlap
from hopkit.usage import track_usage

pytestmark = pytest.mark.unit


def test_queries_with_the_same_bm25_tokens_are_duplicates() -> None:
    judge = LexicalSimilarity()
    assert isinstance(judge, SimilarityJudge) and judge.judge_id == "lexical:f1"
    scores = judge.similarity("Who directed Titanic?", ["Titanic, who directed it", "Who directs Titanic?",
                                                        "When was Titanic released?", "Where is Avel?"])
    assert scores[:2] == [1.0, 1.0]  # stopwords, case, punctuation and stems aside, the same
    assert scores[2] == pytest.approx(2 * 1 / (3 + 3))  # {titan} shared of {who, direct, titan} / {titan, releas, when}
    assert scores[3] == 0.0
    assert judge.similarity("x", []) == []


def test_f1_and_jaccard_on_token_sets() -> None:
    a, b = frozenset({"x", "y", "z"}), frozenset({"y", "z", "w", "v"})
    assert token_overlap(a, b, "f1") == pytest.approx(2 * 2 / 7)
    assert token_overlap(a, b, "jaccard") == pytest.approx(2 / 5)
    assert token_overlap(frozenset(), frozenset(), "f1") == 1.0  # "the a" and "of it": nothing tells them apart
    assert token_overlap(a, frozenset(), "jaccard") == 0.0
    judge = LexicalSimilarity("jaccard")
    assert judge.similarity("river Avel market", ["Avel river", "the market"]) == pytest.approx([2 / 3, 1 / 3])


def test_an_unknown_measure_is_refused_and_calls_are_timed() -> None:
    with pytest.raises(ConfigError, match=r"measure': expected one of 'f1', 'jaccard', got 'cosine'"):
        LexicalSimilarity("cosine")  # type: ignore[arg-type]
    with track_usage() as usage:
        LexicalSimilarity().similarity("a b", ["b c", "c d"])
    assert usage.calls("judge:similarity") == 1 and usage.calls("model") == 0
