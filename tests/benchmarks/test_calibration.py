"""The calibration scripts' δ summary, their sections, and the thresholds file qa_bench reads (no model is
loaded); the θ sweep and the score file are hopkit.calibration's (tests/test_calibration_rules.py)."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType
from typing import Callable

import pytest

from hopkit.calibration.searchain import ThetaPoint

pytestmark = pytest.mark.unit


@pytest.fixture(scope="module")
def searchain_calibration(load_benchmark: Callable[[str], ModuleType]) -> ModuleType:
    return load_benchmark("searchain_calibration")


@pytest.fixture(scope="module")
def migres_calibration(load_benchmark: Callable[[str], ModuleType]) -> ModuleType:
    return load_benchmark("migres_calibration")


@pytest.fixture(scope="module")
def thresholds(load_benchmark: Callable[[str], ModuleType]) -> ModuleType:
    return load_benchmark("thresholds")


def test_delta_is_the_largest_value_keeping_a_passage_for_80_percent(migres_calibration: ModuleType) -> None:
    items = {f"q{i}": {"scores": scores, "seconds": 2.0}
             for i, scores in enumerate([[5.0, 1.0], [4.0], [3.0, 2.5], [2.0, -1.0], [1.0]])}
    result = migres_calibration.summary(items, "multihop")
    assert result["value"] == 2.0 and result["questions"] == 5
    assert result["coverage"] == 0.8
    assert result["passages_kept_per_question"] == pytest.approx((1 + 1 + 2 + 1 + 0) / 5)
    assert result["coverage_at_paper_delta"] == pytest.approx(0.6)   # 5.0, 4.0 and 3.0 reach the paper's 3.0
    assert migres_calibration.coverage_at([[3.0], [2.9]], 3.0) == 0.5


def test_delta_on_a_rerank_cut_uses_the_first_hits_and_measures_what_the_cut_loses(
        migres_calibration: ModuleType) -> None:
    items = {f"q{i}": {"scores": scores, "seconds": 2.0 * len(scores)}
             for i, scores in enumerate([[5.0, 1.0, 6.0], [4.0, 0.0, 0.0], [0.5, 0.0, 3.0], [2.0], [1.0]])}
    result = migres_calibration.summary(items, "multihop", rerank_top=2)
    # best of the first two hits: 5, 4, 0.5, 2, 1 -> 80% keep one at δ = 1.0
    assert result["value"] == 1.0 and result["rerank_top"] == 2 and result["seconds_per_passage"] == 2.0
    # scored past the cut: q0, q1, q2; at δ = 1: q0 keeps 5, 1, 6 (6 past), q1 keeps 4, q2 keeps only 3 (past)
    assert result["cut"] == {"questions": 3, "passages_past_cut": pytest.approx(2 / 5, abs=1e-4),
                             "questions_only_past_cut": pytest.approx(1 / 3, abs=1e-4)}
    assert migres_calibration.cut_loss([[1.0], [2.0, 3.0]], 2, 0.0) is None


def test_an_uncalibrated_threshold_is_refused_with_its_command(thresholds: ModuleType, tmp_path: Path) -> None:
    path = tmp_path / "thresholds.json"
    with pytest.raises(thresholds.NotCalibrated, match="hopkit campaign calibrate-migres --llm m --task strategyqa"):
        thresholds.calibrated(thresholds.MIGRES_RELEVANCE, "m", "strategyqa", path)
    thresholds.store_threshold(thresholds.MIGRES_RELEVANCE, "m", "strategyqa", {"value": -0.4, "questions": 20}, path)
    thresholds.store_threshold(thresholds.SEARCHAIN_CONFIDENCE, "m", "all", {"value": 2.1}, path)
    assert thresholds.calibrated(thresholds.MIGRES_RELEVANCE, "m", "strategyqa", path) == -0.4
    assert json.loads(path.read_text())["searchain_confidence"]["m"]["all"]["value"] == 2.1
    with pytest.raises(thresholds.NotCalibrated, match="task 'multihop'"):
        thresholds.calibrated(thresholds.MIGRES_RELEVANCE, "m", "multihop", path)


def test_qa_bench_asks_only_for_the_thresholds_its_methods_need(load_benchmark: Callable[[str], ModuleType],
                                                                 tmp_path: Path) -> None:
    pipelines = load_benchmark("qa_pipelines")
    path = tmp_path / "thresholds.json"
    assert pipelines.check_calibrated(["nor", "oner", "ircot"], ["hotpotqa", "strategyqa"], "m", path) == []
    problems = pipelines.check_calibrated(["migres", "migres-fewshot", "searchain"], ["hotpotqa", "musique"], "m",
                                          path)
    assert len(problems) == 2   # δ for multi-hop once, θ once
    assert any("calibrate-migres --llm m --task multihop" in p for p in problems)
    assert any("calibrate-searchain --llm m" in p for p in problems)


def test_the_sections_say_what_was_measured(searchain_calibration: ModuleType, migres_calibration: ModuleType) -> None:
    from argparse import Namespace

    point = ThetaPoint(2.3, 0.5, 1.0, 2 / 3)
    items = {"a#1": {"label": True, "seconds": 2.0}, "a#2": {"label": False, "seconds": 4.0}}
    args = Namespace(llm="m", start=50, limit=50, hits=50)
    text = searchain_calibration.render(point, None, None, items, args, "cmd", "llm:m")
    assert "| best over the reader's scale (used) | 2.3 | 66.7 | 50.0 | 100.0 |" in text
    assert "| the paper's 1.5 | - | - | - | - |" in text and "1 of them (50%)" in text and "3.0 s per pair" in text
    result = {"value": 1.25, "questions": 60, "coverage": 0.8, "passages_kept_per_question": 3.4,
              "coverage_at_paper_delta": 0.1, "seconds_per_passage": 1.9}
    text = migres_calibration.render(result, "multihop", Namespace(llm="m", start=50, limit=20, hits=50), "cmd",
                                     "llm:m")
    assert "| 1.25 | 60 | 80% | 3.4 | 10% | 1.90 |" in text and "Questions 51-70 of each sample" in text
    assert "rerank_top" not in text
    cut = {**result, "rerank_top": 10, "cut": {"questions": 20, "passages_past_cut": 0.4,
                                                "questions_only_past_cut": 0.05}}
    text = migres_calibration.render(cut, "multihop", Namespace(llm="m", start=50, limit=20, hits=50), "cmd",
                                     "llm:m")
    assert "`rerank_top: 10`" in text and "On the 20 questions scored on all their hits, 40% of the passages" in text
    assert "5% of the questions keep a passage only past it" in text
