"""LLM-judged accuracy, the MIGRES paper's Acc†: a language model says whether a prediction
implies the gold answer.

Wang et al. (2024, Section 4.1) judge every final answer with GPT-3.5-1106 and the prompt
of their Table 15 (Appendix E, "Prompt for Evaluating the Correctness of a Model Output";
they cite Shao et al. 2023 for this way of judging); :data:`ACCURACY_PROMPT` is that
prompt, word for word. The text of the paper we have runs the table's lines together;
here each label (Question, Prediction, Ground-truth Answer) stands on its own line above
its value, blocks separated by blank lines. Only the line breaks are ours, not the words.

Any hopkit LLM can judge. A model with the ``"chat"`` capability gets the prompt as one
user turn (GPT-3.5 was a chat model); any other gets it as a completion prompt. The
verdict is read with :func:`hopkit.parsing.parse_yes_no`; a reply that says neither yes
nor no (or both) is kept as an unreadable verdict, never guessed. A judge is identified
by the model's id and :data:`PROMPT_VERSION` plus the way it was asked
(:attr:`AccuracyJudge.identity`), so verdicts of two judges are never mixed.

An answer that exactly matches a gold alias (SQuAD normalisation, as EM) is correct
without asking, so Acc† is never below EM, as in every row of the paper's Table 3. A small
judge needs this: Qwen2.5-Coder-1.5B, asked whether the bare prediction "no" implies the
gold answer "no", replied "No" on 12 of 14 StrategyQA questions. ``ask_exact_matches=True``
asks the model about every answer, as the paper did with GPT-3.5.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Sequence, cast

from hopkit.errors import ConfigError, ParseError
from hopkit.evaluation.metrics import exact_match
from hopkit.llm.protocol import CHAT, LLM, ChatLLM, ChatMessage, Completion
from hopkit.llm.capabilities import supports
from hopkit.parsing import parse_yes_no

__all__ = ["ACCURACY_PROMPT", "EXACT_MATCH_REPLY", "PROMPT_VERSION", "AccuracyJudge", "JudgeIdentity", "Verdict",
           "gold_text"]

#: Table 15 of Wang et al. (2024), "Prompt for Evaluating the Correctness of a Model Output".
ACCURACY_PROMPT: Final = (
    "In the following task, you are given a Question, a model Prediction for the Question, and a "
    "Ground-truth Answer to the Question. You should decide whether the model Prediction implies the "
    "Ground-truth Answer.\n\n"
    "Question\n{question}\n\n"
    "Prediction\n{model_output}\n\n"
    "Ground-truth Answer\n{answer}\n\n"
    "Does the Prediction imply the Ground-truth Answer? Output Yes or No:")

#: Changes whenever :data:`ACCURACY_PROMPT`, :func:`gold_text` or the decoding changes, so
#: verdicts given under an older prompt are never read as this one's.
PROMPT_VERSION: Final = "migres-table15-v2"
#: The stored reply of a verdict given without asking: the prediction is a gold answer.
EXACT_MATCH_REPLY: Final = "(not asked: the prediction exactly matches a gold answer)"
#: How gold aliases are written into the prompt's "Ground-truth Answer".
ALIAS_SEPARATOR: Final = " or "
#: Room for "Yes", "No." or a short lead-in; the verdict is the first word.
MAX_VERDICT_TOKENS: Final = 8


@dataclass(frozen=True)
class JudgeIdentity:
    """Who gave a verdict: the judging model's id and the prompt version (with the way of asking)."""

    model_id: str
    prompt_version: str

    def __str__(self) -> str:
        return f"{self.model_id} ({self.prompt_version})"


@dataclass(frozen=True)
class Verdict:
    """One judged answer: ``correct`` is None when the judge's reply could not be read;
    ``raw`` is the reply as written."""

    correct: bool | None
    raw: str

    @property
    def readable(self) -> bool:
        """Whether the reply said yes or no."""
        return self.correct is not None


def gold_text(answers: Sequence[str]) -> str:
    """The gold answers as the prompt's "Ground-truth Answer": aliases joined by " or ".

    Args:
        answers: the question's gold answers (at least one).

    Returns:
        The text, aliases in their given order, repeats dropped.

    Raises:
        ConfigError: no non-empty gold answer.
    """
    kept = list(dict.fromkeys(a.strip() for a in answers if a.strip()))
    if not kept:
        raise ConfigError("an answer can only be judged against at least one non-empty gold answer")
    return ALIAS_SEPARATOR.join(kept)


class AccuracyJudge:
    """Asks a language model whether a prediction implies the gold answer (Acc†).

    Args:
        llm: any hopkit LLM; with the ``"chat"`` capability the prompt is sent as one user turn.
        max_tokens: the longest reply to generate (the verdict is its first word).
        ask_exact_matches: also ask about predictions that exactly match a gold answer
            (otherwise they are correct without asking).

    Raises:
        ConfigError: ``max_tokens`` is not a positive integer.
    """

    def __init__(self, llm: LLM, *, max_tokens: int = MAX_VERDICT_TOKENS, ask_exact_matches: bool = False) -> None:
        if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1:
            raise ConfigError(f"AccuracyJudge: max_tokens must be a positive integer, got {max_tokens!r}")
        self.llm = llm
        self.max_tokens = max_tokens
        self.chat = supports(llm, CHAT)
        self.ask_exact_matches = ask_exact_matches

    @property
    def identity(self) -> JudgeIdentity:
        """The model id and ``PROMPT_VERSION``, with ``/chat`` or ``/completion`` for the way of asking
        and ``/asks-exact-matches`` when exact matches are asked too."""
        way = "chat" if self.chat else "completion"
        suffix = "/asks-exact-matches" if self.ask_exact_matches else ""
        return JudgeIdentity(self.llm.model_id, f"{PROMPT_VERSION}/{way}{suffix}")

    @staticmethod
    def prompt(question: str, prediction: str, answers: Sequence[str]) -> str:
        """The Table 15 prompt for one answer.

        Raises:
            ConfigError: no non-empty gold answer.
        """
        return ACCURACY_PROMPT.format(question=question.strip(), model_output=prediction.strip(),
                                      answer=gold_text(answers))

    def judge(self, question: str, prediction: str, answers: Sequence[str]) -> Verdict:
        """Ask the model (greedy decoding) and read its verdict.

        Args:
            question: the question's text.
            prediction: the method's final answer.
            answers: the gold answers (aliases).

        Returns:
            The verdict; ``correct`` is None when the reply says neither yes nor no. An exact
            match of a gold answer is correct, with :data:`EXACT_MATCH_REPLY` as its reply,
            unless the judge asks about exact matches too.

        Raises:
            ConfigError: no non-empty gold answer.
            LLMError: the model failed.
        """
        prompt = self.prompt(question, prediction, answers)
        if not self.ask_exact_matches and exact_match(prediction, answers):
            return Verdict(True, EXACT_MATCH_REPLY)
        completion = self._ask(prompt)
        try:
            return Verdict(parse_yes_no(completion.text), completion.text)
        except ParseError:
            return Verdict(None, completion.text)

    def _ask(self, prompt: str) -> Completion:
        if self.chat:
            return cast(ChatLLM, self.llm).complete_chat([ChatMessage("user", prompt)], max_tokens=self.max_tokens,
                                                         temperature=0.0)
        return self.llm.complete(prompt, max_tokens=self.max_tokens, temperature=0.0)
