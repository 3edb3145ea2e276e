"""Counting what an LLM spends: per question (``hopkit.usage``) and in total."""

from __future__ import annotations

import threading
import time
from typing import Any, Callable, Sequence, TypeVar

from hopkit.llm.protocol import LLM, AttendedCompletion, ChatMessage, Completion
from hopkit.llm.capabilities import CapabilityMethod, Metering
from hopkit.llm.wrapper import LLMWrapper
from hopkit.traces.collect import note_prompt
from hopkit.usage import Usage, current_usage, open_component

T = TypeVar("T")


class MeteredLLM(LLMWrapper):
    """Wraps any LLM and counts its calls, tokens and wall-clock seconds.

    Every call is added, under the usage label open in the calling thread or task
    (:func:`hopkit.usage.usage_component`; ``"model"`` when none is), to the
    ``track_usage()`` block open there (if any) and to the running :attr:`total`.
    Completions pass through unchanged. Put it outside a
    :class:`~hopkit.llm.cache.CachedLLM` to count what the method asked for (cache
    hits count as calls, with their original token counts and near-zero seconds),
    inside to count only real model calls.

    It has exactly the optional capabilities of the model it wraps (``capabilities``);
    a capability's call is counted and timed as its ``metering`` in
    :data:`~hopkit.llm.capabilities.CAPABILITY_METHOD_TABLE` says: an early-stopped, chat, sampled
    or attended completion like a completion, a scoring with its prompt tokens alone (it
    generates none), ``attend`` with the tokens it read, ``token_texts`` (no model call) not
    at all. Each completion's prompt is noted for
    the question's trace (kept only when its block keeps prompts: ``hopkit run
    --trace-prompts``); scoring prompts are not, being many and short-lived. A call that
    fails is counted too, with no tokens: its seconds (a server's time-outs and retries,
    say) were spent on the model, not by hopkit.

    Args:
        inner: the LLM to meter.
    """

    def __init__(self, inner: LLM) -> None:
        super().__init__(inner)
        self._total = Usage()
        self._lock = threading.Lock()

    @property
    def total(self) -> Usage:
        """A snapshot of everything metered so far, across all threads (its
        ``total_seconds`` stays 0: no block measures the meter's wall time)."""
        with self._lock:
            return self._total.copy()

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
            LLMError: whatever the wrapped LLM raised (the failed call is counted, with its seconds and no tokens).
        """
        note_prompt(prompt)
        return self._record(*self._timed(lambda: self.inner.complete(prompt, stop=stop, max_tokens=max_tokens,
                                                                     temperature=temperature)))

    def _forward(self, method: CapabilityMethod, call: Callable[[], T], subject: object) -> T:
        """A capability's call, noted and recorded as its ``metering`` says (see :data:`Metering`).

        Raises:
            LLMError: whatever the wrapped LLM raised (the failed call is counted, with its seconds and no tokens).
        """
        if method.metering == "free":
            return call()
        if method.metering == "completion":
            note_prompt(_as_noted(subject))
        result, seconds = self._timed(call)
        self._add(*_counted(method.metering, result), seconds)
        return result

    def _timed(self, call: Callable[[], T]) -> tuple[T, float]:
        """What ``call`` returned and the seconds it took; a call that raised is counted (no tokens) and re-raised."""
        started = time.perf_counter()
        try:
            result = call()
        except Exception:
            self._add(0, 0, 0, time.perf_counter() - started)  # a failed model call's time is the model's too
            raise
        return result, time.perf_counter() - started

    def _record(self, completion: Completion, seconds: float) -> Completion:
        self._add(*_counted("completion", completion), seconds)
        return completion

    def _add(self, prompt_tokens: int, completion_tokens: int, cached_prompt_tokens: int, seconds: float) -> None:
        question, component = current_usage(), open_component()
        with self._lock:
            for usage in (self._total, question):
                if usage is not None:
                    usage.add_llm(prompt_tokens, completion_tokens, seconds, cached_prompt_tokens=cached_prompt_tokens,
                                  component=component)

    def __repr__(self) -> str:
        return f"MeteredLLM({self.inner!r})"


def _as_noted(prompt: Any) -> str | list[dict[str, str]]:
    """A generation's prompt as the trace keeps it: the text, or chat turns (:class:`ChatMessage`) as
    role/content mappings."""
    return prompt if isinstance(prompt, str) else [message.as_dict() for message in prompt]


def _counted(metering: Metering, result: Any) -> tuple[int, int, int]:
    """The prompt, generated and cached prompt tokens a call spent, read off its result."""
    if metering == "completion":
        completion = result.completion if isinstance(result, AttendedCompletion) else result
        return completion.prompt_tokens, completion.completion_tokens, completion.cached_prompt_tokens
    if metering == "scoring":
        return result.prompt_tokens, 0, result.cached_prompt_tokens
    if metering == "reading":
        return len(result.tokens), 0, 0
    return 0, 0, 0
