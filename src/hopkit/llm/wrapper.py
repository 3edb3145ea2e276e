"""What every wrapper around an LLM shares (the response cache, the usage meter): the wrapped model's
identity and capabilities, passed through, the check that it has the capability a call needs, and every
capability's methods, forwarded from one table (:data:`~hopkit.llm.capabilities.CAPABILITY_METHOD_TABLE`)."""

from __future__ import annotations

import functools
import inspect
from typing import Any, Callable

from hopkit.llm.protocol import LLM
from hopkit.llm.capabilities import CAPABILITY_METHOD_TABLE, CapabilityMethod, capabilities_of, missing_capability


class LLMWrapper:
    """Stands for ``inner``: same ``model_id``, ``context_length``, ``capabilities`` and token count.

    It has every capability's method (those of
    :data:`~hopkit.llm.capabilities.CAPABILITY_METHOD_TABLE`, with their protocol's signature): each
    checks that the wrapped model has the capability (or raises as the model itself would not have
    the method) and hands the call to :meth:`_forward`, where a subclass adds what it does around
    it. A subclass that treats one method its own way (the cache's keyed answers) defines it.

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

    def _forward(self, method: CapabilityMethod, call: Callable[[], Any], subject: object) -> Any:
        """What ``call`` (the wrapped model's ``method``, already checked) returns; ``subject`` is the
        call's first argument (the prompt, the chat turns, the text read). Here: the call alone."""
        return call()

    def _able(self, capability: str) -> Any:
        """The wrapped model, for a call that needs ``capability``.

        Raises:
            LLMError: the wrapped model does not have it.
        """
        if capability not in self.capabilities:
            raise missing_capability(self.inner, capability)
        return self.inner


def _forwarding(method: CapabilityMethod) -> Callable[..., Any]:
    """The wrapper's ``method``: the protocol's signature and docstring, the call handed to ``_forward``."""
    declared = getattr(method.protocol, method.name)
    subject_name = list(inspect.signature(declared).parameters)[1]  # the first after self

    @functools.wraps(declared)
    def forward(self: LLMWrapper, *args: Any, **kwargs: Any) -> Any:
        wrapped = getattr(self._able(method.capability), method.name)
        subject = args[0] if args else kwargs.get(subject_name)
        return self._forward(method, lambda: wrapped(*args, **kwargs), subject)

    forward.__qualname__ = f"{LLMWrapper.__name__}.{method.name}"
    return forward


for _method in CAPABILITY_METHOD_TABLE:
    setattr(LLMWrapper, _method.name, _forwarding(_method))
del _method
