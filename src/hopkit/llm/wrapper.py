"""What every wrapper around an LLM shares (the response cache, the usage meter): the wrapped model's
identity and capabilities, passed through, and the check that it has the capability a call needs."""

from __future__ import annotations

from typing import Any

from hopkit.llm.protocol import LLM, capabilities_of, missing_capability


class LLMWrapper:
    """Stands for ``inner``: same ``model_id``, ``context_length``, ``capabilities`` and token count.

    A subclass adds what it does around the four calls (``complete``, ``complete_chat``,
    ``complete_until``, ``score_continuations``); :meth:`_able` gives it the wrapped model for
    an optional one, or raises as the model itself would not have the method.

    Args:
        inner: the wrapped LLM.
    """

    def __init__(self, inner: LLM) -> None:
        self.inner = inner

    @property
    def model_id(self) -> str:
        """The wrapped model's id (a wrapper does not change outputs)."""
        return self.inner.model_id

    @property
    def context_length(self) -> int:
        """The wrapped model's context window."""
        return self.inner.context_length

    @property
    def capabilities(self) -> frozenset[str]:
        """The wrapped model's optional capabilities, exactly."""
        return capabilities_of(self.inner)

    def count_tokens(self, text: str) -> int:
        """The wrapped model's token count."""
        return self.inner.count_tokens(text)

    def _able(self, capability: str) -> Any:
        """The wrapped model, for a call that needs ``capability``.

        Raises:
            LLMError: the wrapped model does not have it.
        """
        if capability not in self.capabilities:
            raise missing_capability(self.inner, capability)
        return self.inner
