"""Bootstrap intervals, paired comparisons and run summaries."""

from __future__ import annotations

import numpy as np
import pytest

from hopkit.evaluation import aggregate
from hopkit.evaluation.aggregate import (
    Estimate,
    QuestionCost,
    bootstrap_ci,
    paired_bootstrap,
    paired_values,
    summarize_run,
)
from hopkit.evaluation.scoring import QuestionScores
from hopkit.usage import Usage, open_component, track_usage, usage_component

pytestmark = pytest.mark.unit

COIN = [0.0, 1.0] * 200  # 400 values, mean 0.5, standard error 0.025


def test_bootstrap_is_reproducible() -> None:
    assert bootstrap_ci(COIN, seed=3) == bootstrap_ci(COIN, seed=3)
    assert bootstrap_ci(COIN, seed=3) != bootstrap_ci(COIN, seed=4)


def test_bootstrap_interval_contains_mean_and_has_expected_width() -> None:
    est = bootstrap_ci(COIN)
    assert est.mean == 0.5
    assert est.n == 400
    assert est.low < est.mean < est.high
    # normal approximation: 1.96 * 0.025 = 0.049
    assert 0.04 < est.half_width < 0.06


@pytest.mark.parametrize("seed", range(20))
def test_interval_contains_mean_for_skewed_small_samples(seed: int) -> None:
    values = [1.0] + [0.0] * 30
    est = bootstrap_ci(values, n_resamples=50, seed=seed)
    assert est.low <= est.mean <= est.high


def test_interval_is_widened_to_contain_mean() -> None:
    # One resample: its mean is both bounds, and rarely the sample mean itself.
    values = [0.0, 0.1, 0.5, 0.9, 1.0, 0.3]
    for seed in range(5):
        est = bootstrap_ci(values, n_resamples=1, seed=seed)
        assert est.low <= est.mean <= est.high
        assert est.high > est.low


def test_higher_confidence_gives_wider_interval() -> None:
    narrow = bootstrap_ci(COIN, confidence=0.8)
    wide = bootstrap_ci(COIN, confidence=0.99)
    assert wide.half_width > narrow.half_width
    assert (narrow.confidence, wide.confidence) == (0.8, 0.99)


def test_constant_and_single_values_have_zero_width() -> None:
    assert bootstrap_ci([0.7] * 10) == Estimate(0.7, 0.7, 0.7, 10)
    assert bootstrap_ci([1.0]) == Estimate(1.0, 1.0, 1.0, 1)


def test_bootstrap_in_blocks_equals_bootstrap_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    values = np.random.default_rng(1).random(300).tolist()
    at_once = bootstrap_ci(values, n_resamples=200)
    monkeypatch.setattr(aggregate, "_MAX_BLOCK_CELLS", 300 * 7)  # blocks of 7 resamples
    assert bootstrap_ci(values, n_resamples=200) == at_once


def test_bootstrap_matches_a_plain_loop() -> None:
    values = [0.0, 0.25, 1.0, 1.0, 0.5]
    rng = np.random.default_rng(0)
    arr = np.array(values)
    means = [arr[rng.integers(0, 5, size=5)].mean() for _ in range(1000)]
    low, high = np.quantile(means, [0.025, 0.975])
    est = bootstrap_ci(values)
    assert (est.low, est.high) == pytest.approx((min(low, 0.55), max(high, 0.55)))


@pytest.mark.parametrize(
    ("values", "options", "message"),
    [
        ([], {}, "no values"),
        ([0.5, float("nan")], {}, "NaN"),
        ([0.5], {"n_resamples": 0}, "n_resamples"),
        ([0.5], {"confidence": 1.0}, "confidence"),
        ([[0.5, 1.0]], {}, "flat"),
    ],
)
def test_bootstrap_rejects_bad_input(values: list[float], options: dict[str, float],
                                     message: str) -> None:
    with pytest.raises(ValueError, match=message):
        bootstrap_ci(values, **options)  # type: ignore[arg-type]


