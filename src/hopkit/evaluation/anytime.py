"""Anytime-valid paired comparison: a confidence sequence for the mean difference and its e-value.

Looking at a fixed-n paired test after every batch and stopping at p < 0.05 is not a test at
level 0.05: each look is another chance of a false alarm. A *confidence sequence* is a sequence
of intervals that holds the true difference at every n at once with probability 1 - alpha, so
it may be looked at after every question and the look may decide when to stop.

Construction (Waudby-Smith & Ramdas, "Estimating means of bounded random variables by
betting", JRSSB 2024, the hedged capital process with predictable plug-in bets; the same
process as ``confseq.betting.betting_mart(..., convex_comb=True)`` with its default bets):

* a per-question difference d = score(A) - score(B) lies in [-1, 1]; x = (d + 1) / 2 in [0, 1]
  and a candidate difference delta becomes the candidate mean m = (delta + 1) / 2;
* two gamblers bet on x against m, one that it is above, one below. Before question t each
  stakes lambda_t = sqrt(2 log(1/alpha) / (sigma2_{t-1} t log(1 + t))), capped at 1/(2m)
  (above) or 1/(2(1 - m)) (below), where sigma2 is a regularised running variance of x
  (prior 1/4, one pseudo-observation) and mu its running mean (prior 1/2);
* their wealth K+_n(m) = prod(1 + lambda+ (x_t - m)) and K-_n(m) = prod(1 - lambda- (x_t - m))
  averaged, K_n(m) = (K+ + K-) / 2, is a nonnegative martingale with mean 1 when m is the true
  mean, so by Ville's inequality it ever reaches 1/alpha with probability at most alpha;
* the confidence sequence is {delta : K_n(m) < 1/alpha}, intersected over every n so far; the
  e-value for "no difference" is K_n(1/2) and the anytime-valid p-value
  min(1, 1 / max_{k<=n} K_k(1/2)). The comparison is *decided at n* the first time
  K_n(1/2) >= 1/alpha, which is the first n at which the sequence excludes 0.

Why this one: it needs nothing but boundedness (0/1 metrics and F1 or recall alike), adapts
to the variance (ties cost nothing, unlike a Hoeffding bound), and is the tightest of the
bounded-mean sequences in that paper's comparisons. The beta-binomial mixture of a sequential
sign test on discordant questions only tests "no difference" for 0/1 metrics and gives no
interval in points; Howard et al.'s sub-Gaussian or empirical-Bernstein boundaries (``confseq``
``uniform_boundaries``) are valid too but wider at a few dozen questions. Forty lines of
numpy beat a dependency (``confseq`` ships no wheel and needs a C++ build).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

__all__ = ["AnytimeTest", "GRID_STEP", "anytime_test", "confidence_sequence", "log_capital"]

#: Spacing, in difference units, of the candidate differences the sequence is read off.
GRID_STEP = 0.0005
_TRUNCATION = 0.5  # the bet never stakes more than half of what a loss could take
_CHUNK_CELLS = 2_000_000  # (candidate, question) cells held at once


@dataclass(frozen=True)
class AnytimeTest:
    """The confidence sequence and e-value after ``n`` questions, in the order they were seen.

    Attributes:
        n: questions seen.
        low: lower end of the (1 - alpha) confidence sequence at n (a difference, -1 to 1).
        high: upper end.
        e_value: the hedged capital K_n for "no difference" (large: evidence of a difference).
        p_value: anytime-valid p-value, min(1, 1 / max over k <= n of K_k).
        decided_at: the first n at which the sequence excluded 0 (None: not yet).
        alpha: the level (0.05 for 95%).
    """

    n: int
    low: float
    high: float
    e_value: float
    p_value: float
    decided_at: int | None
    alpha: float = 0.05

    @property
    def decided(self) -> bool:
        """True once the sequence has excluded 0 (it stays decided: the intervals only shrink)."""
        return self.decided_at is not None


def _checked(differences: Sequence[float] | np.ndarray, alpha: float) -> np.ndarray:
    d = np.asarray(differences, dtype=float)
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"anytime test: alpha must be between 0 and 1, got {alpha!r}")
    if d.size and (not np.all(np.isfinite(d)) or np.abs(d).max() > 1.0):
        raise ValueError("anytime test: paired differences must be finite and within [-1, 1] (metrics in [0, 1])")
    return d


def _bets(x: np.ndarray, alpha: float) -> np.ndarray:
    """The predictable plug-in stake before each observation, along the last axis of ``x``."""
    t = np.arange(1, x.shape[-1] + 1, dtype=float)
    mean = (0.5 + np.cumsum(x, axis=-1)) / (t + 1)
    variance = (0.25 + np.cumsum((x - mean) ** 2, axis=-1)) / (t + 1)
    before = np.concatenate([np.full(x.shape[:-1] + (1,), 0.25), variance[..., :-1]], axis=-1)
    stakes: np.ndarray = np.sqrt(2 * math.log(1 / alpha) / (before * t * np.log1p(t)))
    return stakes


def log_capital(differences: np.ndarray, null: float | np.ndarray = 0.0, alpha: float = 0.05) -> np.ndarray:
    """log K_n of the hedged capital process against ``null``, after each of the differences.

    Args:
        differences: per-question differences in [-1, 1], sequences along the last axis (any
            leading axes are independent sequences; the simulations pass thousands at once).
        null: the candidate difference (one value, or one per leading row: shape ``(..., 1)``),
            strictly between -1 and 1.
        alpha: the level the stakes are tuned for.

    Returns:
        An array shaped like ``differences``: log K_1, ..., log K_n.
    """
    x = (np.asarray(differences, dtype=float) + 1.0) / 2.0
    return _log_capital(x, _bets(x, alpha), np.asarray(null, dtype=float))


def _log_capital(x: np.ndarray, stakes: np.ndarray, null: np.ndarray) -> np.ndarray:
    m = (null + 1.0) / 2.0
    up = np.minimum(stakes, _TRUNCATION / m)
    down = np.minimum(stakes, _TRUNCATION / (1.0 - m))
    log_up = np.cumsum(np.log1p(up * (x - m)), axis=-1)
    log_down = np.cumsum(np.log1p(-down * (x - m)), axis=-1)
    result: np.ndarray = np.logaddexp(log_up, log_down) - math.log(2.0)
    return result


def _highest_capital(d: np.ndarray, candidates: np.ndarray, alpha: float) -> np.ndarray:
    """max over n of log K_n(candidate) for each candidate difference, one sequence ``d``."""
    x = (d + 1.0) / 2.0
    stakes = _bets(x, alpha)
    rows = max(1, _CHUNK_CELLS // max(1, d.size))
    return np.concatenate([_log_capital(x, stakes, candidates[start:start + rows, None]).max(axis=1)
                           for start in range(0, candidates.size, rows)])


def _final_interval(d: np.ndarray, alpha: float) -> tuple[float, float] | None:
    """The sequence's interval after the last question: candidates 1 point apart first, then each end refined
    to :data:`GRID_STEP` between the last candidate out and the first in (None: no candidate is in)."""
    threshold = math.log(1 / alpha)
    coarse = np.round(np.arange(-99, 100) / 100, 10)
    inside = np.flatnonzero(_highest_capital(d, coarse, alpha) < threshold)
    if inside.size == 0:
        return None
    steps = round(0.01 / GRID_STEP)
    ends = []
    for edge, direction in ((coarse[inside[0]], -1), (coarse[inside[-1]], 1)):
        fine = np.round(edge + direction * GRID_STEP * np.arange(steps), 10)
        fine = fine[np.abs(fine) < 1.0]
        kept = fine[_highest_capital(d, fine, alpha) < threshold]
        ends.append(float(kept.min() if direction < 0 else kept.max()))
    return ends[0], ends[1]


def confidence_sequence(differences: Sequence[float] | np.ndarray, alpha: float = 0.05
                        ) -> tuple[np.ndarray, np.ndarray]:
    """The (1 - alpha) confidence sequence for the mean difference after each question.

    At question n it is the set of candidate differences whose capital has stayed below 1/alpha at every
    k <= n (the running intersection), read off a grid :data:`GRID_STEP` apart and reported as its lowest
    and highest grid point (an inner approximation, off by less than one step). Where that set is empty
    (an event of probability at most alpha) the last non-empty interval stays.

    Args:
        differences: per-question differences A - B in [-1, 1], in the order the questions were seen.
        alpha: 1 - coverage.

    Returns:
        ``(low, high)``, one value per question.

    Raises:
        ValueError: a difference is outside [-1, 1] or not finite, or alpha is not in (0, 1).
    """
    d = _checked(differences, alpha)
    grid = np.round(np.arange(1, round(2 / GRID_STEP)) * GRID_STEP - 1.0, 10)
    first = np.full(d.size, grid.size)  # index of the lowest grid point still inside at each n
    last = np.full(d.size, -1)
    rows = max(1, _CHUNK_CELLS // max(1, d.size))
    for start in range(0, grid.size, rows):
        block = grid[start:start + rows, None]
        inside = np.maximum.accumulate(log_capital(np.broadcast_to(d, (block.size, d.size)), block, alpha),
                                       axis=1) < math.log(1 / alpha)
        seen = inside.any(axis=0)
        first = np.where(seen, np.minimum(first, start + inside.argmax(axis=0)), first)
        last = np.where(seen, np.maximum(last, start + block.size - 1 - inside[::-1].argmax(axis=0)), last)
    empty = last < 0
    kept = np.maximum.accumulate(np.where(empty, -1, np.arange(d.size)))  # the last n with a non-empty set
    low = np.where(kept >= 0, grid[np.minimum(first[np.maximum(kept, 0)], grid.size - 1)], -1.0)
    high = np.where(kept >= 0, grid[np.maximum(last[np.maximum(kept, 0)], 0)], 1.0)
    return low, high


def anytime_test(differences: Sequence[float] | np.ndarray, alpha: float = 0.05) -> AnytimeTest:
    """The confidence sequence and the e-value for "no difference" after every difference given.

    Args:
        differences: per-question differences A - B in [-1, 1], in the order the questions were seen
            (the dataset's stored order: the order is part of a sequential test).
        alpha: 1 - coverage (0.05: 95%).

    Returns:
        The state after the last question.

    Raises:
        ValueError: no difference given, a difference outside [-1, 1], or alpha not in (0, 1).
    """
    d = _checked(differences, alpha)
    if d.size == 0:
        raise ValueError("anytime test: no paired difference to test")
    log_k = log_capital(d, 0.0, alpha)
    crossed = np.flatnonzero(log_k >= math.log(1 / alpha))
    interval = _final_interval(d, alpha)
    if interval is None:  # the running intersection is empty: the last interval that was not
        lows, highs = confidence_sequence(d, alpha)
        interval = float(lows[-1]), float(highs[-1])
    low, high = interval
    return AnytimeTest(n=int(d.size), low=low, high=high, e_value=float(np.exp(log_k[-1])),
                       p_value=float(min(1.0, math.exp(-float(log_k.max())))),
                       decided_at=int(crossed[0]) + 1 if crossed.size else None, alpha=alpha)
