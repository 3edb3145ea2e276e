"""Ending a generation as soon as the part the caller keeps is settled.

IRCoT keeps only the first sentence of each generation, but the model goes on to the
end of its line. A backend that streams (llama.cpp) can stop once a predicate on the
text so far holds; other backends generate in full. The predicate only saves time:
it must hold only when more text cannot change what the caller keeps. (The response
cache relies on this: a stored text on which the predicate holds answers the call.)
"""

from __future__ import annotations

from typing import Sequence, cast

from hopkit.llm.protocol import EARLY_STOP, LLM, Completion, Done, StreamingLLM
from hopkit.llm.capabilities import supports

__all__ = ["Done", "complete_until"]


def complete_until(llm: LLM, prompt: str, done: Done, *, stop: Sequence[str] = (), max_tokens: int = 256,
                   temperature: float = 0.0) -> Completion:
    """``llm.complete``, ended early once ``done(text so far)`` holds if the backend can stream.

    A backend streams when it declares the ``"early_stop"`` capability (see
    :mod:`hopkit.llm.protocol`); for any other LLM this is a plain ``complete`` call,
    whose full text is an equally valid answer.
    """
    if supports(llm, EARLY_STOP):
        return cast(StreamingLLM, llm).complete_until(prompt, done, stop=stop, max_tokens=max_tokens,
                                                      temperature=temperature)
    return llm.complete(prompt, stop=stop, max_tokens=max_tokens, temperature=temperature)
