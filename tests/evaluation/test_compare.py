"""Paired comparisons: the tests' p-values against hand-computed ones, wins, pairing, refusals."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from hopkit.errors import ComparisonError
from hopkit.evaluation.aggregate import paired_bootstrap
from hopkit.evaluation.compare import (
    MetricComparison,
    compare_scores,
    mcnemar_exact,
    sign_flip_test,
)
from hopkit.evaluation.scoring import METRIC_NAMES, QuestionScores

pytestmark = pytest.mark.unit


def qs(qid: str, em: float, f1: float, para: float | None = None) -> QuestionScores:
    return QuestionScores(qid, em, f1, em, para, para, None if para is None else em)


# -- the exact McNemar test ---------------------------------------------------

def test_mcnemar_matches_hand_computed_binomial_tails() -> None:
    # 8 won, 1 lost: 9 discordant, P(X <= 1) = (1 + 9) / 512, doubled
    assert mcnemar_exact(8, 1) == 20 / 512
    assert mcnemar_exact(1, 8) == 20 / 512
    # 5 of 5 discordant for one run is not enough at 5%: 2 / 32
    assert mcnemar_exact(5, 0) == 0.0625
    # 6 of 6 is: 2 / 64
    assert mcnemar_exact(6, 0) == 0.03125
    # 10 won, 2 lost: (1 + 12 + 66) / 4096, doubled
    assert mcnemar_exact(10, 2) == pytest.approx(2 * 79 / 4096, abs=0, rel=1e-15)


def test_mcnemar_is_one_for_balanced_or_no_discordant_pairs() -> None:
    assert mcnemar_exact(0, 0) == 1.0
    assert mcnemar_exact(2, 2) == 1.0  # 2 * 11/16 is capped
    assert mcnemar_exact(3, 2) == 1.0


def test_mcnemar_handles_many_pairs_without_overflow() -> None:
    p = mcnemar_exact(600, 400)
    assert 0 < p < 1e-9


@pytest.mark.parametrize("bad", [-1, 1.5, True])
def test_mcnemar_rejects_bad_counts(bad: object) -> None:
    with pytest.raises(ValueError, match="won must be a non-negative integer"):
        mcnemar_exact(bad, 1)  # type: ignore[arg-type]


# -- the sign-flip permutation test -------------------------------------------

def test_sign_flip_enumerates_by_hand() -> None:
    # sums of ±0.5 ±0.25 ±0.25: 1, .5, .5, 0, 0, -.5, -.5, -1; |sum| >= 0.5 in 6 of 8
    assert sign_flip_test([0.5, 0.25, -0.25]) == 0.75
    # all six differences positive: only the all-plus and all-minus assignments are as extreme
    assert sign_flip_test([0.2, 0.4, 0.1, 0.3, 0.5, 0.6]) == 2 / 64
    # zeros carry no information and are left out: still 2 / 64
    assert sign_flip_test([0.2, 0.4, 0.0, 0.1, 0.3, 0.0, 0.5, 0.6]) == 2 / 64


def test_sign_flip_is_one_without_differences() -> None:
    assert sign_flip_test([0.0, 0.0]) == 1.0
    assert sign_flip_test([]) == 1.0


def brute_force_p(d: list[float]) -> float:
    observed = abs(sum(d))
    sums = [abs(sum(s * x for s, x in zip(signs, d))) for signs in itertools.product((1, -1), repeat=len(d))]
    return sum(1 for v in sums if v >= observed - 1e-12) / len(sums)


@pytest.mark.parametrize("seed", range(5))
def test_sign_flip_exact_matches_a_brute_force_reference(seed: int) -> None:
    d = np.random.default_rng(seed).normal(0.1, 0.3, size=9).round(2).tolist()
    assert sign_flip_test(d) == pytest.approx(brute_force_p(d), abs=1e-12)


def test_sign_flip_sampled_agrees_with_exact_and_is_repeatable() -> None:
    d = np.random.default_rng(1).normal(0.2, 1.0, size=16).tolist()
    exact = sign_flip_test(d)
    sampled = sign_flip_test(d, exact_up_to=0, n_resamples=50_000, seed=3)
    assert sampled == sign_flip_test(d, exact_up_to=0, n_resamples=50_000, seed=3)
    # the Monte Carlo standard error at p ~ 0.05 with 50,000 draws is ~0.001
    assert abs(sampled - exact) < 0.005


def test_sign_flip_sampled_p_is_never_zero() -> None:
    # 30 equal positive differences: exact p = 2 / 2**30; the sampled estimate is floored at 1 / (1 + R)
    p = sign_flip_test([0.1] * 30, n_resamples=999)
    assert p == 1 / 1000


def test_sign_flip_rejects_bad_input() -> None:
    with pytest.raises(ValueError, match="NaN or infinity"):
        sign_flip_test([0.1, math.nan])
    with pytest.raises(ValueError, match="n_resamples"):
        sign_flip_test([0.1], n_resamples=0)
    with pytest.raises(ValueError, match="exact_up_to"):
        sign_flip_test([0.1], exact_up_to=40)


# -- comparing two runs --------------------------------------------------------

def by_metric(comparisons: tuple[MetricComparison, ...]) -> dict[str, MetricComparison]:
    return {c.metric: c for c in comparisons}


def test_compare_counts_wins_and_uses_the_right_test() -> None:
    # A right on q0-q7, B right on q8 only, both wrong on q9: 8 won, 1 lost, 1 tied on EM
    a = [qs(f"q{i}", 1.0 if i < 8 else 0.0, 0.9 if i < 8 else 0.0) for i in range(10)]
    b = [qs(f"q{i}", 1.0 if i == 8 else 0.0, 0.5 if i == 8 else 0.0) for i in range(10)]
    result = compare_scores(a, b, metrics=("em", "f1"))
    em, f1 = result.metrics
    assert (em.metric, em.test, em.won, em.lost, em.tied, em.n) == ("em", "McNemar exact", 8, 1, 1, 10)
    assert em.p_value == 20 / 512 and em.distinguishable
    assert (em.mean_a, em.mean_b) == (0.8, 0.1)
    assert em.difference.mean == pytest.approx(0.7)
    assert em.difference == paired_bootstrap([q.em for q in a], [q.em for q in b])
    assert f1.test == "sign-flip permutation"
    # F1 differences: eight of +0.9, one of -0.5, one 0; |sum| = 6.7 is reached only by
    # the observed signs and their mirror image (flipping -0.5 alone gives 7.7, more extreme)
    assert (f1.won, f1.lost, f1.tied) == (8, 1, 1)
    assert f1.p_value == 4 / 512
    assert result.shared == 10 and result.only_a == result.only_b == 0


def test_a_small_difference_is_not_distinguishable() -> None:
    a = [qs(f"q{i}", 1.0 if i < 5 else 0.0, 0.5) for i in range(10)]
    b = [qs(f"q{i}", 0.0, 0.5) for i in range(10)]
    em = compare_scores(a, b, metrics=("em",)).metrics[0]
    assert (em.won, em.lost, em.p_value, em.distinguishable) == (5, 0, 0.0625, False)


def test_compare_pairs_questions_by_id_and_reports_unshared_ones() -> None:
    a = [qs("q2", 1.0, 1.0), qs("q1", 0.0, 0.0), qs("only-a", 1.0, 1.0)]
    b = [qs("q1", 1.0, 1.0), qs("q2", 1.0, 1.0), qs("only-b", 0.0, 0.0), qs("also-b", 0.0, 0.0)]
    result = compare_scores(a, b, metrics=("em",))
    assert (result.shared, result.only_a, result.only_b) == (2, 1, 2)
    em = result.metrics[0]
    assert (em.n, em.won, em.lost, em.tied) == (2, 0, 1, 1)


def test_metrics_one_run_lacks_are_not_compared() -> None:
    retrieving = [qs("q0", 1.0, 1.0, para=0.5), qs("q1", 0.0, 0.0, para=1.0)]
    closed_book = [qs("q0", 1.0, 1.0), qs("q1", 1.0, 1.0)]
    result = compare_scores(retrieving, closed_book)
    assert [c.metric for c in result.metrics] == ["em", "f1", "cover_em"]
    # and LLM-judged accuracy, where the scores carry it, is absent from both here
    assert result.not_compared == tuple(m for m in METRIC_NAMES if m not in ("em", "f1", "cover_em"))
    assert result.not_compared[:3] == ("paragraph_recall", "title_recall", "answer_recall")


def test_a_retrieval_metric_is_compared_where_both_have_it() -> None:
    a = [qs("q0", 1.0, 1.0, para=1.0), qs("q1", 1.0, 1.0, para=None), qs("q2", 0.0, 0.0, para=0.5)]
    b = [qs("q0", 1.0, 1.0, para=0.5), qs("q1", 1.0, 1.0, para=0.0), qs("q2", 0.0, 0.0, para=0.5)]
    para = by_metric(compare_scores(a, b).metrics)["paragraph_recall"]
    assert (para.n, para.won, para.lost, para.tied, para.mean_a, para.mean_b) == (2, 1, 0, 1, 0.75, 0.5)


def test_compare_is_deterministic_and_antisymmetric() -> None:
    rng = np.random.default_rng(7)
    a = [qs(f"q{i}", float(rng.integers(2)), float(rng.random())) for i in range(40)]
    b = [qs(f"q{i}", float(rng.integers(2)), float(rng.random())) for i in range(40)]
    assert compare_scores(a, b) == compare_scores(a, b)
    forward, backward = by_metric(compare_scores(a, b).metrics), by_metric(compare_scores(b, a).metrics)
    for metric in ("em", "f1"):
        assert forward[metric].p_value == pytest.approx(backward[metric].p_value)
        assert (forward[metric].won, forward[metric].lost) == (backward[metric].lost, backward[metric].won)
        assert forward[metric].difference.mean == pytest.approx(-backward[metric].difference.mean)


def test_confidence_sets_the_level_of_the_verdict() -> None:
    a = [qs(f"q{i}", 1.0 if i < 8 else 0.0, 1.0) for i in range(10)]
    b = [qs(f"q{i}", 1.0 if i == 8 else 0.0, 1.0) for i in range(10)]
    em95 = compare_scores(a, b, metrics=("em",)).metrics[0]
    em99 = compare_scores(a, b, metrics=("em",), confidence=0.99).metrics[0]
    assert em95.alpha == 0.05 and em95.distinguishable
    assert em99.alpha == 0.01 and not em99.distinguishable  # p = 0.039
    assert em99.difference.confidence == 0.99


def test_runs_without_shared_questions_are_refused() -> None:
    with pytest.raises(ComparisonError, match=r"share no question \(A scored 1, B 2\)"):
        compare_scores([qs("a", 1.0, 1.0)], [qs("b", 1.0, 1.0), qs("c", 0.0, 0.0)])


def test_bad_input_is_refused() -> None:
    with pytest.raises(ValueError, match="run A scores question 'q' twice"):
        compare_scores([qs("q", 1.0, 1.0)] * 2, [qs("q", 1.0, 1.0)])
    with pytest.raises(KeyError, match="unknown metric 'accuracy'"):
        compare_scores([qs("q", 1.0, 1.0)], [qs("q", 1.0, 1.0)], metrics=("accuracy",))
    with pytest.raises(ValueError, match="'em' should be 0 or 1 per question, found 0.5"):
        compare_scores([qs("q", 0.5, 1.0)], [qs("q", 1.0, 1.0)], metrics=("em",))
