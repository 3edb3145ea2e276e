"""Counting what an LLM spends: per question (``hopkit.usage``) and in total."""

from __future__ import annotations

import threading
import time
from typing import Callable, Sequence, TypeVar

from hopkit.llm.protocol import (ATTENTION, CHAT, EARLY_STOP, LLM, SAMPLING, SCORING, TOKEN_SCORING,
                                 AttendedCompletion, AttendingLLM, Attention, ChatLLM, ChatMessage, Completion, Done,
                                 SamplingLLM, Scores, ScoringLLM, StreamingLLM, TokenScores, TokenScoringLLM)
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
    an early-stopped completion and a scoring call are counted and timed like a
    completion (a scoring call generates no tokens). Each completion's prompt is noted for
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

    def complete_sample(self, prompt: str, sample: int, *, stop: Sequence[str] = (), max_tokens: int = 256,
                        temperature: float = 1.0) -> Completion:
        """The wrapped LLM's ``complete_sample``, recorded like :meth:`complete`.

        Raises:
            LLMError: the wrapped LLM has no ``"sampling"`` capability, or its call failed.
        """
        sampling: SamplingLLM = self._able(SAMPLING)
        note_prompt(prompt)
        return self._record(*self._timed(lambda: sampling.complete_sample(prompt, sample, stop=stop,
                                                                          max_tokens=max_tokens,
                                                                          temperature=temperature)))

    def complete_chat(self, messages: Sequence[ChatMessage], *, stop: Sequence[str] = (), max_tokens: int = 256,
                      temperature: float = 0.0) -> Completion:
        """The wrapped LLM's ``complete_chat``, recorded like :meth:`complete`.

        Raises:
            LLMError: the wrapped LLM has no ``"chat"`` capability, or its call failed.
        """
        chat: ChatLLM = self._able(CHAT)
        note_prompt([message.as_dict() for message in messages])
        return self._record(*self._timed(lambda: chat.complete_chat(messages, stop=stop, max_tokens=max_tokens,
                                                                    temperature=temperature)))

    def complete_until(self, prompt: str, done: Done, *, stop: Sequence[str] = (), max_tokens: int = 256,
                       temperature: float = 0.0) -> Completion:
        """The wrapped LLM's ``complete_until``, recorded like :meth:`complete`.

        Raises:
            LLMError: the wrapped LLM has no ``"early_stop"`` capability, or its call failed.
        """
        streaming: StreamingLLM = self._able(EARLY_STOP)
        note_prompt(prompt)
        return self._record(*self._timed(lambda: streaming.complete_until(prompt, done, stop=stop,
                                                                          max_tokens=max_tokens,
                                                                          temperature=temperature)))

    def score_continuations(self, prompt: str, candidates: Sequence[str]) -> Scores:
        """The wrapped LLM's ``score_continuations``, recorded as one call with its prompt tokens.

        Raises:
            LLMError: the wrapped LLM has no ``"scoring"`` capability, or its call failed.
        """
        scoring: ScoringLLM = self._able(SCORING)
        scores, seconds = self._timed(lambda: scoring.score_continuations(prompt, candidates))
        self._add(scores.prompt_tokens, 0, scores.cached_prompt_tokens, seconds)
        return scores

    def score_tokens(self, prompt: str, continuation: str) -> TokenScores:
        """The wrapped LLM's ``score_tokens``, recorded as one call with its prompt tokens.

        Raises:
            LLMError: the wrapped LLM has no ``"token_scoring"`` capability, or its call failed.
        """
        scoring: TokenScoringLLM = self._able(TOKEN_SCORING)
        token_scores, seconds = self._timed(lambda: scoring.score_tokens(prompt, continuation))
        self._add(token_scores.prompt_tokens, 0, token_scores.cached_prompt_tokens, seconds)
        return token_scores

    def complete_attended(self, prompt: str, *, stop: Sequence[str] = (), max_tokens: int = 256) -> AttendedCompletion:
        """The wrapped LLM's ``complete_attended``, recorded like :meth:`complete`.

        Raises:
            LLMError: the wrapped LLM has no ``"attention"`` capability, or its call failed.
        """
        attending: AttendingLLM = self._able(ATTENTION)
        note_prompt(prompt)
        attended, seconds = self._timed(lambda: attending.complete_attended(prompt, stop=stop, max_tokens=max_tokens))
        self._record(attended.completion, seconds)
        return attended

    def attend(self, text: str) -> Attention:
        """The wrapped LLM's ``attend``, recorded as one call reading the text's tokens.

        Raises:
            LLMError: the wrapped LLM has no ``"attention"`` capability, or its call failed.
        """
        attending: AttendingLLM = self._able(ATTENTION)
        attention, seconds = self._timed(lambda: attending.attend(text))
        self._add(len(attention.tokens), 0, 0, seconds)
        return attention

    def token_texts(self, text: str, *, special_tokens: bool = False) -> tuple[str, ...]:
        """The wrapped LLM's ``token_texts`` (the tokenizer alone: not a call, not recorded)."""
        attending: AttendingLLM = self._able(ATTENTION)
        return attending.token_texts(text, special_tokens=special_tokens)

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
        self._add(completion.prompt_tokens, completion.completion_tokens, completion.cached_prompt_tokens, seconds)
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
