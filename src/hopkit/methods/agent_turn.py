"""The model writing its own turn on, as the search agents prompt it: their instruction as the user's
turn of the model's chat template (where the backend has one), then the turn written so far, which
the loop extends with retrieved documents between the model's generations."""

from __future__ import annotations

import re
from typing import Sequence

from hopkit.llm.protocol import LLM, ChatMessage, Completion
from hopkit.methods.chat_turns import complete_turns
from hopkit.methods.prompting import fits


def continue_turn(llm: LLM, instruction: str, written: str, *, chat: bool, stop: Sequence[str],
                  max_tokens: int) -> Completion:
    """The model's next words after ``instruction`` and its turn so far (``written``), greedy.

    With ``chat`` and a backend that has the ``"chat"`` capability, ``instruction`` is the user's turn
    and ``written`` the start of the assistant's; otherwise the two are one plain prompt (as the
    authors do for a model without a chat template).
    """
    turns = [ChatMessage("user", instruction)] + ([ChatMessage("assistant", written)] if written else [])
    return complete_turns(llm, turns, plain=instruction + written, max_tokens=max_tokens, chat=chat, chat_stop=stop,
                          plain_stop=stop)


def prompt_size(llm: LLM, instruction: str, written: str) -> int:
    """Tokens of the text :func:`continue_turn` sends (without the chat template's few markers)."""
    return llm.count_tokens(instruction + written)


def turn_fits(llm: LLM, instruction: str, written: str, budget: int) -> bool:
    """Whether the turn :func:`continue_turn` sends leaves ``budget`` tokens (its generation) of the context."""
    return fits(llm, prompt_size(llm, instruction, written), budget)


# The agents' own markup, whose content is no answer: reasoning, searches and what a search gave back (the tags
# of Search-R1, R1-Searcher, AutoRefine, Search-o1 and their kin).
_MARKUP_ELEMENTS = frozenset({"think", "search", "query", "information", "documents", "document", "refine",
                              "result", "results", "tool_call", "tool_response"})
_TAG = re.compile(r"<\|(?P<special>[^<>|\s]{1,60})\|>|<(?P<closing>/?)(?P<name>[A-Za-z][\w-]{0,40})\s*/?>")


def agent_answer(text: str, pairs: Sequence[tuple[str, str]] = ()) -> str:
    """An agent's final answer without its markup: "" when the answer is only markup.

    Every agent reads its answer through this one rule. An element of the agents' own markup
    (``<think>``, ``<search>``, ``<information>``... and a special token's ``<|begin_x|>...<|end_x|>``,
    or the ``pairs`` of opening and closing tags given) is reasoning or a search, not an answer: it
    goes with its content; such a tag left open takes the rest of the text with it (``<think>I need
    to search`` is no answer). Any other tag goes alone (``<answer>``, ``<|im_end|>``, a stray
    closing tag), its content stays. The remaining text, stripped, is the answer; one
    without a letter or digit is no answer (the run then records the question's
    :class:`~hopkit.errors.EmptyAnswerError`, as for every method). Text without markup is returned
    unchanged.
    """
    if "<" not in text and not any(opening in text for opening, _ in pairs):
        return text
    for opening, closing in pairs:  # a template's own tags, which need not look like tags
        text = _without_elements(text, opening, closing)
    kept, position = [], 0
    for tag in _TAG.finditer(text):
        if tag.start() < position:
            continue
        kept.append(text[position:tag.start()])
        position = tag.end()
        closing = _closing_of(tag)
        if closing is None:
            continue
        end = text.find(closing, position)
        if end < 0:  # left open: the rest is its content
            position = len(text)
            break
        position = end + len(closing)
    kept.append(text[position:])
    answer = "".join(kept).strip()
    return answer if any(character.isalnum() for character in answer) else ""


def _closing_of(tag: re.Match[str]) -> str | None:
    """The closing tag of an opening tag of the agents' markup (None: a tag that goes alone)."""
    special = tag.group("special")
    if special is not None:
        return f"<|{special.replace('begin', 'end', 1)}|>" if "begin" in special else None
    if tag.group("closing") or tag.group(0).endswith("/>") or tag.group("name").lower() not in _MARKUP_ELEMENTS:
        return None
    return f"</{tag.group('name')}>"


def _without_elements(text: str, opening: str, closing: str) -> str:
    kept, position = [], 0
    while (start := text.find(opening, position)) >= 0:
        kept.append(text[position:start])
        end = text.find(closing, start + len(opening))
        if end < 0:
            return "".join(kept) + " "
        position = end + len(closing)
        kept.append(" ")
    return "".join(kept) + text[position:]
