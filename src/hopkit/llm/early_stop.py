"""Ending a generation as soon as the part the caller keeps is settled.

IRCoT keeps only the first sentence of each generation, but the model goes on to the
end of its line. A backend that streams (llama.cpp) can stop once a predicate on the
text so far holds; other backends generate in full. The predicate only saves time:
it must hold only when more text cannot change what the caller keeps.
"""

from __future__ import annotations

from typing import Callable, Sequence

from hopkit.llm.protocol import LLM, Completion

Done = Callable[[str], bool]


def complete_until(llm: LLM, prompt: str, done: Done, *, stop: Sequence[str] = (), max_tokens: int = 256,
                   temperature: float = 0.0) -> Completion:
    """``llm.complete``, ended early once ``done(text so far)`` holds if the backend can stream.

    Backends offer this with a ``complete_until(prompt, done, ...)`` method; for any
    other LLM this is a plain ``complete`` call.
    """
    method = getattr(llm, "complete_until", None)
    if method is None:
        return llm.complete(prompt, stop=stop, max_tokens=max_tokens, temperature=temperature)
    return method(prompt, done, stop=stop, max_tokens=max_tokens, temperature=temperature)