def test_paired_bootstrap_of_constant_difference_is_exact() -> None:
    b = np.random.default_rng(2).random(50).tolist()
    a = [x + 0.1 for x in b]
    est = paired_bootstrap(a, b)
    assert est.mean == pytest.approx(0.1)
    assert est.half_width == pytest.approx(0.0, abs=1e-12)


def test_paired_bootstrap_is_narrower_than_unpaired_for_correlated_runs() -> None:
    rng = np.random.default_rng(5)
    b = rng.integers(0, 2, 300).astype(float)
    a = b.copy()
    a[:30] = 1.0  # a fixes some of b's errors
    paired = paired_bootstrap(a.tolist(), b.tolist())
    assert paired.low > 0.0
    unpaired_half = bootstrap_ci(a.tolist()).half_width + bootstrap_ci(b.tolist()).half_width
    assert paired.half_width < unpaired_half


def test_paired_bootstrap_needs_equal_lengths() -> None:
    with pytest.raises(ValueError, match="paired_values"):
        paired_bootstrap([1.0, 0.0], [1.0])


def _scores(qid: str, em: float, recall: float | None = None) -> QuestionScores:
    return QuestionScores(qid, em, em, em, recall, recall, recall)


def test_paired_values_aligns_by_question_id() -> None:
    a = [_scores("q2", 1.0, 0.5), _scores("q1", 0.0, 1.0), _scores("q3", 1.0, None)]
    b = [_scores("q1", 1.0, 0.0), _scores("q3", 0.0, 0.5), _scores("q2", 0.0, 0.0)]
    assert paired_values(a, b, "em") == ([0.0, 1.0, 1.0], [1.0, 0.0, 0.0])
    assert paired_values(a, b, "paragraph_recall") == ([1.0, 0.5], [0.0, 0.0])


def test_paired_values_rejects_bad_input() -> None:
    with pytest.raises(KeyError):
        paired_values([_scores("q1", 1.0)], [_scores("q1", 1.0)], "bleu")
    with pytest.raises(ValueError, match="twice"):
        paired_values([_scores("q1", 1.0)] * 2, [_scores("q1", 1.0)], "em")
    with pytest.raises(ValueError, match="share no question"):
        paired_values([_scores("q1", 1.0)], [_scores("q2", 1.0)], "em")


def _usage(calls: int, total: float, **judges: float) -> Usage:
    usage = Usage(total_seconds=total)
    for _ in range(calls):
        usage.add_llm(100, 10, 0.5, cached_prompt_tokens=50)
    usage.add_retrieval(0.1)
    for name, seconds in judges.items():
        usage.add_call(f"judge:{name}", seconds)
    return usage


def _cost(calls: int, total: float, failed: bool = False) -> QuestionCost:
    return QuestionCost(_usage(calls, total), failed=failed)


def test_summarize_run_averages_metrics_and_costs() -> None:
    scores = [_scores("q1", 1.0, 0.5), _scores("q2", 0.0, 1.0), _scores("q3", 1.0, None)]
    costs = [_cost(2, 2.0), _cost(4, 2.0), _cost(0, 0.5), _cost(3, 1.5, failed=True)]
    s = summarize_run("abc123", "IRCoT K=4", "IRCoT", "hotpotqa", scores, costs)
    assert (s.n_questions, s.n_failed) == (4, 1)
    assert s.metrics["em"].mean == pytest.approx(2 / 3)
    assert s.metrics["em"].n == 3
    assert s.metrics["paragraph_recall"].mean == pytest.approx(0.75)
    assert s.metrics["paragraph_recall"].n == 2
    assert s.llm_calls_per_q == pytest.approx(9 / 4)
    assert s.prompt_tokens_per_q == pytest.approx(225.0)
    assert s.completion_tokens_per_q == pytest.approx(22.5)
    assert s.seconds_per_q == pytest.approx(6.0 / 4)
    assert s.llm_seconds_per_q == pytest.approx(4.5 / 4)
    assert s.retrieval_seconds_per_q == pytest.approx(0.1)
    # other = (2-1-.1) + max(0, 2-2-.1) + (0.5-0-.1) + (1.5-1.5-.1 -> 0) = 0.9 + 0 + 0.4 + 0
    assert s.other_seconds_per_q == pytest.approx(1.3 / 4)
    assert s.cached_prompt_share == pytest.approx(0.5)
    assert s.components == () and "model_seconds_per_q" not in s.cost


