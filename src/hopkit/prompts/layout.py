"""The IRCoT authors' prompt layout: paragraph blocks, the question tail, the test instance.

Layout (Trivedi et al. 2023, Section 3.1)::

    <demonstration>\n\n\n<demonstration>\n\n\n
    Wikipedia Title: <title>
    <text>

    Wikipedia Title: <title>
    <text>

    Q: <question>
    A: <answer or chain of thought so far>

Pure text functions: the methods (``hopkit.methods``) and the zero-shot templates
(``hopkit.prompts.ircot_templates``) build on them; nothing here imports a method.
"""

from __future__ import annotations

from typing import Sequence

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
    """The ``Q: ...\\nA:`` tail; ``answer_so_far`` continues after ``A:``.

    ``question_prefix`` goes before the question as the authors' ``LLMQAParticipantModel`` puts it, its
    line break kept (``Q: Answer the following question.\\n<question>``); one not ending in whitespace
    gets a space.
    """
    prefix = question_prefix.lstrip()
    if prefix and not prefix[-1].isspace():
        prefix += " "
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


test_block.__test__ = False  # type: ignore[attr-defined]  # a prompt builder, not a pytest test
