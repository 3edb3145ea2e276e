"""What IR decides for one node of a Chain-of-Query (SearChain, Section 3.3 and Algorithm 1).

* :class:`ProcessedQueries` is Algorithm 1's M: a node whose query was processed
  before (the same text once normalised, or a similarity judge's score at or above a
  threshold against an earlier query) is skipped (``DuplicateQuery(q_i, M)``).
* :func:`judge_node` is the body of ``IR(q_i, a_i)`` after retrieval and reading:
  **Completion** — an [Unsolved Query] (or a query the model left without an answer)
  always gets the reader's answer fed back; **Verification** — an answered node is fed
  back when the reader is confident (f > θ) and its answer does not appear in the
  model's (for long-form answers: the model's answer and the passage have a ROUGE-L
  below α). Every other node passes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

from hopkit.evaluation.metrics import normalize_answer, rouge_l
from hopkit.judges.protocol import SimilarityJudge, SpanAnswer

Verdict = Literal["kept", "corrected", "completed", "left_unsolved", "duplicate", "not_reached"]
#: The verdicts of a node, in the trace and the metadata:
#: kept (the model's answer passes), corrected (Verification fed the reader's answer back),
#: completed (Completion fed it back), left_unsolved (an unsolved node not completed: Completion
#: is off, nothing was retrieved or the reader found no answer), duplicate (its query was
#: processed before), not_reached (after the node fed back in its round).
VERDICTS: Final[tuple[Verdict, ...]] = ("kept", "corrected", "completed", "left_unsolved", "duplicate",
                                         "not_reached")
FEEDBACK_VERDICTS: Final = frozenset({"corrected", "completed"})


@dataclass(frozen=True)
class FeedbackRules:
    """The switches and thresholds of Verification and Completion.

    Attributes:
        verification: check answered nodes (off: the "w/o Verification" ablation, Table 1).
        completion: complete unsolved nodes (off: the "w/o Completion" ablation).
        threshold: θ, in the reader's own confidence scale.
        long_form: compare the model's answer with the passage by ROUGE-L (ELI5).
        rouge_threshold: α, the ROUGE-L from which a long-form answer agrees with the passage.
    """

    verification: bool = True
    completion: bool = True
    threshold: float = 1.5
    long_form: bool = False
    rouge_threshold: float = 0.35


def answers_agree(llm_answer: str, reader_answer: str) -> bool:
    """Whether the reader's answer g appears in the model's answer a_i (both normalised, whole words)."""
    needle = normalize_answer(reader_answer)
    return bool(needle) and f" {needle} " in f" {normalize_answer(llm_answer)} "


def judge_node(llm_answer: str | None, reading: SpanAnswer | None, passage: str | None,
               rules: FeedbackRules) -> Verdict:
    """The verdict of a processed node (its query was not a duplicate).

    Args:
        llm_answer: the model's answer a_i; None for an unsolved node.
        reading: the reader's answer g and confidence f on the node's passage; None when
            the reader was not asked (nothing retrieved, or the check is switched off).
        passage: the passage d_i read, for the long-form ROUGE-L rule.
        rules: the switches and thresholds.

    Returns:
        "completed" or "corrected" when the node is fed back, else "kept" or "left_unsolved".
    """
    if llm_answer is None:
        if rules.completion and reading is not None and reading.text:
            return "completed"
        return "left_unsolved"
    if not rules.verification or reading is None or not reading.text or not reading.confidence > rules.threshold:
        return "kept"
    if rules.long_form:
        agrees = passage is not None and rouge_l(llm_answer, passage) >= rules.rouge_threshold
    else:
        agrees = answers_agree(llm_answer, reading.text)
    return "kept" if agrees else "corrected"


class ProcessedQueries:
    """Algorithm 1's M: the queries already processed, each with what it was recorded as.

    Args:
        judge: scores a query against the processed ones (the duplicate-query check).
        threshold: the score from which a query is the same as a processed one.
    """

    def __init__(self, judge: SimilarityJudge, threshold: float) -> None:
        self.judge = judge
        self.threshold = threshold
        self._texts: list[str] = []
        self._keys: dict[str, int] = {}
        self._records: list[int] = []

    def find(self, query: str) -> tuple[int, float] | None:
        """The record of the processed query ``query`` repeats, and the score that matched it (1.0 for
        the same normalised text); None for a new query."""
        key = normalize_answer(query)
        if key in self._keys:
            return self._records[self._keys[key]], 1.0
        if not self._texts:
            return None
        scores = self.judge.similarity(query, self._texts)
        best = max(range(len(scores)), key=scores.__getitem__)
        return (self._records[best], float(scores[best])) if scores[best] >= self.threshold else None

    def add(self, query: str, record: int) -> None:
        """Mark ``query`` as processed (``M.add(q_i)``), recorded as ``record``."""
        self._keys.setdefault(normalize_answer(query), len(self._texts))
        self._texts.append(query)
        self._records.append(record)
