"""The QA reader (IRCoT paper, Section 3.2 and Appendix E): hopkit's one reading path.

Every method answers through :class:`Reader`. What it writes:

* direct: the answer after ``A:``; CoT: a chain of thought ending in "answer is: X",
  and X is extracted with the authors' pattern (when it does not match, the whole
  generation is the answer).

How the question is put to the model (``ReaderConfig.format``):

* ``"completion"`` (the authors' layout): demonstrations that fit, the paragraphs and
  ``Q: ...\\nA:``; without demonstrations a short instruction comes first, or the
  zero-shot ``template`` when one is given (``{query}``, ``{paragraphs}``). In the authors'
  layout the generation ends where the reader's ``stop`` says (:data:`READER_STOPS`: ``"line"``,
  the IRCoT authors' GPT3Generator stop, by default); a zero-shot template's ends at a blank line;
* ``"chat"``: a system instruction, the demonstrations as earlier user and assistant
  turns, and the question, through the model's own chat template (the LLM's
  ``"chat"`` capability).

Where it reads (:meth:`Reader.read_after`): after a prompt the model has just
evaluated (IRCoT's reasoning prompt, still in a prefix-caching backend's KV cache),
so only the question is new. A direct reader there is cued with the authors'
demonstrations' closing "So the answer is:" and answers with the first sentence it writes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from typing import Callable, Literal, Sequence, cast

from hopkit.judges.sentences import SentenceSplitter, SyntokSplitter, first_sentence_settled
from hopkit.llm.early_stop import complete_until
from hopkit.llm.protocol import CHAT, LLM, ChatLLM, Completion
from hopkit.llm.capabilities import require
from hopkit.methods.prompting import DemonstrationFitter, check_fits, fitted
from hopkit.options import ADDED_AFTER_FIRST_RUNS, PositiveInt, check_fields
from hopkit.parsing.answers import clean_direct_answer, extract_answer
from hopkit.prompts.chat_reader import reader_messages
from hopkit.prompts.ircot_templates import QA_VARIABLES, check_template, render_template
from hopkit.prompts.layout import PARAGRAPH_WORD_LIMIT, test_block
from hopkit.records import Paragraph

ReaderMode = Literal["direct", "cot"]
ReaderFormat = Literal["completion", "chat"]

ReaderStop = Literal["line", "paragraph"]
#: What ends a completion reader's generation: ``"line"``, the first line break (the IRCoT authors'
#: GPT3Generator stop, ``["\\n"]``); ``"paragraph"``, a blank line or the next question (hopkit's stop
#: before issue 71, with which the campaign's saved NoR, OneR and IRCoT cells ran).
READER_STOPS: dict[str, tuple[str, ...]] = {"line": ("\n",), "paragraph": ("\n\n", "\nQ:")}
# hopkit's own prompts (a zero-shot template, the chat turns), which the authors have not, end at a blank line
READER_STOP = READER_STOPS["paragraph"]
# How the authors' CoT demonstrations end; after it, a direct reader writes only the answer.
DIRECT_ANSWER_CUE = "So the answer is:"
CUED_ANSWER_STOP = ("\n",)
# A chat template's markers around each demonstration's two turns, in tokens (an allowance).
CHAT_TURN_TOKENS = 16

ZERO_SHOT_INSTRUCTIONS: dict[str, str] = {
    "direct": "Answer the question with a short answer (a name, a place, a date, a number, or yes/no), "
              "using the Wikipedia paragraphs if they help.",
    "cot": "Answer the question by reasoning step by step, using the Wikipedia paragraphs if they help. "
           'End with "So the answer is: <short answer>."',
}
#: The question prefix of the IRCoT authors' NoR and OneR Flan-T5 configs (``qa_question_prefix`` of
#: ``nor_qa_flan_t5_*`` and ``oner_qa_flan_t5_*``): the direct one for either reader, since the configs'
#: test for the CoT prefix looks at the context type, which never ends in "cot".
FLAN_READER_PREFIX = "Answer the following question.\n"

# A prompt that has just been evaluated, with a test instance put after it.
PromptBefore = Callable[[str], str]


@dataclass(frozen=True)
class ReaderConfig:
    """Options of the reader.

    Attributes:
        mode: "direct" or "cot".
        max_tokens: generation budget of the reader call.
        question_prefix: text put before the question (Flan-T5 style prompts), as given: its line break
            kept (NoR and OneR set the IRCoT authors' one with their Flan-T5 demonstrations).
        instruction: the instruction of a reader without demonstrations (and the system
            turn of a chat reader); None picks the default for ``mode``, "" disables it.
        format: "completion" (the authors' text layout) or "chat" (the model's chat
            template; needs a backend with the ``"chat"`` capability).
        template: a zero-shot completion template with ``{query}`` (and ``{paragraphs}``),
            used instead of the instruction layout when there are no demonstrations.
    """

    mode: ReaderMode = "direct"
    max_tokens: PositiveInt = 200
    question_prefix: str = ""
    instruction: str | None = None
    format: ReaderFormat = field(default="completion", metadata=ADDED_AFTER_FIRST_RUNS)
    template: str | None = field(default=None, metadata=ADDED_AFTER_FIRST_RUNS)

    def __post_init__(self) -> None:
        check_fields(self, "reader option")
        if self.template is not None:
            check_template(self.template, "template", QA_VARIABLES)

    @classmethod
    def from_option(cls, mode: str) -> ReaderConfig:
        """The shorthand ``reader: direct`` / ``reader: cot``: that mode, other options as default."""
        return cls(mode=mode)  # type: ignore[arg-type]  # checked by __post_init__


@dataclass(frozen=True)
class ReaderOutput:
    """The reader's answer, the raw generation it came from and the paragraphs it read.

    ``confidence`` is the reader's confidence in its answer, for readers that give one
    (None here: a generated answer has none).
    """

    answer: str
    generation: str
    paragraph_ids: tuple[int, ...] = ()
    confidence: float | None = None


class Reader:
    """Answers a question from paragraphs with one LLM call; see the module docstring.

    ``stop`` ends a generation in the authors' completion layout (:data:`READER_STOPS`).

    Raises:
        LLMError: ``format="chat"`` with a model that has no ``"chat"`` capability.
    """

    def __init__(self, llm: LLM, config: ReaderConfig = ReaderConfig(), demonstrations: Sequence[str] = (),
                 splitter: SentenceSplitter | None = None, stop: ReaderStop = "line") -> None:
        self.llm = llm
        self.config = config
        self.stop = READER_STOPS[stop]
        self.fitter = DemonstrationFitter(llm, demonstrations)
        self.splitter = splitter or SyntokSplitter()
        if config.format == "chat":
            require(llm, CHAT, purpose="the chat-format reader")

    def instruction(self) -> str:
        if self.config.instruction is not None:
            return self.config.instruction
        few_shot = self.fitter.demonstrations and self.config.format == "completion"
        return "" if few_shot else ZERO_SHOT_INSTRUCTIONS[self.config.mode]

    def read(self, question: str, paragraphs: Sequence[Paragraph]) -> ReaderOutput:
        """Answer ``question`` from ``paragraphs`` (in the order given), in the reader's own prompt."""
        if self.config.format == "chat":
            completion = self._chat(question, paragraphs)
        else:
            stop = READER_STOP if self._template_prompt else self.stop
            completion = self.llm.complete(self._completion_prompt(question, paragraphs), stop=stop,
                                           max_tokens=self.config.max_tokens, temperature=0.0)
        return self._output(completion.text, paragraphs)

    def read_after(self, prompt_before: PromptBefore, question: str, paragraphs: Sequence[Paragraph]) -> ReaderOutput:
        """Answer after a prompt the model has just evaluated (``prompt_before(test instance)``)."""
        prefix = self.config.question_prefix
        if self.config.mode == "cot":
            prompt = fitted(self.llm, prompt_before(test_block(paragraphs, question, question_prefix=prefix)),
                            self.config.max_tokens)
            completion = self.llm.complete(prompt, stop=self.stop, max_tokens=self.config.max_tokens, temperature=0.0)
            return self._output(completion.text, paragraphs)
        # after the cue the demonstrations end the answer's sentence, and a small model goes on
        cued = fitted(self.llm, prompt_before(test_block(paragraphs, question, DIRECT_ANSWER_CUE,
                                                         question_prefix=prefix)), self.config.max_tokens)
        completion = complete_until(self.llm, cued, partial(first_sentence_settled, self.splitter),
                                    stop=CUED_ANSWER_STOP, max_tokens=self.config.max_tokens, temperature=0.0)
        return ReaderOutput(answer=clean_direct_answer(self.splitter.first(completion.text)),
                            generation=completion.text, paragraph_ids=_ids(paragraphs))

    @property
    def _template_prompt(self) -> bool:
        """Whether the completion prompt is the zero-shot ``template`` (hopkit's), not the authors' layout."""
        return self.config.template is not None and not self.fitter.demonstrations

    def _completion_prompt(self, question: str, paragraphs: Sequence[Paragraph]) -> str:
        if self._template_prompt:
            return fitted(self.llm, render_template(self.config.template, query=question.strip(), paragraphs=paragraphs,
                                                    word_limit=PARAGRAPH_WORD_LIMIT), self.config.max_tokens)
        instance = test_block(paragraphs, question, question_prefix=self.config.question_prefix,
                              instruction=self.instruction())
        return self.fitter.prompt(instance, reserve=self.config.max_tokens)

    def _chat(self, question: str, paragraphs: Sequence[Paragraph]) -> Completion:
        instance = reader_messages(self.instruction(), (), paragraphs, question, self.config.question_prefix)
        instance_tokens = sum(self.llm.count_tokens(m.content) + CHAT_TURN_TOKENS for m in instance)
        check_fits(self.llm, instance_tokens, self.config.max_tokens)
        kept = self.fitter.count_fitting(instance_tokens, self.config.max_tokens, per_demonstration=CHAT_TURN_TOKENS)
        messages = reader_messages(self.instruction(), self.fitter.demonstrations[:kept], paragraphs, question,
                                   self.config.question_prefix)
        return cast(ChatLLM, self.llm).complete_chat(messages, stop=READER_STOP, max_tokens=self.config.max_tokens,
                                                     temperature=0.0)

    def _output(self, generation: str, paragraphs: Sequence[Paragraph]) -> ReaderOutput:
        if self.config.mode == "cot":
            answer = extract_answer(" ".join(generation.split()))
        else:
            answer = clean_direct_answer(generation)
        return ReaderOutput(answer=answer, generation=generation, paragraph_ids=_ids(paragraphs))


def _ids(paragraphs: Sequence[Paragraph]) -> tuple[int, ...]:
    return tuple(p.id for p in paragraphs)
