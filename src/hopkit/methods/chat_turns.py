"""One way for a method to ask a model in turns: through the model's chat template where its backend has one
(the ``"chat"`` capability), else as one plain completion prompt written the way the method's authors write
the same turns for a model without a template."""

from __future__ import annotations

from typing import Sequence, cast

from hopkit.llm.capabilities import supports
from hopkit.llm.protocol import CHAT, LLM, ChatLLM, ChatMessage, Completion


def complete_turns(llm: LLM, turns: Sequence[ChatMessage], *, plain: str, max_tokens: int, chat: bool = True,
                   chat_stop: Sequence[str] = (), plain_stop: Sequence[str] = ()) -> Completion:
    """The model's greedy reply to ``turns``, or to ``plain`` where it has no chat template (or ``chat`` is
    False: the method's option to write the turns as plain text). A last turn of the assistant's is the start
    of the reply, which the model continues. The stops differ where a plain prompt needs one that the chat
    template's end of turn gives (``chat_stop``, ``plain_stop``)."""
    if chat and supports(llm, CHAT):
        return cast(ChatLLM, llm).complete_chat(list(turns), stop=list(chat_stop), max_tokens=max_tokens,
                                                temperature=0.0)
    return llm.complete(plain, stop=list(plain_stop), max_tokens=max_tokens, temperature=0.0)
