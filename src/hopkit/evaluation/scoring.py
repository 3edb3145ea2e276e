"""Score one question: its answer against the gold answers, its paragraphs against the gold ones."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from hopkit.errors import DataError
from hopkit.evaluation import metrics
from hopkit.records import Paragraph, Query

__all__ = ["QuestionScores", "score_question", "METRIC_NAMES"]

#: The metric fields of :class:`QuestionScores`, in table order.
METRIC_NAMES: tuple[str, ...] = ("em", "f1", "cover_em", "paragraph_recall", "title_recall",
                                 "answer_recall", "llm_accuracy")


@dataclass(frozen=True)
class QuestionScores:
    """The metrics of one question.

    Answer metrics (``em``, ``f1``, ``cover_em``) are always set. A retrieval metric
    is ``None`` when it does not apply to the question, never because it failed:
    the method does not retrieve (NoR), the question has no gold paragraphs
    (``paragraph_recall``) or titles (``title_recall``), or it is a yes/no question
    (``answer_recall``: "yes" is not something to find in a paragraph).
    ``llm_accuracy`` (the MIGRES paper's Acc†: 1 when an LLM judge says the answer
    implies the gold one) is ``None`` unless verdicts were stored for the run
    (``hopkit judge``); :func:`score_question` never sets it, the scorer of stored
    runs does (:mod:`hopkit.scoring_runs`).
    Aggregation averages each metric over the questions where it applies.
    """

    query_id: str
    em: float
    f1: float
    cover_em: float
    paragraph_recall: float | None
    title_recall: float | None
    answer_recall: float | None
    llm_accuracy: float | None = None

    def get(self, metric: str) -> float | None:
        """The value of one metric by name (one of :data:`METRIC_NAMES`).

        Raises:
            KeyError: ``metric`` is not a metric name.
        """
        if metric not in METRIC_NAMES:
            raise KeyError(f"unknown metric {metric!r}; known: {', '.join(METRIC_NAMES)}")
        value: float | None = getattr(self, metric)
        return value


def _is_yes_no(query: Query) -> bool:
    if query.answer_type == "yes_no":
        return True
    return all(metrics.normalize_answer(a) in ("yes", "no") for a in query.answers)


def score_question(query: Query, prediction: str, retrieved: Sequence[Paragraph] | None,
                   budget: int = 15) -> QuestionScores:
    """Compute every metric of one question.

    Args:
        query: The question with its gold answers, gold paragraph ids and titles.
        prediction: The method's final answer text.
        retrieved: The paragraphs the method collected, in collection order, or
            ``None`` if the method does not retrieve by design (NoR); then every
            retrieval metric is ``None``. An empty sequence means the method
            retrieved but found nothing, which scores 0 recall.
        budget: Only the first ``budget`` retrieved paragraphs count for retrieval
            metrics (IRCoT: 15).

    Returns:
        The question's scores; see :class:`QuestionScores` for when a retrieval
        metric is ``None``.

    Raises:
        DataError: The query has no gold answers (names the query id).
        ValueError: ``budget`` is not a positive integer.
    """
    if isinstance(budget, bool) or not isinstance(budget, int) or budget < 1:
        raise ValueError(f"score_question: budget must be a positive integer, got {budget!r} "
                         "(the papers use 15)")
    if not query.answers:
        raise DataError("no gold answers; it cannot be scored (drop it from the evaluation set "
                        "or fix the dataset loader)", record=query.id, field="answers")
    em = metrics.exact_match(prediction, query.answers)
    f1 = metrics.f1(prediction, query.answers)
    cover = metrics.cover_em(prediction, query.answers)
    if retrieved is None:
        return QuestionScores(query.id, em, f1, cover, None, None, None)

    counted = list(retrieved[:budget])
    para: float | None = None
    if query.gold_paragraph_ids:
        para = metrics.paragraph_recall([p.id for p in retrieved], query.gold_paragraph_ids, budget)
    title: float | None = None
    if query.gold_titles:
        title = metrics.title_recall([p.title for p in retrieved], query.gold_titles, budget)
    answer: float | None = None
    if not _is_yes_no(query):
        answer = metrics.answer_recall([f"{p.title} {p.text}" for p in counted], query.answers)
    return QuestionScores(query.id, em, f1, cover, para, title, answer)
