"""Metric functions against hand-computed cases."""

from __future__ import annotations

import pytest

from hopkit.errors import DataError, HopkitError
from hopkit.evaluation.metrics import (
    answer_recall,
    cover_em,
    exact_match,
    f1,
    normalize_answer,
    paragraph_recall,
    title_recall,
)

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The  Cat, sat!", "cat sat"),
        ("An apple a day", "apple day"),
        ("Theatre and Anarchy", "theatre and anarchy"),  # articles only as whole words
        ("F.W. Murnau", "fw murnau"),
        ("U.S.-born", "usborn"),
        ("  \t\n ", ""),
        ("the", ""),
        ("1,000.5", "10005"),
    ],
)
def test_normalize_answer(text: str, expected: str) -> None:
    assert normalize_answer(text) == expected


def test_exact_match_ignores_case_articles_punctuation() -> None:
    assert exact_match("the Eiffel Tower.", ["Eiffel Tower"]) == 1.0
    assert exact_match("Eiffel Tower, Paris", ["Eiffel Tower"]) == 0.0


def test_exact_match_takes_best_alias() -> None:
    assert exact_match("NYC", ["New York City", "NYC"]) == 1.0
    assert exact_match("New York", ["New York City", "NYC"]) == 0.0


def test_f1_partial_overlap() -> None:
    # pred {barack, obama}, gold {obama}: p = 1/2, r = 1, F1 = 2/3
    assert f1("Barack Obama", ["Obama"]) == pytest.approx(2 / 3)
    # pred "cat sat on mat" (4), gold "cat on mat" (3): p = 3/4, r = 1, F1 = 6/7
    assert f1("the cat sat on the mat", ["cat on a mat"]) == pytest.approx(6 / 7)


def test_f1_counts_repeated_tokens_once_per_occurrence() -> None:
    # common = {y: 2}: p = 2/3, r = 2/3
    assert f1("x y y", ["y y z"]) == pytest.approx(2 / 3)
    # common = {y: 1}: p = 1/3, r = 1
    assert f1("y y x", ["y"]) == pytest.approx(0.5)


def test_f1_takes_best_alias() -> None:
    assert f1("Obama", ["Barack Obama", "Obama"]) == 1.0
    assert f1("Obama", ["Barack Obama"]) == pytest.approx(2 / 3)


@pytest.mark.parametrize(
    ("prediction", "gold", "expected"),
    [
        ("yes", "no", 0.0),
        ("Yes.", "yes", 1.0),
        ("no way", "no", 0.0),  # gold is special and differs: no partial credit
        ("no", "no way", 0.0),  # prediction is special and differs
        ("noanswer", "no answer", 0.0),
        ("no answer", "no answer", 1.0),
    ],
)
def test_f1_yes_no_noanswer_rule(prediction: str, gold: str, expected: float) -> None:
    assert f1(prediction, [gold]) == expected


def test_empty_prediction_scores_zero() -> None:
    assert exact_match("", ["Paris"]) == 0.0
    assert f1("", ["Paris"]) == 0.0
    assert cover_em("", ["Paris"]) == 0.0


def test_gold_that_normalises_to_nothing_matches_only_empty_prediction() -> None:
    assert exact_match("", ["The"]) == 1.0
    assert f1("", ["The"]) == 1.0
    assert cover_em("", ["The"]) == 1.0
    assert cover_em("Paris", ["The"]) == 0.0


def test_cover_em_finds_gold_inside_long_answer() -> None:
    assert cover_em("So the answer is: the Eiffel Tower in Paris.", ["eiffel tower"]) == 1.0
    assert cover_em("Paris", ["Paris, France"]) == 0.0


def test_cover_em_matches_whole_words_only() -> None:
    assert cover_em("I do not know", ["no"]) == 0.0
    assert cover_em("in 1990", ["1"]) == 0.0
    assert cover_em("Parisian food", ["Paris"]) == 0.0
    assert cover_em("no, it is not", ["no"]) == 1.0


def test_cover_em_takes_any_alias() -> None:
    assert cover_em("He was born in NYC", ["New York City", "NYC"]) == 1.0


@pytest.mark.parametrize("metric", [exact_match, f1, cover_em])
def test_answer_metrics_reject_missing_golds(metric: object) -> None:
    with pytest.raises(DataError, match="no gold answers"):
        metric("Paris", [])  # type: ignore[operator]
    with pytest.raises(TypeError, match="sequence"):
        metric("Paris", "Paris")  # type: ignore[operator]


def test_data_error_is_a_hopkit_error() -> None:
    with pytest.raises(HopkitError):
        exact_match("x", ())


def test_paragraph_recall() -> None:
    assert paragraph_recall([5, 3, 9], [3, 7]) == 0.5
    assert paragraph_recall([7, 3], [3, 7]) == 1.0
    assert paragraph_recall([], [3, 7]) == 0.0
    assert paragraph_recall([3, 3, 3], [3, 3]) == 1.0  # duplicates count once


def test_paragraph_recall_applies_budget() -> None:
    assert paragraph_recall([1, 2, 3], [3], budget=2) == 0.0
    assert paragraph_recall([1, 2, 3], [3], budget=3) == 1.0
    retrieved = list(range(100, 120)) + [1]
    assert paragraph_recall(retrieved, [1]) == 0.0  # 21st paragraph, default budget 15


def test_paragraph_recall_rejects_bad_input() -> None:
    with pytest.raises(DataError, match="undefined"):
        paragraph_recall([1, 2], [])
    for bad in (0, -1, True, 2.5):
        with pytest.raises(ValueError, match="budget"):
            paragraph_recall([1], [1], budget=bad)  # type: ignore[arg-type]


def test_title_recall() -> None:
    assert title_recall(["Paris", "paris", "Berlin"], ["PARIS", "Rome"]) == 0.5
    assert title_recall(["A", "B", "C"], ["C"], budget=2) == 0.0
    assert title_recall(["New  York"], ["new york"]) == 1.0
    with pytest.raises(DataError):
        title_recall(["A"], [])


def test_answer_recall_searches_concatenated_text() -> None:
    assert answer_recall(["The capital of", "France is Paris."], ["capital of France"]) == 1.0
    assert answer_recall(["Paris is the capital", "France"], ["capital of France"]) == 0.0
    assert answer_recall(["Born in 1990."], ["1"]) == 0.0
    assert answer_recall(["Born in 1990."], ["2000", "1990"]) == 1.0
    assert answer_recall([], ["Paris"]) == 0.0
    assert answer_recall([], ["The"]) == 0.0
    with pytest.raises(DataError):
        answer_recall(["x"], [])
