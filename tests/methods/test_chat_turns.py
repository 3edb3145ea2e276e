"""The kit's one chat-or-plain model call (hopkit.methods.chat_turns): the chat template where the backend has
one and the method asks for it, else the plain prompt, each with its own stops."""

from __future__ import annotations

import pytest

from hopkit.llm.fake import ScriptedLLM, chat_prompt
from hopkit.llm.protocol import ChatMessage
from hopkit.methods.chat_turns import complete_turns

pytestmark = pytest.mark.unit

TURNS = [ChatMessage("system", "Summarise."), ChatMessage("user", "Doc: Tarsk is a town.")]
PLAIN = "Summarise.\n\nDoc: Tarsk is a town."


def test_a_model_with_a_chat_template_gets_the_turns_and_the_chat_stops() -> None:
    llm = ScriptedLLM(["A town.\n\nMore"], chat=True)
    reply = complete_turns(llm, TURNS, plain=PLAIN, max_tokens=20, chat_stop=["\n\n"], plain_stop=["X"])
    assert llm.prompts == [chat_prompt(TURNS)] and reply.text == "A town."


def test_a_model_without_one_gets_the_plain_prompt_and_its_stops() -> None:
    llm = ScriptedLLM(["A town.\n\nMore"])
    reply = complete_turns(llm, TURNS, plain=PLAIN, max_tokens=20, plain_stop=["\n\n"])
    assert llm.prompts == [PLAIN] and reply.text == "A town."


def test_a_method_that_asks_for_plain_text_gets_it_from_a_chat_model_too() -> None:
    llm = ScriptedLLM(["A town."], chat=True)
    complete_turns(llm, TURNS, plain=PLAIN, max_tokens=20, chat=False)
    assert llm.prompts == [PLAIN]
