"""hopkit.calibration's rules: SearChain's θ sweep (Appendix A.4.1: F1 of "confidence > θ" on a 0.1 grid, the
lowest θ among ties), MuSiQue steps as single-hop questions, and the resumable score file."""

from __future__ import annotations

from pathlib import Path

import pytest

from hopkit.calibration.scores import ScoreFile
from hopkit.calibration.searchain import as_question, best_point, score_at, sub_question_pairs, sweep
from hopkit.errors import ConfigError

pytestmark = pytest.mark.unit


def test_the_sweep_keeps_the_best_f1_and_covers_the_readers_scale() -> None:
    confidences = [-0.5, 0.35, 0.8, 2.0, None, 1.2]
    labels = [False, True, True, True, True, False]
    points = sweep(confidences, labels)
    assert points[0].theta == -0.5 and points[-1].theta == 2.0   # below the paper's 1.0, up to the highest
    chosen = best_point(points)
    # θ in [-0.5, 0.3): predicted 0.35, 0.8, 2.0, 1.2 -> tp 3, precision 3/4, recall 3/4 (None is never
    # positive); the lowest θ of the tie is kept
    assert chosen.theta == -0.5 and chosen.f1 == pytest.approx(0.75)
    from_one = best_point(points, 1.0)
    # θ in [1.2, 2.0): only 2.0 -> precision 1, recall 1/4, F1 0.4; θ = 1.0, 1.1: 2.0 and 1.2 -> F1 1/3
    assert from_one.theta == 1.2 and from_one.f1 == pytest.approx(0.4)


def test_the_sweep_of_readings_without_answers_is_empty() -> None:
    assert sweep([None, None], [True, False]) == []
    assert best_point([]) is None


def test_sub_questions_fill_in_earlier_answers_and_ask_triples() -> None:
    row = {"id": "2hop_x", "answer": "Keturah", "answer_aliases": ["Qetura"],
           "question_decomposition": [{"question": "Hagar >> spouse", "answer": "Abraham"},
                                      {"question": "who did #1 marry after the death of sarah", "answer": "Keturah"}]}
    first, second = sub_question_pairs(row)
    assert (first.key, first.question, first.golds) == ("2hop_x#1", "What is the spouse of Hagar?", ("Abraham",))
    assert second.question == "who did Abraham marry after the death of sarah"
    assert second.golds == ("Keturah", "Qetura")   # the last step also takes the question's aliases


def test_a_step_reference_past_the_decomposition_stays_as_written() -> None:
    row = {"id": "x", "question_decomposition": [{"question": "Who is the son of #3?", "answer": "Barack Obama"}]}
    [only] = sub_question_pairs(row)
    assert only.question == "Who is the son of #3?" and only.golds == ("Barack Obama",)
    assert as_question("no triple here") == "no triple here"


def test_the_score_file_resumes_and_refuses_other_settings(tmp_path: Path) -> None:
    path = tmp_path / "scores.json"
    first = ScoreFile(path, {"judge": "llm:a", "hits": 50})
    first.add("q1", {"scores": [1.0]})
    again = ScoreFile(path, {"judge": "llm:a", "hits": 50})
    assert again.items == {"q1": {"scores": [1.0]}}
    with pytest.raises(ConfigError, match="other settings"):
        ScoreFile(path, {"judge": "llm:b", "hits": 50})


def test_the_papers_theta_is_scored_even_when_every_confidence_lies_below_it() -> None:
    confidences, labels = [0.4, 0.2, None], [True, False, True]
    assert all(point.theta < 1.5 for point in sweep(confidences, labels))
    at_paper = score_at(confidences, labels, 1.5)
    assert (at_paper.theta, at_paper.precision, at_paper.recall, at_paper.f1) == (1.5, 0.0, 0.0, 0.0)
    assert score_at(confidences, labels, 0.3).f1 == 2 * 1.0 * 0.5 / 1.5
