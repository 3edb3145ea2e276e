"""The one interface every language model backend offers."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, Sequence, runtime_checkable


@dataclass(frozen=True)
class Completion:
    """One model call's output and what it cost.

    ``cached_prompt_tokens`` counts prompt tokens served from a reused KV cache
    (llama.cpp prefix reuse) or from a server's prompt cache; ``from_cache`` says the
    whole completion came from the on-disk response cache. ``finish_reason`` is why the
    model stopped, when the backend says (``"stop"``, ``"length"`` when ``max_tokens``
    cut it short); ``None`` when unknown.
    """

    text: str
    prompt_tokens: int
    completion_tokens: int
    seconds: float
    cached_prompt_tokens: int = 0
    from_cache: bool = False
    finish_reason: str | None = None


@runtime_checkable
class LLM(Protocol):
    """A text-completion language model.

    ``model_id`` names the model for cache keys and run hashes; ``context_length`` is
    its context window in tokens.
    """

    model_id: str
    context_length: int

    def complete(
        self,
        prompt: str,
        *,
        stop: Sequence[str] = (),
        max_tokens: int = 256,
        temperature: float = 0.0,
    ) -> Completion:
        """Continue ``prompt``; stop before any of ``stop``."""
        ...

    def count_tokens(self, text: str) -> int:
        """How many tokens ``text`` takes in this model's tokenizer (an estimate for servers)."""
        ...
