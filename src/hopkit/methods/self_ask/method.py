"""Self-Ask with a retriever (Press et al., 2023; with paragraphs as Yoran et al. and Shao et al.
give them to the model), as an algorithm box::

    (a) P <- top-k paragraphs for the question
        transcript <- ""
    (b) g <- LLM(demonstrations, P, "Question: q", "Are follow up questions needed here:", transcript)
           stopping before "Intermediate answer:"; transcript += g
    (c) while g ends with "Follow up: f" (and fewer than the limit were asked):
            P <- P + top-k paragraphs for f
            transcript += "Intermediate answer:"; go to (b): the model answers f, then asks again or ends
    (d) the answer after "So the final answer is:"; when the model wrote none, the loop writes that
        line and the model completes it

The paragraphs gathered sit before the question, every one retrieved so far, each once; when
they no longer fit in the context, the oldest are left out of the prompt.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from hopkit.llm.protocol import LLM
from hopkit.methods.gathered import Gathered
from hopkit.methods.prompting import check_fits, fits
from hopkit.methods.self_ask.prompts import FINAL, INTERMEDIATE, STOP, demonstrations, question_line
from hopkit.methods.self_ask.steps import (FinalReason, SelfAskAsk, SelfAskExtract, SelfAskRead, SelfAskRetrieve,
                                           SelfAskSummary)
from hopkit.methods.self_ask.transcript import final_answer, follow_up, without_trailing_follow_up
from hopkit.options import PositiveInt, check_fields, fixed_after_runs
from hopkit.parsing.answers import clean_direct_answer
from hopkit.prompts.layout import render_paragraphs
from hopkit.records import GenerationResult, Paragraph, Query
from hopkit.retrieval.protocol import Retriever
from hopkit.traces import PREVIOUS
from hopkit.traces.payload import record
from hopkit.usage import ModelCallParts

#: The parts of self-ask that call the model, each a column of the cost tables (``self-ask:<part>``).
PARTS = ModelCallParts("self-ask", ("ask", "final"))


@dataclass(frozen=True)
class SelfAskConfig:
    """Options of Self-Ask.

    Attributes:
        k: paragraphs retrieved per query, the question and each follow-up (Shao et al.'s 5).
        max_follow_ups: follow-up questions answered at most (Shao et al.: at most 5 retrievals); past it
            the loop asks for the final answer.
        retrieve_question: retrieve with the question before the first generation (Shao et al.'s
            cost table counts one retrieval per model call).
        max_tokens: budget of each generation.
        trailing_spaces: the demonstrations keep the trailing spaces of twelve lines of the authors' notebook
            (true) or have each line stripped (false: hopkit's copy before issue 71, with which the campaign's saved
            cells ran; pinned, and left out of the run's identity).
    """

    k: PositiveInt = 5
    max_follow_ups: PositiveInt = 5
    retrieve_question: bool = True
    max_tokens: PositiveInt = 100
    trailing_spaces: bool = field(default=True, metadata=fixed_after_runs(False))

    def __post_init__(self) -> None:
        check_fields(self, "Self-Ask option")


class SelfAsk:
    """Self-Ask: (a) retrieve with the question; (b) the model asks a follow-up; (c) retrieve for
    it, the model answers it and goes on; (d) the final answer.

    Its trace: ``retrieve`` steps (:class:`SelfAskRetrieve`), a ``reason`` step per generation
    (:class:`SelfAskAsk`), and an ``extract`` (:class:`SelfAskExtract`) or ``read``
    (:class:`SelfAskRead`) step for the answer.
    """

    name = "self-ask"
    parts = PARTS  # its model calls' labels: a subclass that is a method of its own has its own

    def __init__(self, llm: LLM, retriever: Retriever, config: SelfAskConfig = SelfAskConfig()) -> None:
        self.llm = llm
        self.retriever = retriever
        self.config = config

    def generate(self, query: Query) -> GenerationResult:
        gathered, from_question = Gathered(), []
        if self.config.retrieve_question:
            from_question = self._retrieve(query.text, 0, gathered)                                    # (a)
        transcript, follow_ups = "", []
        forced: FinalReason | None = "no_final_answer"
        for round_number in range(1, self.config.max_follow_ups + 2):
            generation, shown = self._generate(query.text, transcript, gathered, from_question, "ask",
                                               self.ask_stop())                                          # (b)
            transcript += generation
            asked = follow_up(generation)
            record(SelfAskAsk(generation=generation, follow_up=asked, round=round_number), parent=PREVIOUS,
                   paragraph_ids=shown)
            if asked is None:
                break
            if len(follow_ups) == self.config.max_follow_ups:
                transcript, forced = without_trailing_follow_up(transcript), "follow_up_limit"
                break
            follow_ups.append(asked)
            found = self._retrieve(asked, len(follow_ups), gathered)                                   # (c)
            transcript += f"{self.observation(found)}\n{INTERMEDIATE}"
        answer = final_answer(transcript)                                                            # (d)
        if answer is not None and forced != "follow_up_limit":
            forced = None
            record(SelfAskExtract(transcript=transcript, answer=answer), parent=PREVIOUS)
        else:
            transcript = f"{transcript.rstrip()}\n{FINAL}"
            generation, shown = self._generate(query.text, transcript, gathered, from_question, "final", ("\n",))
            transcript += generation
            answer = clean_direct_answer(generation)
            record(SelfAskRead(question=query.text, answer=answer, generation=generation, reason=forced or
                               "no_final_answer"), parent=PREVIOUS, paragraph_ids=shown)
        return GenerationResult(
            text=answer,
            chunk_ids=gathered.ids,
            metadata=SelfAskSummary(follow_ups=tuple(follow_ups), transcript=transcript, forced_final=forced,
                                    retrieved_titles=gathered.titles),
        )

    def before_question(self, gathered: Gathered, from_question: list[Paragraph]) -> list[Paragraph]:
        """The paragraphs put before the question: every one gathered so far."""
        return gathered.paragraphs

    def observation(self, paragraphs: list[Paragraph]) -> str:
        """What the transcript gets after a follow-up, before "Intermediate answer:": nothing, the
        follow-up's paragraphs having joined those before the question."""
        return ""

    def in_prompt(self, shown: list[Paragraph], gathered: Gathered) -> list[int]:
        """The ids of the paragraphs a prompt holds, given those shown before the question."""
        return [p.id for p in shown]

    def ask_stop(self) -> tuple[str, ...]:
        """Where a generation of the loop stops."""
        return STOP

    def prompt_text(self, question: str, transcript: str, shown: Sequence[Paragraph]) -> str:
        """The demonstrations, the paragraphs ``shown`` before the question, the question and the transcript."""
        parts = [demonstrations(self.config.trailing_spaces), render_paragraphs(shown),
                 question_line(question) + transcript]
        return "\n\n".join(part for part in parts if part)

    def _retrieve(self, text: str, number: int, gathered: Gathered) -> list[Paragraph]:
        hits = self.retriever.retrieve(text, self.config.k)
        paragraphs = [hit.paragraph for hit in hits]
        added = gathered.add(paragraphs)
        record(SelfAskRetrieve(query=text, added=added, follow_up=number, k=self.config.k), parent=PREVIOUS,
               hits=hits)
        return paragraphs

    def _generate(self, question: str, transcript: str, gathered: Gathered, from_question: list[Paragraph],
                  purpose: str, stop: Sequence[str]) -> tuple[str, list[int]]:
        prompt, shown = self._prompt(question, transcript, self.before_question(gathered, from_question))
        with self.parts.call(purpose):
            completion = self.llm.complete(prompt, stop=list(stop), max_tokens=self.config.max_tokens,
                                           temperature=0.0)
        return completion.text.rstrip(), self.in_prompt(shown, gathered)

    def _prompt(self, question: str, transcript: str, paragraphs: Sequence[Paragraph]) -> tuple[str, list[Paragraph]]:
        """The prompt with as many of the newest paragraphs as fit beside the generation's budget."""
        shown = list(paragraphs)
        while True:
            prompt = self.prompt_text(question, transcript, shown)
            size = self.llm.count_tokens(prompt)
            if not shown or fits(self.llm, size, self.config.max_tokens):
                check_fits(self.llm, size, self.config.max_tokens)
                return prompt, shown
            shown = shown[1:]
