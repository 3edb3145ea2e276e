"""ReAct as Shao et al. (2023, Appendix B) run it for the MIGRES paper's Table 3: Self-Ask's
markers, with the paragraphs retrieved for each follow-up written into the transcript right
after it, as the action's observation, instead of gathered before the question::

    (a) g <- LLM(instruction, the dataset's demonstrations, "Question: q ...", transcript), stopping
           before "Intermediate answer:" or a new "#";  transcript += g
    (b) while g ends with "Follow up: f" (and fewer than 5 were asked):
            transcript += the top-k paragraphs for f, then "Intermediate answer:";  back to (a)
    (c) the answer after "So the final answer is:" (the loop writes that line if the model does not)

The loop is Self-Ask's (:class:`~hopkit.methods.self_ask.method.SelfAsk`); the prompt is Shao et
al.'s (:mod:`hopkit.methods.react_shao.prompts`), and a follow-up's paragraphs go after it.
``prompt: press`` with ``retrieve_question: true`` is hopkit's earlier form, Press et al.'s four
demonstrations with the question's paragraphs before the question, with which the campaign's saved
cells ran.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Sequence

from hopkit.methods.gathered import Gathered
from hopkit.llm.protocol import LLM
from hopkit.methods.react_shao.prompts import SEPARATOR, prompt_head
from hopkit.methods.self_ask.method import SelfAsk, SelfAskConfig
from hopkit.methods.self_ask.prompts import STOP, question_line
from hopkit.options import check_fields, fixed_after_runs
from hopkit.prompts.layout import render_paragraphs
from hopkit.records import Paragraph
from hopkit.retrieval.protocol import Retriever
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
        retrieve_question: retrieve with the question before the first generation, its paragraphs before
            the question (false: Shao et al.'s Table 10 shows none there; true: as the campaign's saved
            cells ran, pinned).
        max_tokens: budget of each generation.
        trailing_spaces: Press et al.'s demonstrations (``prompt: press``) keep the trailing spaces of
            twelve lines of the authors' notebook (false: each line stripped, as the campaign's saved cells
            ran; pinned).
        prompt: "shao", Shao et al.'s instruction and three demonstrations of the run's dataset (their
            Appendix B; HotPotQA's on a dataset they have none for), each after a "#" line; "press", Press
            et al.'s four Self-Ask demonstrations (as the saved cells ran; pinned, and left out of the run's
            identity).
    """

    retrieve_question: bool = False
    prompt: Literal["shao", "press"] = field(default="shao", metadata=fixed_after_runs("press"))

    def __post_init__(self) -> None:
        check_fields(self, "ReAct (Shao et al.) option")


class ReActShao(SelfAsk):
    """ReAct with Self-Ask's markers in Shao et al.'s prompt: (a) the model asks a follow-up (its
    action); (b) the paragraphs for it are its observation, then the model answers it; (c) the final
    answer. Its trace is Self-Ask's."""

    name = "react-shao"
    parts = PARTS

    def __init__(self, llm: LLM, retriever: Retriever, config: ReActShaoConfig = ReActShaoConfig(),
                 dataset: str | None = None) -> None:
        super().__init__(llm, retriever, config)
        self.head = prompt_head(dataset) if config.prompt == "shao" else None  # None: Self-Ask's prompt

    def before_question(self, gathered: Gathered, from_question: list[Paragraph]) -> list[Paragraph]:
        """Only the question's paragraphs sit before it; the follow-ups' are in the transcript."""
        return from_question

    def observation(self, paragraphs: list[Paragraph]) -> str:
        """The follow-up's paragraphs, on the lines after it."""
        return f"\n{render_paragraphs(paragraphs)}" if paragraphs else ""

    def in_prompt(self, shown: list[Paragraph], gathered: Gathered) -> list[int]:
        ids = [p.id for p in shown]
        return ids + [i for i in gathered.ids if i not in ids]

    def ask_stop(self) -> tuple[str, ...]:
        """Self-Ask's stops, and in Shao et al.'s prompt a new "#" line (the next demonstration's)."""
        return STOP if self.head is None else (*STOP, f"\n{SEPARATOR}")

    def prompt_text(self, question: str, transcript: str, shown: Sequence[Paragraph]) -> str:
        """Shao et al.'s instruction and demonstrations, then the question (its paragraphs before it, if
        any) and the transcript; or Self-Ask's prompt (``prompt: press``)."""
        if self.head is None:
            return super().prompt_text(question, transcript, shown)
        parts = [self.head, render_paragraphs(shown), question_line(question) + transcript]
        return "\n".join(part for part in parts if part)
