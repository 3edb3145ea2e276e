"""From per-question scores and costs to one run's summary, with bootstrap intervals."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Mapping, Sequence

import numpy as np

from hopkit.evaluation.scoring import METRIC_NAMES, QuestionScores
from hopkit.evaluation.cost_columns import cost_values, labelled_components
from hopkit.usage import Usage

__all__ = [
    "Estimate",
    "QuestionCost",
    "RunSummary",
    "bootstrap_ci",
    "paired_bootstrap",
    "paired_values",
    "summarize_run",
]

logger = logging.getLogger(__name__)

# Resampled index matrices are built in blocks of at most this many cells, so a
# large evaluation set never allocates n_resamples * n integers at once.
_MAX_BLOCK_CELLS = 2_000_000


@dataclass(frozen=True)
class Estimate:
    """A mean with a bootstrap confidence interval over ``n`` values.

    ``confidence`` is the interval's nominal coverage (0.95 for a 95% interval).
    """

    mean: float
    low: float
    high: float
    n: int
    confidence: float = 0.95

    @property
    def half_width(self) -> float:
        """Half the interval's width, for "mean ± half-width" displays."""
        return (self.high - self.low) / 2


@dataclass(frozen=True)
class QuestionCost:
    """What one question cost: the usage record the runner stored with it.

    ``usage.total_seconds`` is the wall time of the whole question; ``failed`` says
    the method raised on it (its spending still counts towards the run's cost).
    """

    usage: Usage
    failed: bool = False


def _cost(key: str, doc: str) -> property:
    return property(lambda self: self.cost.get(key, 0.0), doc=doc)


@dataclass(frozen=True)
class RunSummary:
    """One run's results: metric estimates and per-question costs.

    ``metrics`` maps metric names (see :data:`hopkit.evaluation.scoring.METRIC_NAMES`)
    to estimates; a metric that applies to no question of the run (retrieval
    metrics of NoR) is absent. ``n_questions`` counts every attempted question,
    ``n_failed`` those where the method raised. ``cost`` holds the run's value of each
    cost column that applies to it (:func:`hopkit.evaluation.cost_columns.cost_values`:
    means over all attempted questions, by column key), ``components`` the usage
    components besides the model's and retrieval that its questions entered (judges,
    labels such as ``migres:leaf``).
    """

    run_id: str
    name: str
    method: str
    dataset: str
    n_questions: int
    n_failed: int
    metrics: Mapping[str, Estimate]
    cost: Mapping[str, float] = field(default_factory=lambda: MappingProxyType({}))
    components: tuple[str, ...] = ()

    llm_calls_per_q = _cost("llm_calls_per_q", "Model calls per question.")
    prompt_tokens_per_q = _cost("prompt_tokens_per_q", "Prompt tokens per question.")
    completion_tokens_per_q = _cost("completion_tokens_per_q", "Generated tokens per question.")
    cached_prompt_share = _cost("cached_prompt_share", "The share of prompt tokens served from a cache.")
    seconds_per_q = _cost("seconds_per_q", "Wall seconds per question.")
    llm_seconds_per_q = _cost("llm_seconds_per_q", "Seconds per question in model calls (any component's).")
    retrieval_seconds_per_q = _cost("retrieval_seconds_per_q", "Seconds per question in retriever calls.")
    other_seconds_per_q = _cost("other_seconds_per_q", "Seconds per question outside every component.")


def _as_vector(values: Sequence[float], what: str) -> np.ndarray:
    arr = np.asarray(values, dtype=float)
    if arr.ndim != 1:
        raise ValueError(f"{what}: expected a flat sequence of numbers, got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{what}: no values; an estimate needs at least one question")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{what}: values contain NaN or infinity; metrics must be finite numbers")
    return arr


def _check_options(n_resamples: int, confidence: float) -> None:
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, int) or n_resamples < 1:
        raise ValueError(f"n_resamples must be a positive integer, got {n_resamples!r}")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must lie strictly between 0 and 1, got {confidence!r}")


