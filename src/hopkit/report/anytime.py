"""``hopkit compare --anytime`` and ``--plan`` as tables and sentences: the anytime-valid sequence beside the
fixed-n test, and the questions a difference would need."""

from __future__ import annotations

from typing import Sequence

from hopkit.evaluation.planning import QuestionPlan
from hopkit.report.paired import ComparedPair, anytime_cells
from hopkit.report.table import Cell, Column, Table, metric_header

__all__ = ["anytime_sentences", "anytime_table", "plan_table", "PLAN_NOTE"]

PLAN_NOTE = ("Fixed n: questions for the paired test (McNemar or sign-flip) to reach p < 0.05 with 80% power, by "
             "the normal approximation with the pilot's mean squared difference (a 0/1 metric: its share of "
             "discordant questions). Sequential: questions until the anytime-valid sequence excludes 0, from "
             "simulated runs whose per-question differences are the pilot's sizes with signs tilted to the "
             "planned difference; mean (a sequence undecided by the cap counts as the cap) and median, share "
             "decided by the cap (4 x fixed n, at least 200).")


def _p(value: float) -> str:
    return "<0.001" if value < 0.001 else f"{value:.3f}"


def _e(value: float) -> str:
    return f"{value:.3g}" if value < 1e4 else f"{value:.2e}"


def anytime_table(pair: ComparedPair, budget: int = 15) -> Table:
    """One row per metric: the fixed-n test's difference and p beside the anytime-valid sequence, e-value,
    anytime p and the n at which it decided."""
    columns = (Column("metric", "Metric", "text"), Column("n", "n", "int"), Column("difference", "A-B", "text"),
               Column("p", "Fixed-n p", "text"), Column("test", "Test", "text"),
               Column("anytime_cs", "Anytime 95% CS", "text"), Column("e", "e-value", "text"),
               Column("anytime_p", "Anytime p", "text"), Column("decided_at", "Decided at n", "text"))
    rows: list[tuple[Cell, ...]] = []
    for m in pair.comparison.metrics:
        cs, anytime_p, decided = anytime_cells(m)
        e_value = "-" if m.anytime is None else _e(m.anytime.e_value)
        rows.append((metric_header(m.metric, budget), m.n, f"{100 * m.difference.mean:+.1f}", _p(m.p_value), m.test,
                     cs, e_value, anytime_p, decided))
    return Table(columns, tuple(rows))


def anytime_sentences(pair: ComparedPair, budget: int = 15) -> list[str]:
    """One line per metric: "EM: decided at n = 12 (A higher)" or "F1: not decided at n = 30"."""
    lines = []
    for m in pair.comparison.metrics:
        a, name = m.anytime, metric_header(m.metric, budget)
        if a is None or a.decided_at is None:
            lines.append(f"{name}: not decided at n = {m.n} (the sequence still holds 0)")
            continue
        higher = pair.label_a if a.low > 0 else pair.label_b
        lines.append(f"{name}: decided at n = {a.decided_at} ({higher} higher)")
    return lines


def plan_table(plans: Sequence[tuple[str, QuestionPlan | str]], budget: int = 15) -> Table:
    """One row per metric: the pilot's size, the fixed n at 80% power and the sequential stop; a metric that
    cannot be planned says why in the last column."""
    columns = (Column("metric", "Metric", "text"), Column("pilot", "Pilot n", "text"),
               Column("second", "Mean d^2", "text"), Column("fixed", "Fixed n (80%)", "text"),
               Column("mean", "Sequential mean n", "text"), Column("median", "Median n", "text"),
               Column("decided", "Decided by cap", "text"), Column("why", "Note", "text"))
    rows: list[tuple[Cell, ...]] = []
    for metric, plan in plans:
        name = metric_header(metric, budget)
        if isinstance(plan, str):
            rows.append((name, "-", "-", "-", "-", "-", "-", plan))
            continue
        median = "-" if plan.sequential_median_n is None else str(plan.sequential_median_n)
        rows.append((name, str(plan.pilot_n), f"{plan.second_moment:.3f}", str(plan.fixed_n),
                     f"{plan.sequential_mean_n:.0f}", median, f"{100 * plan.decided_share:.0f}% by {plan.cap}", ""))
    return Table(columns, tuple(rows))