def test_summarize_run_keeps_each_judge_component_apart() -> None:
    costs = [QuestionCost(_usage(1, 2.0, relevance=0.4, support=0.2)), QuestionCost(_usage(1, 1.0, relevance=0.2))]
    s = summarize_run("r", "n", "m", "d", [_scores("q1", 1.0), _scores("q2", 0.0)], costs)
    assert s.components == ("judge:relevance", "judge:support")
    assert s.cost["judge_relevance_seconds_per_q"] == pytest.approx(0.3)
    assert s.cost["judge_support_seconds_per_q"] == pytest.approx(0.1)  # the second question never judged
    assert "judge_relevance_llm_calls_per_q" not in s.cost  # no model calls: no model columns
    # other = (2 - .5 - .1 - .4 - .2) + (1 - .5 - .1 - .2) = 0.8 + 0.2
    assert s.other_seconds_per_q == pytest.approx(0.5)
    assert (s.llm_seconds_per_q, s.retrieval_seconds_per_q) == pytest.approx((0.5, 0.1))


def test_a_labelled_component_has_its_model_calls_apart_and_the_totals_keep_them() -> None:
    usage = _usage(1, 4.0)
    with track_usage() as labelled:
        with usage_component("migres:leaf"):
            labelled.add_llm(300, 20, 2.0, cached_prompt_tokens=100, component=open_component())
    usage.components.update(labelled.components)
    s = summarize_run("r", "n", "m", "d", [_scores("q1", 1.0)], [QuestionCost(usage)])
    assert s.components == ("migres:leaf",)
    assert (s.llm_calls_per_q, s.prompt_tokens_per_q, s.llm_seconds_per_q) == pytest.approx((2, 400, 2.5))
    assert (s.cost["migres_leaf_llm_calls_per_q"], s.cost["migres_leaf_prompt_tokens_per_q"],
            s.cost["migres_leaf_llm_seconds_per_q"]) == pytest.approx((1, 300, 2.0))
    assert s.cost["migres_leaf_seconds_per_q"] < 0.5  # its own time, outside its model call
    assert s.cached_prompt_share == pytest.approx(150 / 400)


def test_summarize_run_leaves_out_metrics_that_never_apply() -> None:
    scores = [_scores("q1", 1.0), _scores("q2", 0.0)]
    s = summarize_run("r", "NoR", "NoR", "hotpotqa", scores, [_cost(1, 1.0), _cost(1, 1.0)])
    assert set(s.metrics) == {"em", "f1", "cover_em"}
    with pytest.raises(TypeError):
        s.metrics["bleu"] = Estimate(0, 0, 0, 1)  # type: ignore[index]


def test_summarize_run_without_prompt_tokens_has_zero_cached_share() -> None:
    cost = QuestionCost(Usage(total_seconds=0.1))
    s = summarize_run("r", "n", "m", "d", [_scores("q1", 1.0)], [cost])
    assert s.cached_prompt_share == 0.0


def test_summarize_run_checks_counts() -> None:
    with pytest.raises(ValueError, match="no per-question costs"):
        summarize_run("r", "n", "m", "d", [_scores("q1", 1.0)], [])
    with pytest.raises(ValueError, match="needs a score"):
        summarize_run("r", "n", "m", "d", [_scores("q1", 1.0)], [_cost(1, 1.0)] * 2)
    with pytest.raises(ValueError, match="2 scores for 1 questions"):
        summarize_run("r", "n", "m", "d", [_scores("q1", 1.0)] * 2, [_cost(1, 1.0)])


def test_summarize_run_without_any_component_has_only_other_time() -> None:
    s = summarize_run("r", "n", "m", "d", [_scores("q1", 1.0)], [QuestionCost(Usage(total_seconds=0.1))])
    assert s.components == () and s.llm_seconds_per_q == 0.0
    assert s.other_seconds_per_q == pytest.approx(0.1)
