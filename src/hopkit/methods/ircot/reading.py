"""IRCoT's step (e): the answer from the collected paragraphs (Section 3.2, Appendices E and F).

Which reader answers, and where it reads (the reading itself is :class:`~hopkit.methods.reader.Reader`'s):

* "none" (Appendix F's "w/o reader"): the answer is taken from the retrieval CoT;
* in its own context (the paper's reader): its own demonstrations, then every
  collected paragraph, then the question; or the documentation page's QA template
  when the reader is zero-shot; or, with ``reader_format="chat"``, the same as chat
  turns through the model's chat template;
* in the reasoning context (``reader_context="reasoning"``, or a CoT reader whose
  demonstrations are the reasoning ones): the question follows the last reasoning
  prompt's demonstrations and paragraphs, which a prefix-caching backend still holds.
"""

from __future__ import annotations

from typing import Sequence

from hopkit.errors import ConfigError
from hopkit.judges.sentences import SentenceSplitter
from hopkit.llm.protocol import LLM
from hopkit.methods.context import with_main_passage
from hopkit.methods.ircot.config import IRCoTConfig
from hopkit.methods.reader import PromptBefore, Reader, ReaderConfig
from hopkit.parsing.answers import extract_answer
from hopkit.prompts.ircot_templates import DEFAULT_COT_QA_TEMPLATE, DEFAULT_QA_TEMPLATE
from hopkit.records import Paragraph, Query


class IRCoTReading:
    """IRCoT's reader; see the module docstring.

    Args:
        llm: the model.
        config: IRCoT's options (``reader``, ``reader_context``, ``reader_max_tokens``,
            ``reader_question_prefix``, ``qa_prompt_template``, ``reader_stop``).
        reader_demonstrations: the reader's own demonstrations.
        reasoning_demonstrations: the reasoning demonstrations as the reasoning prompt's fitter
            keeps them (empty: zero-shot reasoning).
        splitter: finds the first sentence of a cued answer.

    Raises:
        ConfigError: ``reader_context="reasoning"`` without reasoning demonstrations.
    """

    def __init__(self, llm: LLM, config: IRCoTConfig, reader_demonstrations: Sequence[str],
                 reasoning_demonstrations: Sequence[str], splitter: SentenceSplitter) -> None:
        self.config = config
        few_shot = bool(reasoning_demonstrations)
        own = tuple(d.strip() for d in reader_demonstrations if d.strip())
        chat = config.reader_format == "chat"
        self.template_reader = not chat and (config.qa_prompt_template is not None or not (own or few_shot))
        if config.reader_context == "reasoning" and not few_shot:
            raise ConfigError("IRCoT option reader_context='reasoning' needs reasoning demonstrations (few-shot)")
        self.in_reasoning_context = config.reader_context == "reasoning" or (
            few_shot and config.reader == "cot" and not self.template_reader and not chat
            and own == tuple(d.strip() for d in reasoning_demonstrations))
        mode = "direct" if config.reader == "direct" else "cot"
        template = None
        if self.template_reader:
            template = config.qa_prompt_template or (DEFAULT_COT_QA_TEMPLATE if mode == "cot" else DEFAULT_QA_TEMPLATE)
        self.reader = Reader(llm, ReaderConfig(mode=mode, max_tokens=config.reader_max_tokens, template=template,
                                               format=config.reader_format),
                             () if self.template_reader else own, splitter, stop=config.reader_stop)

    @property
    def context(self) -> str:
        """Where the reader reads: "reasoning" (the reasoning prompt's context) or "own"."""
        return "reasoning" if self.in_reasoning_context else "own"

    def answer(self, query: Query, paragraphs: Sequence[Paragraph], sentences: Sequence[str],
               reasoning_prompt: PromptBefore | None = None) -> tuple[str, str | None]:
        """The answer and the reader's raw generation (None without a reader).

        ``reasoning_prompt`` is needed only when the reader reads in the reasoning context.
        """
        if self.config.reader == "none":
            return extract_answer(" ".join(sentences)), None
        shown = with_main_passage(query, paragraphs)
        if self.template_reader:  # the documentation page's template shows the question as asked
            output = self.reader.read(query.text, shown)
            return output.answer, output.generation
        question = f"{self.config.reader_question_prefix}{query.text.strip()}"
        if not self.in_reasoning_context:
            output = self.reader.read(question, shown)
        elif reasoning_prompt is None:
            raise ValueError("IRCoT's reader reads in the reasoning context: pass the reasoning prompt")
        else:
            output = self.reader.read_after(reasoning_prompt, question, shown)
        return output.answer, output.generation