def _percentile_interval(arr: np.ndarray, n_resamples: int, confidence: float,
                         seed: int) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean of ``arr``."""
    n = arr.size
    rng = np.random.default_rng(seed)
    means = np.empty(n_resamples, dtype=float)
    block = max(1, _MAX_BLOCK_CELLS // n)
    for start in range(0, n_resamples, block):
        stop = min(start + block, n_resamples)
        idx = rng.integers(0, n, size=(stop - start, n))
        means[start:stop] = arr[idx].mean(axis=1)
    alpha = (1.0 - confidence) / 2
    low, high = np.quantile(means, [alpha, 1.0 - alpha])
    return float(low), float(high)


def bootstrap_ci(values: Sequence[float], *, n_resamples: int = 1000, confidence: float = 0.95,
                 seed: int = 0) -> Estimate:
    """Mean of ``values`` with a percentile bootstrap confidence interval.

    The same values, options and seed always give the same interval. The interval
    is widened, if need be, to contain the sample mean (with a handful of values a
    Monte Carlo percentile can land just beside it).

    Args:
        values: Per-question values (at least one, all finite).
        n_resamples: Number of bootstrap resamples.
        confidence: Coverage of the interval, strictly between 0 and 1.
        seed: Seed of the resampling generator.

    Returns:
        The mean, the interval's bounds and the number of values.

    Raises:
        ValueError: ``values`` is empty or not finite, or an option is out of range.
    """
    _check_options(n_resamples, confidence)
    arr = _as_vector(values, "bootstrap_ci")
    mean = float(arr.mean())
    low, high = _percentile_interval(arr, n_resamples, confidence, seed)
    return Estimate(mean, min(low, mean), max(high, mean), int(arr.size), confidence)


def paired_bootstrap(a: Sequence[float], b: Sequence[float], *, n_resamples: int = 1000,
                     confidence: float = 0.95, seed: int = 0) -> Estimate:
    """Mean difference ``a - b`` over the same questions, with a paired bootstrap interval.

    Questions are resampled together, so the interval reflects the variation of
    the per-question differences rather than of each run alone. An interval that
    excludes 0 says the difference is unlikely to be resampling noise.

    Args:
        a: One run's per-question values.
        b: The other run's values for the same questions, in the same order (see
            :func:`paired_values`).
        n_resamples: Number of bootstrap resamples.
        confidence: Coverage of the interval.
        seed: Seed of the resampling generator.

    Returns:
        The estimate of mean(a) - mean(b).

    Raises:
        ValueError: The sequences differ in length, are empty or not finite.
    """
    if len(a) != len(b):
        raise ValueError(f"paired_bootstrap: the runs have {len(a)} and {len(b)} values; pair them "
                         "on the same questions first (paired_values does)")
    diff = _as_vector(a, "paired_bootstrap (a)") - _as_vector(b, "paired_bootstrap (b)")
    return bootstrap_ci(diff.tolist(), n_resamples=n_resamples, confidence=confidence, seed=seed)


def paired_values(a: Sequence[QuestionScores], b: Sequence[QuestionScores],
                  metric: str) -> tuple[list[float], list[float]]:
    """Pair two runs' values of one metric on the questions both have a value for.

    Args:
        a: One run's scores.
        b: The other run's scores.
        metric: A name from :data:`hopkit.evaluation.scoring.METRIC_NAMES`.

    Returns:
        Two equally long lists, ordered by question id.

    Raises:
        KeyError: ``metric`` is not a metric name.
        ValueError: A run scores the same question twice, or no question is shared.
    """
    if metric not in METRIC_NAMES:
        raise KeyError(f"unknown metric {metric!r}; known: {', '.join(METRIC_NAMES)}")
    left, right = _by_id(a, metric, "a"), _by_id(b, metric, "b")
    shared = sorted(left.keys() & right.keys())
    if not shared:
        raise ValueError(f"paired_values: the runs share no question with a {metric!r} value")
    dropped = len(left) + len(right) - 2 * len(shared)
    if dropped:
        logger.info("paired_values(%s): %d questions scored by only one run are left out",
                    metric, dropped)
    return [left[q] for q in shared], [right[q] for q in shared]


def _by_id(scores: Sequence[QuestionScores], metric: str, side: str) -> dict[str, float]:
    out: dict[str, float] = {}
    for s in scores:
        if s.query_id in out:
            raise ValueError(f"paired_values: run {side} scores question {s.query_id!r} twice")
        value = s.get(metric)
        if value is not None:
            out[s.query_id] = value
    return out


def summarize_run(run_id: str, name: str, method: str, dataset: str,
                  scores: Sequence[QuestionScores], costs: Sequence[QuestionCost], *,
                  n_resamples: int = 1000, confidence: float = 0.95, seed: int = 0) -> RunSummary:
    """Aggregate one run's per-question scores and costs.

    Each metric is averaged over the questions where it applies (not ``None``);
    a metric that applies nowhere is left out of ``metrics`` and logged. Whether
    failed questions appear in ``scores`` (scored as an empty answer, say) or not
    is the caller's choice; both are accepted, and ``n_failed`` is reported either way.

    Args:
        run_id: The run's configuration hash.
        name: The run's display name.
        method: The method name (``IRCoT``, ``NoR`` ...).
        dataset: The dataset name.
        scores: One entry per scored question.
        costs: One entry per attempted question, failed ones included.
        n_resamples: Bootstrap resamples for every interval.
        confidence: Coverage of every interval.
        seed: Seed of the bootstrap.

    Returns:
        The run's summary.

    Raises:
        ValueError: ``costs`` is empty, or the number of scores is below the number
            of questions that did not fail or above the number attempted.
    """
    if not costs:
        raise ValueError(f"summarize_run({name!r}): no per-question costs; pass one QuestionCost "
                         "per attempted question")
    n_questions = len(costs)
    n_failed = sum(1 for c in costs if c.failed)
    if not n_questions - n_failed <= len(scores) <= n_questions:
        raise ValueError(f"summarize_run({name!r}): {len(scores)} scores for {n_questions} "
                         f"questions of which {n_failed} failed; every question that did not "
                         "fail needs a score")
    estimates: dict[str, Estimate] = {}
    for metric in METRIC_NAMES:
        values = [v for v in (s.get(metric) for s in scores) if v is not None]
        if not values:
            logger.info("run %s: metric %s applies to no question, left out", name, metric)
            continue
        if len(values) < len(scores):
            logger.info("run %s: metric %s applies to %d of %d scored questions", name, metric,
                        len(values), len(scores))
        estimates[metric] = bootstrap_ci(values, n_resamples=n_resamples, confidence=confidence,
                                         seed=seed)
    usages = [c.usage for c in costs]
    return RunSummary(
        run_id=run_id,
        name=name,
        method=method,
        dataset=dataset,
        n_questions=n_questions,
        n_failed=n_failed,
        metrics=MappingProxyType(estimates),
        cost=MappingProxyType(cost_values(usages)),
        components=labelled_components(usages),
    )
