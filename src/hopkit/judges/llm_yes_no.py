"""The LLM as judge: relevance, entailment and similarity read from its yes/no log-probabilities.

Each judge asks the model a yes/no question (:mod:`hopkit.judges.llm_prompts`) and
scores the two answers as continuations with ``score_continuations``, one call per
item; nothing is generated. With s = log P(" yes") - log P(" no"), the log-odds of
"yes" within {yes, no}:

- relevance is s itself, on the scale of a cross-encoder's logit (0 at even odds);
- entailment and similarity are P(yes | yes or no) = 1 / (1 + exp(-s)).

The model must have the ``"scoring"`` capability (llama.cpp, OpenAI-compatible
servers that return logprobs); a judge refuses one without it at construction. With a
chat endpoint, whose reply starts without a space, pass ``yes="yes", no="no"``.
"""

from __future__ import annotations

import math
from typing import Sequence, cast

from hopkit.errors import ConfigError
from hopkit.judges.llm_prompts import ENTAILMENT_PROMPT, RELEVANCE_PROMPT, SIMILARITY_PROMPT, check_template
from hopkit.judges.protocol import ENTAILMENT, RELEVANCE, SIMILARITY
from hopkit.judges.timing import timed
from hopkit.llm.protocol import LLM, SCORING, ScoringLLM
from hopkit.llm.capabilities import require


def sigmoid(log_odds: float) -> float:
    """1 / (1 + exp(-log_odds)), without overflow for large negative values."""
    if log_odds >= 0:
        return 1.0 / (1.0 + math.exp(-log_odds))
    odds = math.exp(log_odds)
    return odds / (1.0 + odds)


class YesNoScorer:
    """Reads the log-odds of "yes" against "no" after a prompt, from one scoring call.

    Args:
        llm: a model with the ``"scoring"`` capability.
        purpose: who asks, for the error when the model cannot score.
        yes: the continuation meaning yes (``" yes"`` after ``"Answer:"``).
        no: the continuation meaning no.

    Raises:
        LLMError: ``llm`` lacks the ``"scoring"`` capability.
        ConfigError: ``yes`` or ``no`` is empty, or they are equal.
    """

    def __init__(self, llm: LLM, *, purpose: str, yes: str = " yes", no: str = " no") -> None:
        require(llm, SCORING, purpose=purpose)
        if not yes or not no or yes == no:
            raise ConfigError(f"{purpose}: the yes and no answers must be two different non-empty strings, "
                              f"got yes={yes!r}, no={no!r}")
        self.llm = cast(ScoringLLM, llm)
        self.yes = yes
        self.no = no

    def log_odds(self, prompt: str) -> float:
        """log P(yes | prompt) - log P(no | prompt).

        Raises:
            LLMError: the scoring call failed.
        """
        scores = self.llm.score_continuations(prompt, [self.yes, self.no])
        return scores[0] - scores[1]


class _LLMYesNoJudge:
    """A judge that asks the model one yes/no question per item (the three below differ in their question,
    its fields and what they return).

    Args:
        llm: a model with the ``"scoring"`` capability.
        prompt: the question, with the judge's ``FIELDS`` (default: its ``PROMPT``).
        yes: the continuation meaning yes.
        no: the continuation meaning no.

    Raises:
        LLMError: ``llm`` cannot score continuations.
        ConfigError: a bad prompt or yes/no pair.
    """

    PROMPT: str
    FIELDS: frozenset[str]
    PURPOSE: str

    def __init__(self, llm: LLM, *, prompt: str | None = None, yes: str = " yes", no: str = " no") -> None:
        prompt = self.PROMPT if prompt is None else prompt
        check_template(prompt, set(self.FIELDS), "prompt")
        self.scorer = YesNoScorer(llm, purpose=self.PURPOSE, yes=yes, no=no)
        self.prompt = prompt
        self.judge_id = f"llm:{llm.model_id}"

    def _log_odds(self, **fields: str) -> float:
        return self.scorer.log_odds(self.prompt.format(**fields))


class LLMRelevanceJudge(_LLMYesNoJudge):
    """Relevance as the log-odds that the model answers "yes" to "does the passage help?"
    (the prompt's fields: ``{query}`` and ``{text}``)."""

    PROMPT, FIELDS, PURPOSE = RELEVANCE_PROMPT, frozenset({"query", "text"}), "the LLM relevance judge"

    @timed(RELEVANCE)
    def relevance(self, query: str, texts: Sequence[str]) -> list[float]:
        """The log-odds of "yes" for each text (one scoring call each).

        Raises:
            LLMError: a scoring call failed.
        """
        return [self._log_odds(query=query, text=text) for text in texts]


class LLMEntailmentJudge(_LLMYesNoJudge):
    """Entailment as P(yes | yes or no) to "does the premise entail the hypothesis?"
    (the prompt's fields: ``{premise}`` and ``{hypothesis}``)."""

    PROMPT, FIELDS, PURPOSE = ENTAILMENT_PROMPT, frozenset({"premise", "hypothesis"}), "the LLM entailment judge"

    @timed(ENTAILMENT)
    def entailment(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        """P(yes) for each ``(premise, hypothesis)`` (one scoring call each).

        Raises:
            LLMError: a scoring call failed.
        """
        return [sigmoid(self._log_odds(premise=premise, hypothesis=hypothesis)) for premise, hypothesis in pairs]


class LLMSimilarityJudge(_LLMYesNoJudge):
    """Similarity as P(yes | yes or no) to "do the two queries ask for the same information?"
    (the prompt's fields: ``{text}`` and ``{other}``)."""

    PROMPT, FIELDS, PURPOSE = SIMILARITY_PROMPT, frozenset({"text", "other"}), "the LLM similarity judge"

    @timed(SIMILARITY)
    def similarity(self, text: str, others: Sequence[str]) -> list[float]:
        """P(yes) for ``text`` against each other text (one scoring call each).

        Raises:
            LLMError: a scoring call failed.
        """
        return [sigmoid(self._log_odds(text=text, other=other)) for other in others]
