"""Timing each judge call under its own usage component."""

from __future__ import annotations

import functools
from typing import Callable, Concatenate, ParamSpec, TypeVar

from hopkit.usage import usage_component

Self = TypeVar("Self")
Params = ParamSpec("Params")
Result = TypeVar("Result")


def timed(component: str) -> Callable[[Callable[Concatenate[Self, Params], Result]],
                                      Callable[Concatenate[Self, Params], Result]]:
    """Decorate a judge method so each call counts as one call of ``component``.

    The call and its seconds go to the usage block open in the calling thread or task
    (:func:`hopkit.usage.usage_component`; nothing without one), and so do an LLM judge's
    own model calls, with their tokens: the judge's cost is told apart from the method's.

    Args:
        component: the usage component, one of :data:`hopkit.judges.protocol.COMPONENTS`.
    """
    def decorate(method: Callable[Concatenate[Self, Params], Result]) -> Callable[Concatenate[Self, Params], Result]:
        @functools.wraps(method)
        def call(self: Self, /, *args: Params.args, **kwargs: Params.kwargs) -> Result:
            with usage_component(component):
                return method(self, *args, **kwargs)
        return call
    return decorate
