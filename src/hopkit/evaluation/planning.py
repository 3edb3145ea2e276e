"""How many questions a paired difference needs, planned from two pilot runs' per-question differences.

Two answers for a true difference ``delta`` (A - B, as a fraction):

* **fixed n** at the given power for a two-sided test at level alpha, by the normal approximation
  of the paired tests (Connor's formula for McNemar's test, "Sample size for testing differences in
  proportions for the paired-sample design", Biometrics 1987, in its general form):
  n = (z_{1-alpha/2} sqrt(s2) + z_power sqrt(s2 - delta^2))^2 / delta^2, where s2 is the mean squared
  per-question difference (for a 0/1 metric, the share of discordant questions);
* **the sequential stop** of the anytime-valid sequence (:mod:`hopkit.evaluation.anytime`): simulated.
  Each simulated question draws a difference size |d| from the pilot's and gives it A's sign with the
  probability that makes the mean difference ``delta`` (so a 0/1 metric keeps the pilot's discordance);
  a sequence stops when it first excludes 0, or at ``cap`` questions.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist
from typing import Sequence

import numpy as np

from hopkit.evaluation.anytime import log_capital
from hopkit.evaluation.scoring import QuestionScores

__all__ = ["QuestionPlan", "pilot_differences", "plan_questions"]

_CHUNK_CELLS = 4_000_000  # simulated questions held in memory at once


@dataclass(frozen=True)
class QuestionPlan:
    """Questions a difference needs.

    Attributes:
        difference: the true difference planned for (a fraction, A - B).
        pilot_n: pilot questions the difference sizes came from.
        second_moment: mean squared pilot difference (0/1 metric: the discordant share).
        fixed_n: questions for a fixed-n paired test at ``power``.
        sequential_mean_n: mean questions until the sequence excludes 0 (a sequence that never does counts as ``cap``).
        sequential_median_n: the median of the same (None when fewer than half stop by ``cap``).
        decided_share: share of simulated sequences that excluded 0 by ``cap``.
        cap: the most questions a simulated sequence ran.
        simulations: simulated sequences.
    """

    difference: float
    pilot_n: int
    second_moment: float
    fixed_n: int
    sequential_mean_n: float
    sequential_median_n: int | None
    decided_share: float
    cap: int
    simulations: int


def plan_questions(pilot: Sequence[float], difference: float, *, alpha: float = 0.05, power: float = 0.8,
                   simulations: int = 1000, seed: int = 0) -> QuestionPlan:
    """Questions a true difference ``difference`` needs, given pilot per-question differences.

    Args:
        pilot: the pilot runs' per-question differences A - B, each in [-1, 1].
        difference: the true difference to plan for, a fraction (0.05 for 5 points); its sign does
            not matter.
        alpha: level of both tests.
        power: power of the fixed-n test.
        simulations: simulated sequences for the sequential stop.
        seed: their seed (the same seed gives the same plan).

    Returns:
        The plan; the simulation caps each sequence at 4 times the fixed n (at least 200 questions).

    Raises:
        ValueError: the pilot is empty or holds values outside [-1, 1], the difference is 0 or at least
            as large as the pilot's mean absolute difference (the pilot runs never differ that much), or an
            option is out of range.
    """
    d = np.abs(np.asarray(pilot, dtype=float))
    if d.size == 0 or not np.all(np.isfinite(d)) or d.max() > 1.0:
        raise ValueError("plan: the pilot needs at least one paired difference, each within [-1, 1]")
    if not (0.0 < alpha < 1.0 and 0.0 < power < 1.0) or simulations < 1:
        raise ValueError("plan: alpha and power must be between 0 and 1, simulations at least 1")
    delta = abs(float(difference))
    mean_size = float(d.mean())
    if not 0.0 < delta < mean_size:
        raise ValueError(f"plan: a difference of {100 * delta:.1f} points cannot be planned from this pilot: its "
                         f"runs differ by {100 * mean_size:.1f} points per question on average (absolute), and "
                         "a true difference must be above 0 and below that")
    second = float(np.mean(d ** 2))
    z = NormalDist()
    root = z.inv_cdf(1 - alpha / 2) * math.sqrt(second) + z.inv_cdf(power) * math.sqrt(second - delta ** 2)
    fixed_n = math.ceil(root ** 2 / delta ** 2)
    cap = max(200, 4 * fixed_n)
    stops = _sequential_stops(d, delta / mean_size, cap, alpha, simulations, np.random.default_rng(seed))
    decided = stops <= cap
    median = int(np.median(stops)) if decided.mean() > 0.5 else None
    return QuestionPlan(difference=delta, pilot_n=int(d.size), second_moment=second, fixed_n=fixed_n,
                        sequential_mean_n=float(np.minimum(stops, cap).mean()), sequential_median_n=median,
                        decided_share=float(decided.mean()), cap=cap, simulations=simulations)


def _sequential_stops(sizes: np.ndarray, tilt: float, cap: int, alpha: float, simulations: int,
                      rng: np.random.Generator) -> np.ndarray:
    """The question at which each simulated sequence first excludes 0 (``cap + 1``: never by ``cap``)."""
    stops = np.empty(simulations, dtype=np.int64)
    rows = max(1, _CHUNK_CELLS // cap)
    for start in range(0, simulations, rows):
        count = min(rows, simulations - start)
        drawn = rng.choice(sizes, size=(count, cap))
        signs = np.where(rng.random((count, cap)) < (1 + tilt) / 2, 1.0, -1.0)
        crossed = log_capital(drawn * signs, 0.0, alpha) >= math.log(1 / alpha)
        stops[start:start + count] = np.where(crossed.any(axis=1), crossed.argmax(axis=1) + 1, cap + 1)
    return stops


def pilot_differences(a: Sequence[QuestionScores], b: Sequence[QuestionScores], metric: str) -> list[float]:
    """Run A's minus run B's ``metric`` on each question both have it for, in run A's order.

    Raises:
        KeyError: ``metric`` is not a metric name.
    """
    right = {s.query_id: s.get(metric) for s in b}
    out: list[float] = []
    for s in a:
        x, y = s.get(metric), right.get(s.query_id)
        if x is not None and y is not None:
            out.append(x - y)
    return out
