"""Paired comparison of two runs on the questions they share: difference, interval, test, wins.

With a few dozen questions per dataset each run's own 95% interval spans ±10-17
points, so two runs' intervals overlap even when one run is better on almost
every question. Pairing removes the variation between questions: each question is
answered by both runs, and only the per-question differences matter.

Two tests, chosen by the metric's scale (:data:`BINARY_METRICS`):

* a 0/1 metric (EM, cover-EM, answer recall, LLM-judged accuracy) gets the **exact McNemar test**: only
  the questions where exactly one run is right carry information; under "no
  difference" each of them is equally likely to favour either run, so the number
  won by run A is Binomial(discordant, 1/2) and the two-sided p-value is twice the
  smaller tail, capped at 1 (this is the exact two-sided sign test on the
  discordant questions);
* a graded metric (F1, paragraph and title recall) gets the **paired sign-flip
  permutation test** on the per-question differences: under "no difference" each
  difference is as likely to have the opposite sign, so the p-value is the share of
  sign assignments whose summed difference is at least as far from 0 as the one
  observed. It is enumerated exactly up to :data:`EXACT_SIGN_FLIPS_UP_TO` non-zero
  differences, and estimated from random sign flips (seeded, so repeatable) above.

The difference's interval is the paired percentile bootstrap of
:func:`hopkit.evaluation.aggregate.paired_bootstrap`. The verdict
(:attr:`MetricComparison.distinguishable`) follows the test, which is exact or
nearly so; the percentile bootstrap is approximate and with few questions can
exclude 0 where the test does not reject.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal, Sequence

import numpy as np

from hopkit.errors import ComparisonError
from hopkit.evaluation.aggregate import Estimate, paired_bootstrap
from hopkit.evaluation.anytime import AnytimeTest, anytime_test
from hopkit.evaluation.scoring import METRIC_NAMES, QuestionScores

__all__ = [
    "BINARY_METRICS",
    "EXACT_SIGN_FLIPS_UP_TO",
    "MetricComparison",
    "PairedComparison",
    "TestName",
    "compare_scores",
    "mcnemar_exact",
    "sign_flip_test",
]

#: The metrics that are 0 or 1 on every question; they get the exact McNemar test.
BINARY_METRICS: frozenset[str] = frozenset({"em", "cover_em", "answer_recall", "llm_accuracy"})

#: Up to this many non-zero differences the sign-flip test enumerates every sign
#: assignment (2**16 = 65,536); above it, it draws random ones.
EXACT_SIGN_FLIPS_UP_TO = 16

TestName = Literal["McNemar exact", "sign-flip permutation"]
"""The test behind a p-value: see the module docstring."""

# Random sign flips are drawn in blocks of at most this many cells.
_MAX_BLOCK_CELLS = 2_000_000


def mcnemar_exact(won: int, lost: int) -> float:
    """Two-sided p-value of the exact McNemar test (sign test on discordant pairs).

    Args:
        won: Questions where run A is right and run B wrong.
        lost: Questions where run B is right and run A wrong.

    Returns:
        ``min(1, 2 * P(X <= min(won, lost)))`` for ``X ~ Binomial(won + lost, 1/2)``;
        1.0 when there is no discordant question.

    Raises:
        ValueError: A count is negative or not an integer.
    """
    for label, count in (("won", won), ("lost", lost)):
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise ValueError(f"mcnemar_exact: {label} must be a non-negative integer, got {count!r}")
    n = won + lost
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, i) for i in range(min(won, lost) + 1))
    # Exact integer arithmetic; int / int rounds correctly even for large n.
    return min(1.0, 2 * tail / 2**n)


def _all_sign_sums(values: np.ndarray) -> np.ndarray:
    """The sum of ``values`` under each of the ``2**len(values)`` sign assignments."""
    m = values.size
    patterns = (np.arange(2**m)[:, None] >> np.arange(m)[None, :]) & 1
    signs = 1 - 2 * patterns  # bit 0 keeps the sign, bit 1 flips it
    sums: np.ndarray = signs @ values
    return sums


def sign_flip_test(differences: Sequence[float], *, n_resamples: int = 20_000, seed: int = 0,
                   exact_up_to: int = EXACT_SIGN_FLIPS_UP_TO) -> float:
    """Two-sided p-value of the paired sign-flip permutation test.

    The statistic is ``|sum of differences|``. Zero differences are left out: their
    sign changes nothing. With at most ``exact_up_to`` non-zero differences every
    sign assignment is enumerated and the p-value is exact; above, it is estimated
    from ``n_resamples`` random assignments as ``(1 + hits) / (1 + n_resamples)``,
    which never reports 0 for an event that could happen.

    Args:
        differences: Per-question differences (run A minus run B), all finite.
        n_resamples: Random sign assignments when the test is not exact.
        seed: Seed of the random sign assignments (the same seed gives the same p).
        exact_up_to: The largest number of non-zero differences enumerated exactly.

    Returns:
        The p-value in (0, 1]; 1.0 when every difference is 0.

    Raises:
        ValueError: ``differences`` holds NaN or infinity, or an option is out of range.
    """
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, int) or n_resamples < 1:
        raise ValueError(f"sign_flip_test: n_resamples must be a positive integer, got {n_resamples!r}")
    if isinstance(exact_up_to, bool) or not isinstance(exact_up_to, int) or not 0 <= exact_up_to <= 18:
        raise ValueError(f"sign_flip_test: exact_up_to must be an integer from 0 to 18, got {exact_up_to!r}")
    d = np.asarray(differences, dtype=float).ravel()
    if not np.all(np.isfinite(d)):
        raise ValueError("sign_flip_test: differences contain NaN or infinity; metrics must be finite")
    d = d[d != 0.0]
    if d.size == 0:
        return 1.0
    observed = abs(float(d.sum()))
    # Sums equal to the observed one up to rounding count as "at least as extreme".
    threshold = observed - 1e-9 * max(1.0, float(np.abs(d).sum()))
    if d.size <= exact_up_to:
        sums = _all_sign_sums(d)
        return float(np.count_nonzero(np.abs(sums) >= threshold)) / sums.size
    rng = np.random.default_rng(seed)
    hits = 0
    block = max(1, _MAX_BLOCK_CELLS // d.size)
    for start in range(0, n_resamples, block):
        rows = min(block, n_resamples - start)
        signs = rng.integers(0, 2, size=(rows, d.size)) * 2 - 1
        hits += int(np.count_nonzero(np.abs(signs @ d) >= threshold))
    return (1 + hits) / (1 + n_resamples)


@dataclass(frozen=True)
class MetricComparison:
    """Run A against run B on one metric, over the ``n`` questions both have it for.

    Means are fractions (0-1), as the metrics are. ``difference`` is mean(A) - mean(B)
    with its paired bootstrap interval; ``won`` / ``lost`` / ``tied`` count the
    questions where A scored higher / lower / the same as B. ``alpha`` is the test's
    level (0.05 for 95%). ``anytime`` is the anytime-valid confidence sequence and e-value
    (:mod:`hopkit.evaluation.anytime`) over the same questions in the order they were asked.
    """

    metric: str
    n: int
    mean_a: float
    mean_b: float
    difference: Estimate
    test: TestName
    p_value: float
    won: int
    lost: int
    tied: int
    alpha: float = 0.05
    anytime: AnytimeTest | None = None

    @property
    def distinguishable(self) -> bool:
        """True when the test rejects "no difference" at level ``alpha`` (p < alpha)."""
        return self.p_value < self.alpha


@dataclass(frozen=True)
class PairedComparison:
    """Two runs compared on the questions they both scored.

    ``shared`` counts those questions; ``only_a`` and ``only_b`` the questions only
    one run scored (left out). ``metrics`` holds one comparison per metric that has a
    value in both runs on at least one shared question, in :data:`METRIC_NAMES`
    order; ``not_compared`` names the other metrics asked for (a retrieval metric
    when one run does not retrieve, say).
    """

    shared: int
    only_a: int
    only_b: int
    metrics: tuple[MetricComparison, ...]
    not_compared: tuple[str, ...] = ()


def _by_id(scores: Sequence[QuestionScores], side: str) -> dict[str, QuestionScores]:
    out: dict[str, QuestionScores] = {}
    for s in scores:
        if s.query_id in out:
            raise ValueError(f"compare_scores: run {side} scores question {s.query_id!r} twice; "
                             "pass one score per question")
        out[s.query_id] = s
    return out


def _compare_metric(metric: str, a: list[float], b: list[float], in_order: list[float], *, n_resamples: int,
                    confidence: float, seed: int) -> MetricComparison:
    va, vb = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    diff = va - vb
    won, lost = int(np.count_nonzero(diff > 0)), int(np.count_nonzero(diff < 0))
    test: TestName
    if metric in BINARY_METRICS:
        outside = sorted({float(v) for v in np.concatenate([va, vb])} - {0.0, 1.0})
        if outside:
            raise ValueError(f"compare_scores: metric {metric!r} should be 0 or 1 per question, "
                             f"found {outside[0]!r}; the exact McNemar test needs 0/1 values")
        test, p_value = "McNemar exact", mcnemar_exact(won, lost)
    else:
        test, p_value = "sign-flip permutation", sign_flip_test(diff.tolist(), seed=seed)
    return MetricComparison(
        metric=metric,
        n=len(a),
        mean_a=math.fsum(a) / len(a),
        mean_b=math.fsum(b) / len(b),
        difference=paired_bootstrap(a, b, n_resamples=n_resamples, confidence=confidence, seed=seed),
        test=test,
        p_value=p_value,
        won=won,
        lost=lost,
        tied=len(a) - won - lost,
        alpha=round(1.0 - confidence, 12),
        anytime=anytime_test(in_order, alpha=round(1.0 - confidence, 12)),
    )


def compare_scores(a: Sequence[QuestionScores], b: Sequence[QuestionScores], *,
                   metrics: Sequence[str] = METRIC_NAMES, n_resamples: int = 1000,
                   confidence: float = 0.95, seed: int = 0, order: Sequence[str] | None = None) -> PairedComparison:
    """Compare run A with run B on the questions both scored, metric by metric.

    A metric is compared on the shared questions where both runs have a value for
    it (see :class:`QuestionScores` for when a retrieval metric is ``None``).
    Differences are A minus B.

    Args:
        a: Run A's per-question scores.
        b: Run B's per-question scores (the same dataset's questions).
        metrics: The metrics to compare, names from :data:`METRIC_NAMES`.
        n_resamples: Bootstrap resamples of each difference's interval.
        confidence: Coverage of the intervals; the tests use level ``1 - confidence``.
        seed: Seed of the bootstrap and of the random sign flips.
        order: Question ids in the order the anytime-valid sequence sees them (the dataset's
            stored order); shared questions it does not name come last, by id. None: run A's order.

    Returns:
        The comparison.

    Raises:
        ComparisonError: The runs share no question (compare runs on the same dataset).
        KeyError: A metric name is not known.
        ValueError: A run scores a question twice, a 0/1 metric holds another value,
            or an option is out of range.
    """
    for metric in metrics:
        if metric not in METRIC_NAMES:
            raise KeyError(f"unknown metric {metric!r}; known: {', '.join(METRIC_NAMES)}")
    left, right = _by_id(a, "A"), _by_id(b, "B")
    shared = sorted(left.keys() & right.keys())
    rank = {q: i for i, q in enumerate(dict.fromkeys(order if order is not None else left))}
    in_order = sorted(shared, key=lambda q: (rank.get(q, len(rank)), q))
    if not shared:
        raise ComparisonError(f"the runs share no question (A scored {len(left)}, B {len(right)}); "
                              "compare two runs on the same dataset's questions")
    compared: list[MetricComparison] = []
    skipped: list[str] = []
    for metric in (m for m in METRIC_NAMES if m in metrics):
        va: list[float] = []
        vb: list[float] = []
        for q in shared:
            x, y = left[q].get(metric), right[q].get(metric)
            if x is not None and y is not None:
                va.append(x)
                vb.append(y)
        if not va:
            skipped.append(metric)
            continue
        ordered = [x - y for q in in_order
                   for x, y in [(left[q].get(metric), right[q].get(metric))] if x is not None and y is not None]
        compared.append(_compare_metric(metric, va, vb, ordered, n_resamples=n_resamples,
                                        confidence=confidence, seed=seed))
    return PairedComparison(shared=len(shared), only_a=len(left) - len(shared),
                            only_b=len(right) - len(shared), metrics=tuple(compared),
                            not_compared=tuple(skipped))
