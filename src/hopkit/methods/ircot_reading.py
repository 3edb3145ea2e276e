"""IRCoT's step (e): the answer from the collected paragraphs (Section 3.2, Appendices E and F).

Which reader answers, and where it reads:

* "none" (Appendix F's "w/o reader"): the answer is taken from the retrieval CoT;
* in its own context (the paper's reader): its own demonstrations, then every
  collected paragraph, then the question; or the documentation page's QA template
  when the reader is zero-shot;
* in the reasoning context (``reader_context="reasoning"``, or a CoT reader whose
  demonstrations are the reasoning ones): the question follows the last reasoning
  prompt's demonstrations and paragraphs, which a prefix-caching backend still holds.
  A direct reader there is cued with the demonstrations' closing "So the answer is:"
  and answers with the first sentence it writes.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Callable, Sequence

from hopkit.errors import ConfigError
from hopkit.judges.sentences import SentenceSplitter, first_sentence_settled
from hopkit.llm.early_stop import complete_until
from hopkit.llm.protocol import LLM
from hopkit.methods.context import with_main_passage
from hopkit.methods.reader import READER_STOP, Reader, ReaderConfig
from hopkit.parsing.answers import clean_direct_answer, extract_answer
from hopkit.prompts.ircot_templates import DEFAULT_COT_QA_TEMPLATE, DEFAULT_QA_TEMPLATE, render_template
from hopkit.prompts.layout import PARAGRAPH_WORD_LIMIT, test_block
from hopkit.records import Paragraph, Query

if TYPE_CHECKING:
    from hopkit.methods.ircot import IRCoTConfig

# How the authors' CoT demonstrations end; after it, a direct reader writes only the answer.
DIRECT_ANSWER_CUE = "So the answer is:"
CUED_ANSWER_STOP = ("\n",)
# The last reasoning prompt's demonstrations joined before a test instance.
ReasoningPrompt = Callable[[str], str]


class IRCoTReading:
    """IRCoT's reader; see the module docstring.

    Args:
        llm: the model.
        config: IRCoT's options (``reader``, ``reader_context``, ``reader_max_tokens``,
            ``reader_question_prefix``, ``qa_prompt_template``).
        reader_demonstrations: the reader's own demonstrations.
        reasoning_demonstrations: the reasoning demonstrations as the reasoning prompt's fitter
            keeps them (empty: zero-shot reasoning).
        splitter: finds the first sentence of a cued answer.

    Raises:
        ConfigError: ``reader_context="reasoning"`` without reasoning demonstrations.
    """

    def __init__(self, llm: LLM, config: IRCoTConfig, reader_demonstrations: Sequence[str],
                 reasoning_demonstrations: Sequence[str], splitter: SentenceSplitter) -> None:
        self.llm = llm
        self.config = config
        self.splitter = splitter
        self.reader = Reader(llm, ReaderConfig(mode="direct" if config.reader == "direct" else "cot",
                                               max_tokens=config.reader_max_tokens), reader_demonstrations)
        few_shot = bool(reasoning_demonstrations)
        self.template_reader = config.qa_prompt_template is not None or not (
            self.reader.fitter.demonstrations or few_shot)
        if config.reader_context == "reasoning" and not few_shot:
            raise ConfigError("IRCoT option reader_context='reasoning' needs reasoning demonstrations (few-shot)")
        self.in_reasoning_context = config.reader_context == "reasoning" or (
            few_shot and config.reader == "cot" and not self.template_reader
            and self.reader.fitter.demonstrations == tuple(reasoning_demonstrations))

    def answer(self, query: Query, paragraphs: Sequence[Paragraph], sentences: Sequence[str],
               reasoning_prompt: ReasoningPrompt | None = None) -> tuple[str, str | None]:
        """The answer and the reader's raw generation (None without a reader).

        ``reasoning_prompt`` is needed only when the reader reads in the reasoning context.
        """
        if self.config.reader == "none":
            return extract_answer(" ".join(sentences)), None
        shown = with_main_passage(query, paragraphs)
        question = f"{self.config.reader_question_prefix}{query.text.strip()}"
        if self.in_reasoning_context:
            if reasoning_prompt is None:
                raise ValueError("IRCoT's reader reads in the reasoning context: pass the reasoning prompt")
            return self._in_reasoning_context(reasoning_prompt, shown, question)
        if not self.template_reader:
            output = self.reader.read(question, shown)
            return output.answer, output.generation
        default = DEFAULT_COT_QA_TEMPLATE if self.config.reader == "cot" else DEFAULT_QA_TEMPLATE
        prompt = render_template(self.config.qa_prompt_template or default, query=query.text.strip(),
                                 paragraphs=shown, word_limit=PARAGRAPH_WORD_LIMIT)
        completion = self.llm.complete(prompt, stop=READER_STOP, max_tokens=self.config.reader_max_tokens,
                                       temperature=0.0)
        if self.config.reader == "cot":
            return extract_answer(" ".join(completion.text.split())), completion.text
        return clean_direct_answer(completion.text), completion.text

    def _in_reasoning_context(self, reasoning_prompt: ReasoningPrompt, shown: Sequence[Paragraph],
                              question: str) -> tuple[str, str]:
        if self.config.reader == "cot":
            completion = self.llm.complete(reasoning_prompt(test_block(shown, question)), stop=READER_STOP,
                                           max_tokens=self.config.reader_max_tokens, temperature=0.0)
            return extract_answer(" ".join(completion.text.split())), completion.text
        # after the cue the demonstrations end the answer's sentence, and a small model goes on
        completion = complete_until(self.llm, reasoning_prompt(test_block(shown, question, DIRECT_ANSWER_CUE)),
                                    partial(first_sentence_settled, self.splitter), stop=CUED_ANSWER_STOP,
                                    max_tokens=self.config.reader_max_tokens, temperature=0.0)
        return clean_direct_answer(self.splitter.first(completion.text)), completion.text
