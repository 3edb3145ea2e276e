"""The interface every question-answering method offers to the runner."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from hopkit.records import GenerationResult, Query


@runtime_checkable
class Method(Protocol):
    """Answers one question; ``name`` is the method's short name (``nor``, ``oner``, ``ircot``)."""

    name: str

    def generate(self, query: Query) -> GenerationResult:
        """Answer ``query`` and return the answer, the retrieved ids and a JSON trace."""
        ...
