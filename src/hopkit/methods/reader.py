"""The QA reader (IRCoT paper, Section 3.2 and Appendix E): direct or chain-of-thought.

Direct: the model writes the answer after ``A:``. CoT: it writes a chain of thought
ending in "answer is: X", and X is extracted with the authors' pattern; when the
pattern does not match, the whole generation is the answer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Sequence

from hopkit.llm.protocol import LLM
from hopkit.options import PositiveInt, check_fields
from hopkit.methods.prompting import DemonstrationFitter
from hopkit.prompts.layout import test_block
from hopkit.parsing.answers import clean_direct_answer, extract_answer
from hopkit.records import Paragraph

ReaderMode = Literal["direct", "cot"]

READER_STOP = ("\n\n", "\nQ:")

ZERO_SHOT_INSTRUCTIONS: dict[str, str] = {
    "direct": "Answer the question with a short answer (a name, a place, a date, a number, or yes/no), "
              "using the Wikipedia paragraphs if they help.",
    "cot": "Answer the question by reasoning step by step, using the Wikipedia paragraphs if they help. "
           'End with "So the answer is: <short answer>."',
}
FLAN_QUESTION_PREFIXES: dict[str, str] = {
    "direct": "Answer the following question.",
    "cot": "Answer the following question by reasoning step-by-step.",
}


@dataclass(frozen=True)
class ReaderConfig:
    """Options of the reader.

    Attributes:
        mode: "direct" or "cot".
        max_tokens: generation budget of the reader call.
        question_prefix: text put before the question (Flan-T5 style prompts).
        instruction: zero-shot instruction; None picks the default for ``mode`` when
            there are no demonstrations, "" disables it.
    """

    mode: ReaderMode = "direct"
    max_tokens: PositiveInt = 200
    question_prefix: str = ""
    instruction: str | None = None

    def __post_init__(self) -> None:
        check_fields(self, "reader option")


@dataclass(frozen=True)
class ReaderOutput:
    """The reader's answer and the raw generation it came from."""

    answer: str
    generation: str


class Reader:
    """Answers a question from paragraphs with one LLM call."""

    def __init__(self, llm: LLM, config: ReaderConfig = ReaderConfig(),
                 demonstrations: Sequence[str] = ()) -> None:
        self.llm = llm
        self.config = config
        self.fitter = DemonstrationFitter(llm, demonstrations)

    def instruction(self) -> str:
        if self.config.instruction is not None:
            return self.config.instruction
        return "" if self.fitter.demonstrations else ZERO_SHOT_INSTRUCTIONS[self.config.mode]

    def read(self, question: str, paragraphs: Sequence[Paragraph]) -> ReaderOutput:
        """Answer ``question`` from ``paragraphs`` (in the order given)."""
        instance = test_block(paragraphs, question, question_prefix=self.config.question_prefix,
                              instruction=self.instruction())
        prompt = self.fitter.prompt(instance, reserve=self.config.max_tokens)
        completion = self.llm.complete(prompt, stop=READER_STOP, max_tokens=self.config.max_tokens)
        if self.config.mode == "cot":
            answer = extract_answer(" ".join(completion.text.split()))
        else:
            answer = clean_direct_answer(completion.text)
        return ReaderOutput(answer=answer, generation=completion.text)
