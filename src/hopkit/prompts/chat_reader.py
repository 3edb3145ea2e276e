"""The reader's question as chat turns, for instruct models read through their own chat template.

A system turn says what to do; each of the IRCoT authors' demonstrations becomes a
user turn (its paragraphs and question) answered by an assistant turn (what followed
its ``A:``); the test instance is the last user turn::

    system     Answer the question with a short answer ...
    user       Wikipedia Title: ...\\n...\\n\\nQ: <demonstration question>
    assistant  <demonstration answer>
    ...
    user       Wikipedia Title: ...\\n...\\n\\nQ: <question>
"""

from __future__ import annotations

from typing import Sequence

from hopkit.llm.protocol import ChatMessage
from hopkit.prompts.layout import render_paragraphs
from hopkit.records import Paragraph

ANSWER_MARK = "\nA:"


def demonstration_turns(demonstration: str) -> list[ChatMessage]:
    """A completion-style demonstration as a user turn and the assistant's answer.

    It is split at its last ``"\\nA:"``; a demonstration without one is a user turn alone.
    """
    text = demonstration.strip()
    cut = text.rfind(ANSWER_MARK)
    if cut < 0:
        return [ChatMessage("user", text)]
    return [ChatMessage("user", text[:cut].strip()), ChatMessage("assistant", text[cut + len(ANSWER_MARK):].strip())]


def question_turn(paragraphs: Sequence[Paragraph], question: str, question_prefix: str = "") -> ChatMessage:
    """The test instance: the paragraphs (the authors' blocks), then ``Q: <question>``."""
    prefix = f"{question_prefix.strip()} " if question_prefix.strip() else ""
    parts = [render_paragraphs(paragraphs)] if paragraphs else []
    parts.append(f"Q: {prefix}{question.strip()}")
    return ChatMessage("user", "\n\n".join(parts))


def reader_messages(instruction: str, demonstrations: Sequence[str], paragraphs: Sequence[Paragraph],
                    question: str, question_prefix: str = "") -> list[ChatMessage]:
    """System instruction (when not blank), demonstration turns, then the question."""
    turns = [ChatMessage("system", instruction.strip())] if instruction.strip() else []
    for demonstration in demonstrations:
        turns.extend(demonstration_turns(demonstration))
    turns.append(question_turn(paragraphs, question, question_prefix))
    return turns
