"""score_question: which metrics apply, budgets, and failures."""

from __future__ import annotations

import pytest

from hopkit.errors import DataError
from hopkit.evaluation.scoring import METRIC_NAMES, QuestionScores, score_question
from hopkit.records import Paragraph, Query

pytestmark = pytest.mark.unit

QUERY = Query(
    id="q1",
    text="Which tower did Gustave Eiffel's company build in Paris?",
    answers=("Eiffel Tower", "La tour Eiffel"),
    gold_paragraph_ids=(1, 2),
    gold_titles=("Eiffel Tower", "Gustave Eiffel"),
)
P1 = Paragraph(1, "Eiffel Tower", "A wrought-iron lattice tower in Paris.")
P2 = Paragraph(2, "Gustave Eiffel", "A French civil engineer.")
P3 = Paragraph(3, "Paris", "Capital of France, home of the Eiffel Tower.")
P4 = Paragraph(4, "Berlin", "Capital of Germany.")


def test_scores_answer_and_retrieval() -> None:
    s = score_question(QUERY, "the Eiffel Tower", [P4, P1, P3])
    assert s == QuestionScores("q1", 1.0, 1.0, 1.0, 0.5, 0.5, 1.0)


def test_no_retrieval_by_design_gives_none() -> None:
    s = score_question(QUERY, "Eiffel", None)
    assert (s.paragraph_recall, s.title_recall, s.answer_recall) == (None, None, None)
    assert s.em == 0.0
    assert s.f1 == pytest.approx(2 / 3)


def test_retrieved_nothing_scores_zero_recall() -> None:
    s = score_question(QUERY, "Eiffel Tower", [])
    assert (s.paragraph_recall, s.title_recall, s.answer_recall) == (0.0, 0.0, 0.0)


def test_budget_limits_every_retrieval_metric() -> None:
    s = score_question(QUERY, "x", [P4, P3, P1, P2], budget=1)
    assert (s.paragraph_recall, s.title_recall, s.answer_recall) == (0.0, 0.0, 0.0)
    s = score_question(QUERY, "x", [P4, P3, P1, P2], budget=2)
    assert (s.paragraph_recall, s.title_recall, s.answer_recall) == (0.0, 0.0, 1.0)


def test_answer_recall_looks_at_titles_too() -> None:
    s = score_question(QUERY, "x", [Paragraph(9, "Eiffel Tower", "It is tall.")])
    assert s.answer_recall == 1.0


def test_query_without_gold_paragraphs_has_no_paragraph_recall() -> None:
    query = Query(id="q2", text="?", answers=("Paris",), gold_titles=("Paris",))
    s = score_question(query, "Paris", [P3])
    assert s.paragraph_recall is None
    assert s.title_recall == 1.0
    query = Query(id="q3", text="?", answers=("Paris",))
    s = score_question(query, "Paris", [P3])
    assert (s.paragraph_recall, s.title_recall, s.answer_recall) == (None, None, 1.0)


def test_yes_no_question_has_no_answer_recall() -> None:
    query = Query(id="q4", text="Is Paris in France?", answers=("yes",), gold_paragraph_ids=(3,))
    s = score_question(query, "Yes.", [Paragraph(3, "Paris", "Yes, yes.")])
    assert s.answer_recall is None
    assert (s.em, s.paragraph_recall) == (1.0, 1.0)
    typed = Query(id="q5", text="?", answers=("Paris",), answer_type="yes_no")
    assert score_question(typed, "Paris", [P3]).answer_recall is None


def test_query_without_answers_raises_with_its_id() -> None:
    query = Query(id="q-missing", text="?", gold_paragraph_ids=(1,))
    with pytest.raises(DataError, match="q-missing"):
        score_question(query, "Paris", [P1])


def test_bad_budget_raises_even_without_gold() -> None:
    query = Query(id="q6", text="?", answers=("Paris",))
    with pytest.raises(ValueError, match="budget"):
        score_question(query, "Paris", [P3], budget=0)


def test_get_by_name() -> None:
    s = score_question(QUERY, "Eiffel Tower", None)
    assert [s.get(m) for m in METRIC_NAMES] == [1.0, 1.0, 1.0, None, None, None, None]  # llm_accuracy: not judged
    with pytest.raises(KeyError, match="unknown metric"):
        s.get("query_id")
