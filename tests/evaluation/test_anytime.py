"""The anytime-valid confidence sequence: a hand case, an independent scalar computation of the capital,
the sequence read off it, and its validity on a seeded simulation (bounded, not timed)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from hopkit.evaluation.anytime import GRID_STEP, anytime_test, confidence_sequence, log_capital
from hopkit.evaluation.compare import compare_scores, mcnemar_exact
from hopkit.evaluation.scoring import QuestionScores

pytestmark = pytest.mark.unit


def reference_capital(differences: list[float], delta: float, alpha: float = 0.05) -> list[float]:
    """K_n(delta) by a plain loop, written from Waudby-Smith & Ramdas' hedged capital with predictable plug-in
    bets (the process confseq's ``betting_mart(..., convex_comb=True)`` computes with its default bets)."""
    m = (delta + 1) / 2
    up = down = 1.0
    total, squares, variance_before = 0.0, 0.0, 0.25
    out = []
    for t, d in enumerate(differences, start=1):
        x = (d + 1) / 2
        stake = math.sqrt(2 * math.log(1 / alpha) / (variance_before * t * math.log(1 + t)))
        up *= 1 + min(stake, 0.5 / m) * (x - m)
        down *= 1 - min(stake, 0.5 / (1 - m)) * (x - m)
        out.append((up + down) / 2)
        total += x
        squares += (x - (0.5 + total) / (t + 1)) ** 2
        variance_before = (0.25 + squares) / (t + 1)
    return out


def test_ten_straight_wins_decide_at_ten_by_hand() -> None:
    # every stake is capped at 1/(2m) = 1, so each win multiplies the bet-up gambler by 1.5 and the bet-down by
    # 0.5: K_n = (1.5**n + 0.5**n) / 2, first >= 1/0.05 = 20 at n = 10 (K_9 = 19.2, K_10 = 28.8)
    for n in range(1, 12):
        assert math.exp(log_capital(np.ones(n))[-1]) == pytest.approx((1.5 ** n + 0.5 ** n) / 2)
    assert anytime_test(np.ones(9)).decided_at is None
    ten = anytime_test(np.ones(10))
    assert ten.decided_at == 10 and ten.low > 0
    assert ten.p_value == pytest.approx(2 / (1.5 ** 10 + 0.5 ** 10))
    # ties in front add nothing to either gambler: two ties then ten wins decide at n = 12
    assert anytime_test([0, 0] + [1] * 10).decided_at == 12


def test_the_vectorised_capital_matches_the_scalar_reference() -> None:
    rng = np.random.default_rng(7)
    binary = rng.choice([-1.0, 0.0, 1.0], p=[0.2, 0.5, 0.3], size=80)
    graded = rng.uniform(-1, 1, size=80) * rng.random(80)
    for d in (binary, graded):
        for delta in (-0.6, -0.1, 0.0, 0.05, 0.4):
            got = np.exp(log_capital(d, delta))
            assert got == pytest.approx(reference_capital(d.tolist(), delta), rel=1e-9)


def test_the_sequence_is_the_set_the_capital_has_not_rejected() -> None:
    rng = np.random.default_rng(3)
    d = rng.choice([-1.0, 0.0, 1.0], p=[0.1, 0.6, 0.3], size=60)
    low, high = confidence_sequence(d)
    for n in (5, 20, 60):
        rejected = [max(reference_capital(d[:n].tolist(), v)) >= 20 for v in (low[n - 1], high[n - 1])]
        assert rejected == [False, False]
    # the sequence only shrinks, and holds the difference where it is at n
    assert np.all(np.diff(low) >= 0) and np.all(np.diff(high) <= 0)
    test = anytime_test(d)
    assert (test.low, test.high) == pytest.approx((low[-1], high[-1]), abs=GRID_STEP / 10)  # read off coarse, refined
    outside = [reference_capital(d.tolist(), test.low - 2 * GRID_STEP),
               reference_capital(d.tolist(), test.high + 2 * GRID_STEP)]
    assert all(max(k) >= 20 for k in outside)  # just beyond each end, some n rejected it


def test_under_no_difference_few_sequences_ever_decide_but_repeated_mcnemar_does() -> None:
    rng = np.random.default_rng(2026)
    d = rng.choice([-1.0, 0.0, 1.0], p=[0.25, 0.5, 0.25], size=(2000, 200))
    ever = (log_capital(d).max(axis=1) >= math.log(20)).mean()
    assert ever <= 0.05
    # the naive procedure: McNemar after every question, stop at the first p < 0.05
    won, lost = np.cumsum(d > 0, axis=1), np.cumsum(d < 0, axis=1)
    p = {(w, l): mcnemar_exact(w, l) for w in range(201) for l in range(201 - w)}
    naive = np.array([[p[int(w), int(l)] < 0.05 for w, l in zip(rw[::5], rl[::5])] for rw, rl in zip(won, lost)])
    assert naive.any(axis=1).mean() > 0.1  # looked at every 5th question only, and still well above 5%


@pytest.mark.parametrize("delta", [0.05, 0.1, 0.2])
def test_the_sequence_covers_a_true_difference_at_every_n(delta: float) -> None:
    rng = np.random.default_rng(int(100 * delta))
    d = rng.choice([-1.0, 0.0, 1.0], p=[0.2 - delta / 2, 0.6, 0.2 + delta / 2], size=(2000, 300))
    # the truth leaves the sequence at some n exactly when its capital reaches 1/alpha at some n
    missed = (log_capital(d, delta).max(axis=1) >= math.log(20)).mean()
    assert missed <= 0.05


def test_bad_input_is_refused() -> None:
    with pytest.raises(ValueError, match=r"within \[-1, 1\]"):
        anytime_test([0.5, 1.5])
    with pytest.raises(ValueError, match="no paired difference"):
        anytime_test([])
    with pytest.raises(ValueError, match="alpha"):
        anytime_test([1.0], alpha=0.0)


def test_compare_scores_runs_the_sequence_in_the_order_given() -> None:
    def scores(right: set[int]) -> list[QuestionScores]:
        return [QuestionScores(f"q{i:02d}", float(i in right), float(i in right), float(i in right), None, None, None)
                for i in range(12)]

    a, b = scores(set(range(12))), scores({10, 11})
    # in id order the two ties come last: ten wins decide at n = 10; stored with the ties first, at n = 12
    by_id = compare_scores(a, b, metrics=("em",)).metrics[0].anytime
    ties_first = compare_scores(a, b, metrics=("em",), order=["q10", "q11"]).metrics[0].anytime
    assert by_id is not None and ties_first is not None
    assert (by_id.decided_at, ties_first.decided_at) == (10, 12)
