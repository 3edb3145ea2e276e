"""Evaluation: per-question metrics (pure functions), scoring, aggregation with bootstrap intervals."""

from hopkit.evaluation.aggregate import (
    Estimate,
    QuestionCost,
    RunSummary,
    bootstrap_ci,
    paired_bootstrap,
    paired_values,
    summarize_run,
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
    "QuestionCost",
    "QuestionScores",
    "RunSummary",
    "answer_recall",
    "bootstrap_ci",
    "cover_em",
    "exact_match",
    "f1",
    "normalize_answer",
    "paired_bootstrap",
    "paired_values",
    "paragraph_recall",
    "score_question",
    "summarize_run",
    "title_recall",
]
