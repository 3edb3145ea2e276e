"""The interface every question-answering method offers to the runner, and its one lifecycle."""

from __future__ import annotations

import threading
from typing import Protocol, runtime_checkable

from hopkit.records import GenerationResult, Query

_WARMING = threading.RLock()


@runtime_checkable
class Method(Protocol):
    """Answers one question; ``name`` is the method's short name (``nor``, ``oner``, ``ircot``).

    A method with heavy parts (judges, indexes) builds them in ``warm_up()``, which the runner
    calls once before the first question (:class:`WarmsUp`).
    """

    name: str

    def generate(self, query: Query) -> GenerationResult:
        """Answer ``query`` and return the answer, the retrieved ids and a JSON trace."""
        ...


class WarmsUp:
    """A method whose heavy parts are built once, in :meth:`warm_up`.

    The runner calls ``warm_up()`` before the first question, so a judge that cannot be
    built fails the run before any question is asked; ``generate`` calls it too (it does
    nothing the second time), so a method answering a question directly works as well.
    """

    _warm = False

    def warm_up(self) -> None:
        """Build the heavy parts, once (safe from several threads)."""
        with _WARMING:
            if not self._warm:
                self.build_heavy_parts()
                self._warm = True

    def build_heavy_parts(self) -> None:
        """Build what the method needs before its first question (judges, indexes)."""


def warm_up(method: object) -> None:
    """Call ``method.warm_up()`` if it has one (a method without heavy parts need not)."""
    hook = getattr(method, "warm_up", None)
    if callable(hook):
        hook()
