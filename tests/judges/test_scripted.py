"""The scripted judges: tables or functions, defaults, recorded calls."""

from __future__ import annotations

import pytest

from hopkit.errors import ConfigError
from hopkit.judges import (AnswerJudge, EntailmentJudge, RelevanceJudge, ScriptedAnswer, ScriptedEntailment,
                           ScriptedRelevance, ScriptedSimilarity, SimilarityJudge, SpanAnswer)
from hopkit.usage import track_usage

pytestmark = pytest.mark.unit


def test_relevance_from_a_table_of_texts_or_a_function() -> None:
    judge = ScriptedRelevance({"gold": 5.0, "noise": -2.0})
    assert isinstance(judge, RelevanceJudge)
    assert judge.relevance("q", ["noise", "gold"]) == [-2.0, 5.0]
    assert judge.calls == [("q", ("noise", "gold"))]
    with pytest.raises(ConfigError, match=r"ScriptedRelevance has no scripted value for 'other' and no default; "
                                          r"scripted: 'gold', 'noise'"):
        judge.relevance("q", ["other"])
    assert ScriptedRelevance({}, default=0.5).relevance("q", ["other"]) == [0.5]
    by_overlap = ScriptedRelevance(lambda query, text: float(query in text))
    assert by_overlap.relevance("Avel", ["Avel is a town", "Bern"]) == [1.0, 0.0]


def test_entailment_answers_and_similarity_by_pair() -> None:
    entailment = ScriptedEntailment({("premise", "hypothesis"): 0.9}, default=0.1)
    assert isinstance(entailment, EntailmentJudge)
    assert entailment.entailment([("premise", "hypothesis"), ("hypothesis", "premise")]) == [0.9, 0.1]
    answer = ScriptedAnswer({("Q?", "passage"): SpanAnswer("Avel", 2.0, 4)})
    assert isinstance(answer, AnswerJudge)
    assert answer.answer([("Q?", "passage")]) == [SpanAnswer("Avel", 2.0, 4)]
    assert answer.calls == [(("Q?", "passage"),)]
    similarity = ScriptedSimilarity({("a", "b"): 1.0})
    assert isinstance(similarity, SimilarityJudge)
    assert similarity.similarity("b", ["a"]) == [1.0]  # either order
    with pytest.raises(ConfigError, match="no scripted value for \\('b', 'c'\\)"):
        similarity.similarity("b", ["c"])
    with pytest.raises(ConfigError, match="must be a mapping or a function"):
        ScriptedSimilarity(3.0)  # type: ignore[arg-type]


def test_scripted_calls_are_timed_like_real_ones() -> None:
    with track_usage() as usage:
        ScriptedRelevance({}, default=0.0).relevance("q", ["a"])
        ScriptedEntailment({}, default=0.0).entailment([("a", "b")])
        ScriptedAnswer({}, default=SpanAnswer("", 0.0)).answer([("a", "b")])
        ScriptedSimilarity({}, default=0.0).similarity("a", ["b"])
    assert {name: usage.calls(name) for name in usage.components} == {
        "judge:relevance": 1, "judge:entailment": 1, "judge:answer": 1, "judge:similarity": 1}
