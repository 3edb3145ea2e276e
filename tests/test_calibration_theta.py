"""SearChain's θ sweep (Appendix A.4.1): F1 of "confidence > θ" on a 0.1 grid, the lowest θ among ties."""

from __future__ import annotations

import math

import pytest

from hopkit.calibration.searchain import as_question, best_point, sub_question_pairs, sweep

pytestmark = pytest.mark.unit


def test_the_sweep_finds_the_theta_that_separates_the_labels() -> None:
    confidences = [2.4, 1.9, 1.6, 0.4, -1.0, None]
    labels = [True, True, True, False, False, False]
    points = sweep(confidences, labels)
    assert points[0].theta == -1.0 and points[-1].theta == 2.4  # the reader's whole scale
    chosen = best_point(points)
    assert chosen is not None and chosen.theta == 0.4 and chosen.f1 == 1.0  # first θ with only the 3 above it
    from_one = best_point(points, 1.0)
    assert from_one is not None and from_one.theta == 1.0 and from_one.f1 == 1.0
    at_two = next(p for p in points if math.isclose(p.theta, 2.0))
    assert (at_two.precision, round(at_two.recall, 3)) == (1.0, 0.333)


def test_no_answer_read_is_never_above_theta_and_nothing_read_gives_no_points() -> None:
    assert sweep([None, None], [True, False]) == []
    points = sweep([1.2, None], [False, True])
    assert all(p.recall == 0.0 for p in points)


def test_musique_steps_become_single_hop_questions_with_their_answers() -> None:
    row = {"id": "3hop", "answer_aliases": ["B. Obama"],
           "question_decomposition": [{"question": "Hagar >> spouse", "answer": "Abraham"},
                                      {"question": "Who is the son of #1 and #3?", "answer": "Barack Obama"}]}
    first, second = sub_question_pairs(row)
    assert (first.key, first.question, first.golds) == ("3hop#1", "What is the spouse of Hagar?", ("Abraham",))
    assert second.question == "Who is the son of Abraham and #3?"  # a reference past the steps stays as written
    assert second.golds == ("Barack Obama", "B. Obama")
    assert as_question("no triple here") == "no triple here"
