"""Evaluation: per-question metrics (pure functions), scoring, aggregation with bootstrap intervals,
paired comparisons of two runs."""

from hopkit.evaluation.aggregate import (
    Estimate,
    QuestionCost,
    RunSummary,
    bootstrap_ci,
    paired_bootstrap,
    paired_values,
    summarize_run,
)
from hopkit.evaluation.compare import (
    MetricComparison,
    PairedComparison,
    compare_scores,
    mcnemar_exact,
    sign_flip_test,
)
from hopkit.evaluation.metrics import (
    answer_recall,
    cover_em,
    exact_match,
    f1,
    normalize_answer,
    paragraph_recall,
    title_recall,
)
from hopkit.evaluation.scoring import METRIC_NAMES, QuestionScores, score_question

__all__ = [
    "METRIC_NAMES",
    "Estimate",
    "MetricComparison",
    "PairedComparison",
    "QuestionCost",
    "QuestionScores",
    "RunSummary",
    "answer_recall",
    "bootstrap_ci",
    "compare_scores",
    "cover_em",
    "exact_match",
    "f1",
    "mcnemar_exact",
    "normalize_answer",
    "paired_bootstrap",
    "paired_values",
    "paragraph_recall",
    "score_question",
    "sign_flip_test",
    "summarize_run",
    "title_recall",
]
