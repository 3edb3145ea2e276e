"""Per-question accounting of model calls and retrieval time.

The runner opens a :func:`track_usage` block around each question; the LLM and
retriever meters add what they spend to the innermost open block of the current
thread or task, so concurrent questions never mix their numbers.
"""

from __future__ import annotations

import contextvars
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Iterator


@dataclass
class Usage:
    """What one question (or one whole run) cost."""

    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_prompt_tokens: int = 0
    llm_seconds: float = 0.0
    retrieval_calls: int = 0
    retrieval_seconds: float = 0.0

    def add_llm(self, prompt_tokens: int, completion_tokens: int, seconds: float,
                cached_prompt_tokens: int = 0) -> None:
        self.llm_calls += 1
        self.prompt_tokens += prompt_tokens
        self.completion_tokens += completion_tokens
        self.cached_prompt_tokens += cached_prompt_tokens
        self.llm_seconds += seconds

    def add_retrieval(self, seconds: float) -> None:
        self.retrieval_calls += 1
        self.retrieval_seconds += seconds


_current: contextvars.ContextVar[Usage | None] = contextvars.ContextVar("hopkit_usage", default=None)


def current_usage() -> Usage | None:
    """The usage block open in this thread or task, if any."""
    return _current.get()


@contextmanager
def track_usage() -> Iterator[Usage]:
    """Open a usage block; meters called inside it add to the yielded :class:`Usage`."""
    usage = Usage()
    token = _current.set(usage)
    try:
        yield usage
    finally:
        _current.reset(token)
