"""The model writing its own turn on, as the search agents prompt it: their instruction as the user's
turn of the model's chat template (where the backend has one), then the turn written so far, which
the loop extends with retrieved documents between the model's generations."""

from __future__ import annotations

from typing import Sequence, cast

from hopkit.llm.protocol import CHAT, LLM, ChatLLM, ChatMessage, Completion, supports


def continue_turn(llm: LLM, instruction: str, written: str, *, chat: bool, stop: Sequence[str],
                  max_tokens: int) -> Completion:
    """The model's next words after ``instruction`` and its turn so far (``written``), greedy.

    With ``chat`` and a backend that has the ``"chat"`` capability, ``instruction`` is the user's turn
    and ``written`` the start of the assistant's; otherwise the two are one plain prompt (as the
    authors do for a model without a chat template).
    """
    if chat and supports(llm, CHAT):
        turns = [ChatMessage("user", instruction)] + ([ChatMessage("assistant", written)] if written else [])
        return cast(ChatLLM, llm).complete_chat(turns, stop=list(stop), max_tokens=max_tokens, temperature=0.0)
    return llm.complete(instruction + written, stop=list(stop), max_tokens=max_tokens, temperature=0.0)


def prompt_size(llm: LLM, instruction: str, written: str) -> int:
    """Tokens of the text :func:`continue_turn` sends (without the chat template's few markers)."""
    return llm.count_tokens(instruction + written)
