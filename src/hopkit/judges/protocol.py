"""The four judges the methods call besides the generator, each a one-method protocol.

- :class:`RelevanceJudge`: how relevant each text is to a query (MIGRES's reranker and
  its sentence-level filter);
- :class:`EntailmentJudge`: the probability that a premise entails a hypothesis
  (MIGRES's NLI check of extracted information, citation checks);
- :class:`AnswerJudge`: an answer span read from a passage, with a confidence
  (SearChain's reader);
- :class:`SimilarityJudge`: how similar a text is to others (SearChain's check for a
  query asked before).

Every call is batched (one query and many texts, or many pairs) so a dedicated model
can score a batch in one forward pass, and is timed under its own usage component
(:data:`COMPONENTS`). Each judge has a ``judge_id`` naming its backend and model, for
run hashes and traces. Backends: the LLM as judge (:mod:`hopkit.judges.llm_yes_no`,
:mod:`hopkit.judges.llm_reader`), a token-set measure (:mod:`hopkit.judges.lexical`),
dedicated models (:mod:`hopkit.judges.cross_encoder`, :mod:`hopkit.judges.nli`,
:mod:`hopkit.judges.extractive`) and scripted doubles (:mod:`hopkit.judges.scripted`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Protocol, Sequence, runtime_checkable

#: The usage component (see :func:`hopkit.usage.usage_component`) each judge's calls count under.
RELEVANCE: Final = "judge:relevance"
ENTAILMENT: Final = "judge:entailment"
ANSWER: Final = "judge:answer"
SIMILARITY: Final = "judge:similarity"
COMPONENTS: Final = (RELEVANCE, ENTAILMENT, ANSWER, SIMILARITY)


@dataclass(frozen=True)
class SpanAnswer:
    """An answer read from one passage, and how sure the reader is that the passage gives it.

    Attributes:
        text: the answer ("" when the reader found none).
        confidence: a logit-scale score, higher is surer: SearChain feeds the reader's
            answer back when it is above a threshold θ (1.5 with the authors' DPR
            reader). Each backend says what it computes; an empty ``text`` has
            ``-inf`` (above no threshold).
        start: the character offset of ``text`` in the passage when it is a span of it
            (found case-insensitively for a generated answer), else None.
    """

    text: str
    confidence: float
    start: int | None = None


@runtime_checkable
class RelevanceJudge(Protocol):
    """Scores texts (passages, sentences) by their relevance to a query."""

    judge_id: str

    def relevance(self, query: str, texts: Sequence[str]) -> list[float]:
        """One score per text, in order; higher is more relevant.

        The scale is the backend's: a logit for a cross-encoder, the log-odds of "yes"
        against "no" for the LLM judge (both 0 at even odds), so a threshold such as
        MIGRES's 3.0 is set per backend.
        """
        ...


# An entailment probability from which a statement counts as supported (ALCE's NLI check: >= 0.5).
ENTAILED: Final = 0.5


@runtime_checkable
class EntailmentJudge(Protocol):
    """Says how probably each premise entails its hypothesis."""

    judge_id: str

    def entailment(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        """P(premise entails hypothesis) in [0, 1] for each ``(premise, hypothesis)``, in order."""
        ...


@runtime_checkable
class AnswerJudge(Protocol):
    """Reads an answer to a question from a passage, with a confidence."""

    judge_id: str

    def answer(self, pairs: Sequence[tuple[str, str]]) -> list[SpanAnswer]:
        """The answer of each ``(question, passage)``, in order."""
        ...


@runtime_checkable
class SimilarityJudge(Protocol):
    """Scores how similar a text is to each of others (two queries asking the same thing)."""

    judge_id: str

    def similarity(self, text: str, others: Sequence[str]) -> list[float]:
        """One score in [0, 1] per other text, in order; 1 means the same."""
        ...
