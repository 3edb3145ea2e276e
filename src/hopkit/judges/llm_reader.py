"""The LLM as SearChain's reader: a generated answer span and a yes/no confidence."""

from __future__ import annotations

import math
from typing import Sequence

from hopkit.judges.llm_prompts import ANSWER_CHECK_SUFFIX, ANSWER_PROMPT, ANSWER_PROMPT_WITH_EXAMPLES, check_template
from hopkit.judges.llm_yes_no import YesNoScorer
from hopkit.judges.protocol import ANSWER, SpanAnswer
from hopkit.judges.timing import timed
from hopkit.llm.protocol import LLM
from hopkit.options import PositiveInt, check_arguments
from hopkit.parsing.answers import clean_direct_answer

ANSWER_STOP = ("\n",)


class LLMAnswerJudge:
    """Reads an answer with the LLM, then asks it whether the passage shows the answer is right.

    For each ``(question, passage)``:

    1. the answer: a greedy completion of the reading prompt, up to the end of the line
       (its first line, a trailing period and any "answer is:" removed);
    2. the confidence: the log-odds s = log P(" yes") - log P(" no") that the model
       gives to "does the passage show that this answer is correct?", asked right after
       the answer (the check prompt extends the reading prompt, so a backend that reuses
       the KV cache evaluates only the new lines).

    This is the counterpart of the DPR reader's relevance logit, with which SearChain's
    authors compare the threshold θ = 1.5: a logit that the passage holds the answer.
    s = 1.5 means P(yes | yes or no) = 0.82. It is asked about the answer read, not the
    passage alone, so a passage that mentions the topic but not the answer scores low.
    The span's own log-probability was not used: it falls with the answer's length in
    tokens, and servers can only score one token. An empty answer is not checked
    (confidence ``-inf``).

    Args:
        llm: a model with the ``"scoring"`` capability.
        examples: open the reading prompt with three worked examples of short answers
            (``ANSWER_PROMPT_WITH_EXAMPLES``; SearChain's default): without them a small
            model answers in sentences. Off: the instruction alone (``ANSWER_PROMPT``).
        prompt: a reading prompt of your own, with ``{passage}`` and ``{question}``
            (replaces the one ``examples`` picks).
        check_prompt: the yes/no check, with ``{passage}``, ``{question}`` and ``{answer}``
            (default: the reading prompt followed by ``ANSWER_CHECK_SUFFIX``).
        max_tokens: the answer's generation budget.
        yes: the continuation meaning yes.
        no: the continuation meaning no.

    Raises:
        LLMError: ``llm`` cannot score continuations.
        ConfigError: a bad prompt, budget or yes/no pair.
    """

    def __init__(self, llm: LLM, *, examples: bool = False, prompt: str | None = None,
                 check_prompt: str | None = None, max_tokens: PositiveInt = 32, yes: str = " yes",
                 no: str = " no") -> None:
        if prompt is None:
            prompt = ANSWER_PROMPT_WITH_EXAMPLES if examples else ANSWER_PROMPT
        if check_prompt is None:
            check_prompt = prompt + ANSWER_CHECK_SUFFIX
        check_template(prompt, {"passage", "question"}, "prompt")
        check_template(check_prompt, {"passage", "question", "answer"}, "check_prompt")
        check_arguments(LLMAnswerJudge.__init__, "LLM answer judge option", max_tokens=max_tokens)
        self.scorer = YesNoScorer(llm, purpose="the LLM answer judge", yes=yes, no=no)
        self.llm = llm
        self.prompt = prompt
        self.check_prompt = check_prompt
        self.max_tokens = max_tokens
        self.judge_id = f"llm:{llm.model_id}" + ("+examples" if prompt == ANSWER_PROMPT_WITH_EXAMPLES else "")

    @timed(ANSWER)
    def answer(self, pairs: Sequence[tuple[str, str]]) -> list[SpanAnswer]:
        """The answer and confidence for each ``(question, passage)`` (two model calls each).

        Raises:
            LLMError: a model call failed.
        """
        return [self._answer_one(question, passage) for question, passage in pairs]

    def _answer_one(self, question: str, passage: str) -> SpanAnswer:
        generation = self.llm.complete(self.prompt.format(passage=passage, question=question), stop=ANSWER_STOP,
                                       max_tokens=self.max_tokens, temperature=0.0).text
        text = clean_direct_answer(generation)
        if not text:
            return SpanAnswer(text="", confidence=-math.inf)
        confidence = self.scorer.log_odds(self.check_prompt.format(passage=passage, question=question, answer=text))
        found = passage.lower().find(text.lower())
        return SpanAnswer(text=text, confidence=confidence, start=found if found >= 0 else None)
