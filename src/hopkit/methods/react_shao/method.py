"""ReAct as Shao et al. (2023, Appendix B) run it for the MIGRES paper's Table 3: Self-Ask's
markers, with the paragraphs retrieved for each follow-up written into the transcript right
after it, as the action's observation, instead of gathered before the question::

    (a) P <- top-k paragraphs for the question (before the question)
    (b) g <- LLM(demonstrations, P, "Question: q ...", transcript), stopping before
           "Intermediate answer:";  transcript += g
    (c) while g ends with "Follow up: f" (and fewer than the limit were asked):
            transcript += the top-k paragraphs for f, then "Intermediate answer:";  back to (b)
    (d) the answer after "So the final answer is:" (the loop writes that line if the model does not)

The loop is Self-Ask's (:class:`~hopkit.methods.self_ask.method.SelfAsk`); only where a
follow-up's paragraphs go differs.
"""

from __future__ import annotations

from dataclasses import dataclass

from hopkit.methods.gathered import Gathered
from hopkit.methods.self_ask.method import SelfAsk, SelfAskConfig
from hopkit.options import check_fields
from hopkit.prompts.layout import render_paragraphs
from hopkit.records import Paragraph
from hopkit.usage import ModelCallParts

#: The parts of react-shao that call the model, each a column of the cost tables (``react-shao:<part>``).
PARTS = ModelCallParts("react-shao", ("ask", "final"))


@dataclass(frozen=True)
class ReActShaoConfig(SelfAskConfig):
    """Options of ReAct in Shao et al.'s form.

    Attributes:
        k: paragraphs retrieved per query, the question and each follow-up (Shao et al.'s 5).
        max_follow_ups: follow-up questions (actions) answered at most (Shao et al.: at most 5 retrievals);
            past it the loop asks for the final answer.
        retrieve_question: retrieve with the question before the first generation (Shao et al.'s
            cost table: about 14 paragraphs for 2.9 calls, one retrieval per call).
        max_tokens: budget of each generation.
        trailing_spaces: Self-Ask's demonstrations keep the trailing spaces of twelve lines of the authors'
            notebook (false: each line stripped, as the campaign's saved cells ran; pinned).
    """

    def __post_init__(self) -> None:
        check_fields(self, "ReAct (Shao et al.) option")


class ReActShao(SelfAsk):
    """ReAct with Self-Ask's markers: (a) retrieve with the question; (b) the model asks a follow-up
    (its action); (c) the paragraphs for it are its observation, then the model answers it; (d)
    the final answer. Its trace is Self-Ask's."""

    name = "react-shao"
    parts = PARTS

    def before_question(self, gathered: Gathered, from_question: list[Paragraph]) -> list[Paragraph]:
        """Only the question's paragraphs sit before it; the follow-ups' are in the transcript."""
        return from_question

    def observation(self, paragraphs: list[Paragraph]) -> str:
        """The follow-up's paragraphs, on the lines after it."""
        return f"\n{render_paragraphs(paragraphs)}" if paragraphs else ""

    def in_prompt(self, shown: list[Paragraph], gathered: Gathered) -> list[int]:
        ids = [p.id for p in shown]
        return ids + [i for i in gathered.ids if i not in ids]
