"""Planning questions from a pilot: Connor's fixed n by hand, and the simulated sequential stop."""

from __future__ import annotations

import pytest

from hopkit.evaluation.planning import pilot_differences, plan_questions
from hopkit.evaluation.scoring import QuestionScores

pytestmark = pytest.mark.unit

# 30 pilot questions: 6 won by A, 3 by B, 21 tied (a 0/1 metric: 30% discordant)
PILOT = [1.0] * 6 + [-1.0] * 3 + [0.0] * 21


def test_fixed_n_is_connor_s_formula_by_hand() -> None:
    # mean d^2 = 9/30 = 0.3; n = (1.959964 * sqrt(0.3) + 0.841621 * sqrt(0.3 - 0.01))**2 / 0.01
    #   = (1.073503 + 0.453224)**2 / 0.01 = 233.09, so 234
    plan = plan_questions(PILOT, 0.10, simulations=200)
    assert plan.second_moment == pytest.approx(0.3)
    assert plan.fixed_n == 234 and plan.cap == 936


def test_the_sequential_stop_is_seeded_and_shrinks_with_the_difference() -> None:
    small, large = plan_questions(PILOT, 0.10, simulations=300), plan_questions(PILOT, 0.25, simulations=300)
    assert plan_questions(PILOT, 0.10, simulations=300) == small
    assert large.sequential_mean_n < small.sequential_mean_n and large.fixed_n < small.fixed_n
    assert 0.5 < small.decided_share <= 1.0 and small.sequential_median_n is not None
    assert plan_questions(PILOT, -0.10, simulations=300) == small  # the sign does not matter


def test_a_difference_the_pilot_never_shows_is_refused() -> None:
    with pytest.raises(ValueError, match="cannot be planned from this pilot"):
        plan_questions(PILOT, 0.30)  # the runs differ by 0.3 per question on average: the most a pilot allows
    with pytest.raises(ValueError, match="cannot be planned"):
        plan_questions([0.0] * 10, 0.05)


def test_pilot_differences_pair_by_question_in_run_a_s_order() -> None:
    def score(qid: str, value: float) -> QuestionScores:
        return QuestionScores(qid, value, value, value, None, None, None)

    a = [score("q2", 1.0), score("q1", 0.0), score("q3", 1.0)]
    b = [score("q1", 1.0), score("q2", 1.0)]
    assert pilot_differences(a, b, "em") == [0.0, -1.0]
    assert pilot_differences(a, b, "paragraph_recall") == []
