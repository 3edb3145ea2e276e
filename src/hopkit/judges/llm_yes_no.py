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
from hopkit.llm.protocol import LLM, SCORING, ScoringLLM, require


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


class LLMRelevanceJudge:
    """Relevance as the log-odds that the model answers "yes" to "does the passage help?".

    Args:
        llm: a model with the ``"scoring"`` capability.
        prompt: the question, with ``{query}`` and ``{text}``.
        yes: the continuation meaning yes.
        no: the continuation meaning no.

    Raises:
        LLMError: ``llm`` cannot score continuations.
        ConfigError: a bad prompt or yes/no pair.
    """

    def __init__(self, llm: LLM, *, prompt: str = RELEVANCE_PROMPT, yes: str = " yes", no: str = " no") -> None:
        check_template(prompt, {"query", "text"}, "prompt")
        self.scorer = YesNoScorer(llm, purpose="the LLM relevance judge", yes=yes, no=no)
        self.prompt = prompt
        self.judge_id = f"llm:{llm.model_id}"

    @timed(RELEVANCE)
    def relevance(self, query: str, texts: Sequence[str]) -> list[float]:
        """The log-odds of "yes" for each text (one scoring call each).

        Raises:
            LLMError: a scoring call failed.
        """
        return [self.scorer.log_odds(self.prompt.format(query=query, text=text)) for text in texts]


class LLMEntailmentJudge:
    """Entailment as P(yes | yes or no) to "does the premise entail the hypothesis?".

    Args:
        llm: a model with the ``"scoring"`` capability.
        prompt: the question, with ``{premise}`` and ``{hypothesis}``.
        yes: the continuation meaning yes.
        no: the continuation meaning no.

    Raises:
        LLMError: ``llm`` cannot score continuations.
        ConfigError: a bad prompt or yes/no pair.
    """

    def __init__(self, llm: LLM, *, prompt: str = ENTAILMENT_PROMPT, yes: str = " yes", no: str = " no") -> None:
        check_template(prompt, {"premise", "hypothesis"}, "prompt")
        self.scorer = YesNoScorer(llm, purpose="the LLM entailment judge", yes=yes, no=no)
        self.prompt = prompt
        self.judge_id = f"llm:{llm.model_id}"

    @timed(ENTAILMENT)
    def entailment(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        """P(yes) for each ``(premise, hypothesis)`` (one scoring call each).

        Raises:
            LLMError: a scoring call failed.
        """
        return [sigmoid(self.scorer.log_odds(self.prompt.format(premise=premise, hypothesis=hypothesis)))
                for premise, hypothesis in pairs]


class LLMSimilarityJudge:
    """Similarity as P(yes | yes or no) to "do the two queries ask for the same information?".

    Args:
        llm: a model with the ``"scoring"`` capability.
        prompt: the question, with ``{text}`` and ``{other}``.
        yes: the continuation meaning yes.
        no: the continuation meaning no.

    Raises:
        LLMError: ``llm`` cannot score continuations.
        ConfigError: a bad prompt or yes/no pair.
    """

    def __init__(self, llm: LLM, *, prompt: str = SIMILARITY_PROMPT, yes: str = " yes", no: str = " no") -> None:
        check_template(prompt, {"text", "other"}, "prompt")
        self.scorer = YesNoScorer(llm, purpose="the LLM similarity judge", yes=yes, no=no)
        self.prompt = prompt
        self.judge_id = f"llm:{llm.model_id}"

    @timed(SIMILARITY)
    def similarity(self, text: str, others: Sequence[str]) -> list[float]:
        """P(yes) for ``text`` against each other text (one scoring call each).

        Raises:
            LLMError: a scoring call failed.
        """
        return [sigmoid(self.scorer.log_odds(self.prompt.format(text=text, other=other))) for other in others]
