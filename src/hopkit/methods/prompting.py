"""Prompt pieces shared by the methods: the IRCoT authors' layout and demonstration fitting.

Layout (Trivedi et al. 2023, Section 3.1)::

    <demonstration>\n\n\n<demonstration>\n\n\n
    Wikipedia Title: <title>
    <text>

    Wikipedia Title: <title>
    <text>

    Q: <question>
    A: <answer or chain of thought so far>
"""

from __future__ import annotations

from typing import Sequence

from hopkit.errors import LLMError
from hopkit.llm.protocol import LLM
from hopkit.records import Paragraph

DEMONSTRATION_SEPARATOR = "\n\n\n"
PARAGRAPH_WORD_LIMIT = 350


def clip_words(text: str, limit: int = PARAGRAPH_WORD_LIMIT) -> str:
    """The first ``limit`` whitespace-separated words of ``text``."""
    words = text.split()
    return text.strip() if len(words) <= limit else " ".join(words[:limit])


def render_paragraph(paragraph: Paragraph, word_limit: int = PARAGRAPH_WORD_LIMIT) -> str:
    """One ``Wikipedia Title: <title>\\n<text>`` block."""
    return f"Wikipedia Title: {paragraph.title}\n{clip_words(paragraph.text, word_limit)}"


def render_paragraphs(paragraphs: Sequence[Paragraph], word_limit: int = PARAGRAPH_WORD_LIMIT) -> str:
    """Paragraph blocks joined by blank lines, in the order given."""
    return "\n\n".join(render_paragraph(p, word_limit) for p in paragraphs)


def render_question(question: str, answer_so_far: str = "", question_prefix: str = "") -> str:
    """The ``Q: ...\\nA:`` tail; ``answer_so_far`` continues after ``A:``."""
    prefix = f"{question_prefix.strip()} " if question_prefix.strip() else ""
    tail = f" {answer_so_far.strip()}" if answer_so_far.strip() else ""
    return f"Q: {prefix}{question.strip()}\nA:{tail}"


def test_block(paragraphs: Sequence[Paragraph], question: str, answer_so_far: str = "",
               question_prefix: str = "", instruction: str = "") -> str:
    """The test instance: optional instruction, paragraphs, then the question tail."""
    parts = [instruction.strip()] if instruction.strip() else []
    if paragraphs:
        parts.append(render_paragraphs(paragraphs))
    parts.append(render_question(question, answer_so_far, question_prefix))
    return "\n\n".join(parts)


class DemonstrationFitter:
    """Keeps as many demonstrations as fit in the model's context, as the IRCoT authors did.

    Demonstrations are dropped from the end until demonstrations + test instance +
    ``reserve`` generation tokens fit in ``llm.context_length``. Token counts of each
    demonstration are computed once and remembered.
    """

    def __init__(self, llm: LLM, demonstrations: Sequence[str]) -> None:
        self.llm = llm
        self.demonstrations = tuple(d.strip() for d in demonstrations if d.strip())
        self._sizes: list[int] | None = None

    def _demo_sizes(self) -> list[int]:
        if self._sizes is None:
            separator = self.llm.count_tokens(DEMONSTRATION_SEPARATOR)
            self._sizes = [self.llm.count_tokens(d) + separator for d in self.demonstrations]
        return self._sizes

    def count_fitting(self, instance_tokens: int, reserve: int) -> int:
        """How many demonstrations (from the first) fit beside a test instance of
        ``instance_tokens`` tokens with ``reserve`` tokens left for generation; 0 when
        even the instance does not fit."""
        budget = self.llm.context_length - reserve - instance_tokens
        kept = 0
        for size in self._demo_sizes():
            if size > budget:
                break
            kept += 1
            budget -= size
        return kept

    def join(self, count: int, test_instance: str) -> str:
        """The first ``count`` demonstrations, then ``test_instance``."""
        return DEMONSTRATION_SEPARATOR.join([*self.demonstrations[:count], test_instance])

    def prompt(self, test_instance: str, reserve: int) -> str:
        """Demonstrations that fit, then ``test_instance``.

        Raises:
            LLMError: if the test instance alone does not fit in the context.
        """
        instance_tokens = self.llm.count_tokens(test_instance)
        check_fits(self.llm, instance_tokens, reserve)
        return self.join(self.count_fitting(instance_tokens, reserve), test_instance)


def check_fits(llm: LLM, prompt_tokens: int, reserve: int) -> None:
    """Raise unless a prompt of ``prompt_tokens`` leaves ``reserve`` tokens of the context.

    Raises:
        LLMError: naming the sizes, the model and what to change.
    """
    if prompt_tokens + reserve > llm.context_length:
        raise LLMError(
            f"the prompt needs {prompt_tokens + reserve} tokens with {reserve} reserved "
            f"for generation, more than the context of {llm.context_length} tokens of "
            f"{llm.model_id}; lower the paragraph budget or use a longer context"
        )


test_block.__test__ = False  # type: ignore[attr-defined]  # a prompt builder, not a pytest test
