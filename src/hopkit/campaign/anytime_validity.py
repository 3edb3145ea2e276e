"""The anytime-valid sequence of :mod:`hopkit.evaluation.anytime` checked by simulation: how often it declares a
difference that is not there when looked at after every question, against the naive repeated paired test, and
how often the true difference stays inside it (``python -m benchmarks.report_bench --anytime-simulation``).

Everything is vectorised over the simulated sequences; a scenario draws ``sequences x questions`` per-question
differences in blocks, so memory stays bounded.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from statistics import NormalDist

import numpy as np

from hopkit.evaluation.anytime import log_capital

ALPHA = 0.05
NAIVE_GRADED_FROM = 20  # the first question the naive graded test looks at
_Z_TWO_SIDED = NormalDist().inv_cdf(1 - ALPHA / 2)  # |z| above it: two-sided p < ALPHA
_BLOCK = 1_000  # sequences simulated at once

Draw = Callable[[np.random.Generator, tuple[int, int]], np.ndarray]


def binary(win: float, loss: float) -> Draw:
    """A 0/1 metric: A alone right with probability ``win``, B alone with ``loss`` (difference win - loss)."""
    def draw(rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
        u = rng.random(shape)
        return np.where(u < win, 1.0, np.where(u < win + loss, -1.0, 0.0))
    return draw


def graded(rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
    """An F1-like metric with no difference: each run scores 0 (half the questions), 1 (30%) or a uniform
    partial credit (20%), the two runs independently."""
    def one() -> np.ndarray:
        u = rng.random(shape)
        return np.where(u < 0.5, 0.0, np.where(u < 0.8, 1.0, rng.random(shape)))
    result: np.ndarray = one() - one()
    return result


@dataclass(frozen=True)
class NullResult:
    """Under no difference: the share of sequences declared decided by each look, for each procedure."""

    name: str
    anytime: np.ndarray  # share decided by question n (index n - 1), the anytime-valid sequence
    naive_every: np.ndarray  # the fixed-n paired test looked at after every question, stop at p < 0.05
    naive_batch: np.ndarray  # the same test looked at after every 10 questions
    naive_test: str


@dataclass(frozen=True)
class TrueDifferenceResult:
    """With a true difference: the share of sequences whose interval held it at every n, and when they decided."""

    difference: float
    covered: float
    decided_share: np.ndarray  # share decided (excluded 0) by question n
    median_decided: float | None


def mcnemar_table(most: int) -> np.ndarray:
    """p of the exact McNemar test for every (won, lost) with won + lost <= most (nan elsewhere)."""
    log_factorial = np.array([math.lgamma(k + 1) for k in range(most + 1)])
    total, k = np.meshgrid(np.arange(most + 1), np.arange(most + 1), indexing="ij")
    inside = k <= total
    log_pmf = np.where(inside, log_factorial[total] - log_factorial[k] - log_factorial[np.where(inside, total - k, 0)]
                       - total * math.log(2), -np.inf)
    cdf = np.cumsum(np.exp(log_pmf), axis=1)  # cdf[t, k] = P(Binomial(t, 1/2) <= k)
    won, lost = np.meshgrid(np.arange(most + 1), np.arange(most + 1), indexing="ij")
    n = won + lost
    p = np.minimum(1.0, 2 * cdf[np.minimum(n, most), np.minimum(won, lost)])
    return np.where(n <= most, p, np.nan)


def _naive_binary(d: np.ndarray, table: np.ndarray) -> np.ndarray:
    won, lost = np.cumsum(d > 0, axis=1), np.cumsum(d < 0, axis=1)
    return table[won, lost] < ALPHA


def _naive_sign_flip(d: np.ndarray) -> np.ndarray:
    """The paired sign-flip test by its normal approximation: under "no difference" the sum of the differences
    has mean 0 and variance the sum of their squares (hopkit's exact test tends to it as n grows)."""
    total, squares = np.cumsum(d, axis=1), np.cumsum(d ** 2, axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.abs(total) / np.sqrt(squares)
    # from question 20 on: below, the approximation rejects more often than the exact test would
    return (np.arange(1, d.shape[1] + 1) >= NAIVE_GRADED_FROM) & (squares > 0) & (z > _Z_TWO_SIDED)


def _first_by(hits: np.ndarray, looks: np.ndarray) -> np.ndarray:
    """For each question n, how many sequences had a hit at some look <= n (looks: a 0/1 mask of the looked-at n)."""
    seen = hits & looks[None, :]
    first = np.where(seen.any(axis=1), seen.argmax(axis=1), hits.shape[1])
    return np.bincount(first, minlength=hits.shape[1] + 1)[:-1].cumsum()


def null_scenario(name: str, draw: Draw, sequences: int, questions: int, rng: np.random.Generator,
                  table: np.ndarray | None) -> NullResult:
    """Sequences with no true difference, every procedure looked at after every question (or every 10th)."""
    every, batch = np.ones(questions, bool), (np.arange(1, questions + 1) % 10 == 0)
    counts = np.zeros((3, questions))
    for start in range(0, sequences, _BLOCK):
        d = draw(rng, (min(_BLOCK, sequences - start), questions))
        anytime = log_capital(d, 0.0, ALPHA) >= math.log(1 / ALPHA)
        naive = _naive_binary(d, table) if table is not None else _naive_sign_flip(d)
        counts += [_first_by(anytime, every), _first_by(naive, every), _first_by(naive, batch)]
    shares = counts / sequences
    return NullResult(name, shares[0], shares[1], shares[2],
                      "exact McNemar" if table is not None else "sign-flip (normal approx.)")


def true_difference(win: float, loss: float, sequences: int, questions: int,
                    rng: np.random.Generator) -> TrueDifferenceResult:
    """A 0/1 metric with a true difference ``win - loss``: coverage at every n, and when 0 is excluded."""
    delta = win - loss
    missed = 0
    decided = np.zeros(questions)
    firsts: list[np.ndarray] = []
    for start in range(0, sequences, _BLOCK):
        d = binary(win, loss)(rng, (min(_BLOCK, sequences - start), questions))
        missed += int(np.count_nonzero(log_capital(d, delta, ALPHA).max(axis=1) >= math.log(1 / ALPHA)))
        crossed = log_capital(d, 0.0, ALPHA) >= math.log(1 / ALPHA)
        decided += _first_by(crossed, np.ones(questions, bool))
        firsts.append(np.where(crossed.any(axis=1), crossed.argmax(axis=1) + 1, questions + 1))
    first = np.concatenate(firsts)
    median = float(np.median(first)) if np.mean(first <= questions) > 0.5 else None
    return TrueDifferenceResult(delta, 1 - missed / sequences, decided / sequences, median)


def plot(nulls: list[NullResult], truths: list[TrueDifferenceResult], path: Path) -> None:
    """Left: share of no-difference sequences declared decided by each n; right: share decided with a true one."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    n = np.arange(1, len(nulls[0].anytime) + 1)
    first = nulls[0]
    left.plot(n, 100 * first.naive_every, label=f"{first.naive_test}, after every question")
    left.plot(n, 100 * first.naive_batch, label=f"{first.naive_test}, after every 10 questions")
    for result in nulls:
        left.plot(n, 100 * result.anytime, label=f"anytime sequence ({result.name})")
    left.axhline(100 * ALPHA, color="black", linestyle=":", label="5%")
    left.set(xscale="log", xlabel="questions looked at", ylabel="% of sequences ever declared decided",
             title="No true difference: false decisions")
    left.legend(fontsize=7)
    for truth in truths:
        right.plot(n, 100 * truth.decided_share, label=f"{100 * truth.difference:.0f} points")
    right.set(xscale="log", xlabel="questions", ylabel="% decided (sequence excludes 0)",
              title="True difference (0/1 metric, 30% discordant)")
    right.legend(fontsize=8)
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=110)
    plt.close(figure)


def simulate(sequences: int, questions: int, seed: int) -> tuple[list[NullResult], list[TrueDifferenceResult]]:
    """The no-difference scenarios (a 0/1 metric 30% and 10% discordant, a graded one) and the true differences of
    5, 10 and 20 points (a 0/1 metric 30% discordant)."""
    rng = np.random.default_rng(seed)
    table = mcnemar_table(questions)
    nulls = [null_scenario("0/1, 30% discordant", binary(0.15, 0.15), sequences, questions, rng, table),
             null_scenario("0/1, 10% discordant", binary(0.05, 0.05), sequences, questions, rng, table),
             null_scenario("graded, F1-like", graded, sequences, questions, rng, None)]
    truths = [true_difference(0.15 + delta / 2, 0.15 - delta / 2, sequences, questions, rng)
              for delta in (0.05, 0.10, 0.20)]
    return nulls, truths


def section(nulls: list[NullResult], truths: list[TrueDifferenceResult], sequences: int, questions: int,
            command: str, seconds: float, image: str) -> str:
    """The docs/benchmarks.md section: both tables, the plot, the command."""
    looks = [n for n in (10, 30, 100, 300, 1000) if n <= questions]
    lines = [f"## Anytime-valid paired comparisons: validity by simulation ({sequences:,} sequences x "
             f"{questions:,} questions)", "",
             f"Command: `{command}` ({seconds:.0f} s). The confidence sequence of `hopkit compare --anytime` "
             "(`hopkit.evaluation.anytime`: Waudby-Smith & Ramdas' hedged betting capital) and the fixed-n paired "
             "test hopkit reports, each looked at after every question: the share of sequences with no true "
             "difference ever declared decided by question n (the anytime sequence: its capital reached 1/0.05; "
             "the naive procedure: its p fell under 0.05 at some look).", "",
             "| no true difference | procedure | " + " | ".join(f"by n = {n:,}" for n in looks) + " |",
             "|---|---|" + "---|" * len(looks)]
    for result in nulls:
        rows = [("anytime sequence", result.anytime),
                (f"{result.naive_test}, every question", result.naive_every),
                (f"{result.naive_test}, every 10 questions", result.naive_batch)]
        for label, shares in rows:
            lines.append(f"| {result.name} | {label} | "
                         + " | ".join(f"{100 * shares[n - 1]:.1f}%" for n in looks) + " |")
    lines += ["", "With a true difference (0/1 metric, 30% of questions discordant: A alone right on 15% + d/2, B "
              "alone on 15% - d/2): *covered*, the share of sequences whose interval held the true difference at "
              "every n up to the last; *decided by n*, the share whose interval excluded 0 by question n.", "",
              "| true difference | covered at every n | " + " | ".join(f"decided by n = {n:,}" for n in looks)
              + " | median n decided |", "|---|---|" + "---|" * len(looks) + "---|"]
    for truth in truths:
        median = "-" if truth.median_decided is None else f"{truth.median_decided:.0f}"
        lines.append(f"| {100 * truth.difference:.0f} points | {100 * truth.covered:.2f}% | "
                     + " | ".join(f"{100 * truth.decided_share[n - 1]:.1f}%" for n in looks) + f" | {median} |")
    lines += ["", f"![Share of sequences declared decided against questions looked at]({image})", "",
              "The naive paired test is hopkit's fixed-n test: the exact McNemar test for the 0/1 metrics and, for "
              "the graded one, the paired sign-flip test by its normal approximation (z = sum of differences / "
              "root of the sum of their squares; the exact permutation test is too slow to repeat ten million "
              f"times), looked at from question {NAIVE_GRADED_FROM} on, where the approximation holds. Both are valid at level 0.05 for one look at a fixed n; each further look adds a chance "
              "of a false decision."]
    return "\n".join(lines) + "\n"
