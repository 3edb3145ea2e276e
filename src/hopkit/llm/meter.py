"""Counting what an LLM spends: per question (``hopkit.usage``) and in total."""

from __future__ import annotations

import dataclasses
import threading
import time
from typing import Sequence

from hopkit.llm.early_stop import Done, complete_until
from hopkit.llm.protocol import LLM, Completion
from hopkit.usage import Usage, current_usage


class MeteredLLM:
    """Wraps any LLM and counts its calls, tokens and wall-clock seconds.

    Every call is added to the ``track_usage()`` block open in the calling thread or
    task (if any) and to the running :attr:`total`. Completions pass through
    unchanged. Put it outside a :class:`~hopkit.llm.cache.CachedLLM` to count
    what the method asked for (cache hits count as calls, with their original
    token counts and near-zero seconds), inside to count only real model calls.

    Args:
        inner: the LLM to meter.
    """

    def __init__(self, inner: LLM) -> None:
        self.inner = inner
        self._total = Usage()
        self._lock = threading.Lock()

    @property
    def model_id(self) -> str:
        """The wrapped model's id (metering does not change outputs)."""
        return self.inner.model_id

    @property
    def context_length(self) -> int:
        """The wrapped model's context window."""
        return self.inner.context_length

    @property
    def total(self) -> Usage:
        """A snapshot of everything metered so far, across all threads."""
        with self._lock:
            return dataclasses.replace(self._total)

    def complete(self, prompt: str, *, stop: Sequence[str] = (), max_tokens: int = 256,
                 temperature: float = 0.0) -> Completion:
        """Call the wrapped LLM and record the call.

        Args:
            prompt: passed through.
            stop: passed through.
            max_tokens: passed through.
            temperature: passed through.

        Returns:
            The wrapped LLM's completion, unchanged.

        Raises:
            LLMError: whatever the wrapped LLM raised (a failed call is not counted).
        """
        started = time.perf_counter()
        completion = self.inner.complete(prompt, stop=stop, max_tokens=max_tokens, temperature=temperature)
        return self._record(completion, time.perf_counter() - started)

    def complete_until(self, prompt: str, done: Done, *, stop: Sequence[str] = (), max_tokens: int = 256,
                       temperature: float = 0.0) -> Completion:
        """:func:`~hopkit.llm.early_stop.complete_until` on the wrapped LLM, recorded like :meth:`complete`."""
        started = time.perf_counter()
        completion = complete_until(self.inner, prompt, done, stop=stop, max_tokens=max_tokens,
                                    temperature=temperature)
        return self._record(completion, time.perf_counter() - started)

    def _record(self, completion: Completion, seconds: float) -> Completion:
        question = current_usage()
        with self._lock:
            for usage in (self._total, question):
                if usage is not None:
                    usage.add_llm(completion.prompt_tokens, completion.completion_tokens, seconds,
                                  cached_prompt_tokens=completion.cached_prompt_tokens)
        return completion

    def count_tokens(self, text: str) -> int:
        """The wrapped LLM's token count."""
        return self.inner.count_tokens(text)

    def __repr__(self) -> str:
        return f"MeteredLLM({self.inner!r})"
