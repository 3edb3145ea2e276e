"""Per-question accounting: model tokens, and calls and seconds per component.

The runner opens a :func:`track_usage` block around each question; the LLM and
retriever meters add what they spend to the innermost open block of the current
thread or task, so concurrent questions never mix their numbers. The LLM meter
records under the component ``"model"``, the retrieval meter under
``"retrieval"``, and anything else (a judge, say) times itself with
:func:`timed_component`::

    with timed_component("judge:relevance"):
        score = reranker.score(question, passage)

A component's seconds are the time spent in it and not in another component
recorded while it was open (an LLM-prompted judge's model calls count under
``"model"``), so the components never count a second twice and add up to at most
the block's wall time, :attr:`Usage.total_seconds`.

A :class:`Usage` is stored with each result as the JSON of :meth:`Usage.to_dict`::

    {"prompt_tokens": 2400, "completion_tokens": 60, "cached_prompt_tokens": 1900,
     "total_seconds": 12.5,
     "components": {"model": {"calls": 3, "seconds": 12.1},
                    "retrieval": {"calls": 3, "seconds": 0.02}}}
"""

from __future__ import annotations

import contextvars
import math
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Iterator, Mapping

from hopkit.errors import UsageError

#: The component the LLM meter records under.
MODEL = "model"
#: The component the retrieval meter records under.
RETRIEVAL = "retrieval"
#: The components every method may have; any other (judges) is shown apart in reports.
BUILTIN_COMPONENTS: tuple[str, ...] = (MODEL, RETRIEVAL)

_TOKEN_FIELDS = ("prompt_tokens", "completion_tokens", "cached_prompt_tokens")


@dataclass
class ComponentUsage:
    """How often one component was called during a block, and the seconds spent in it."""

    calls: int = 0
    seconds: float = 0.0


@dataclass
class Usage:
    """What one question (or one whole run) cost.

    Attributes:
        prompt_tokens: prompt tokens of every model call.
        completion_tokens: tokens the model generated.
        cached_prompt_tokens: prompt tokens served from a reused KV cache.
        total_seconds: wall time of the :func:`track_usage` block (set when it closes).
        components: calls and seconds per component (``"model"``, ``"retrieval"``,
            ``"judge:relevance"`` ...); a component never called is absent.
    """

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_prompt_tokens: int = 0
    total_seconds: float = 0.0
    components: dict[str, ComponentUsage] = field(default_factory=dict)

    # -- recording ----------------------------------------------------------

    def add_call(self, component: str, seconds: float) -> None:
        """Add one call of ``component`` that took ``seconds``."""
        entry = self.components.setdefault(component, ComponentUsage())
        entry.calls += 1
        entry.seconds += seconds

    def add_llm(self, prompt_tokens: int, completion_tokens: int, seconds: float,
                cached_prompt_tokens: int = 0) -> None:
        """Add one model call with its token counts (component ``"model"``)."""
        self.add_call(MODEL, seconds)
        self.prompt_tokens += prompt_tokens
        self.completion_tokens += completion_tokens
        self.cached_prompt_tokens += cached_prompt_tokens

    def add_retrieval(self, seconds: float) -> None:
        """Add one retrieval (component ``"retrieval"``)."""
        self.add_call(RETRIEVAL, seconds)

    # -- reading -------------------------------------------------------------

    def calls(self, component: str) -> int:
        """Calls of ``component`` (0 if it was never called)."""
        entry = self.components.get(component)
        return entry.calls if entry is not None else 0

    def seconds(self, component: str) -> float:
        """Seconds spent in ``component`` (0.0 if it was never called)."""
        entry = self.components.get(component)
        return entry.seconds if entry is not None else 0.0

    @property
    def llm_calls(self) -> int:
        """Model calls (the ``"model"`` component's calls)."""
        return self.calls(MODEL)

    @property
    def llm_seconds(self) -> float:
        """Seconds in model calls."""
        return self.seconds(MODEL)

    @property
    def retrieval_calls(self) -> int:
        """Retriever calls."""
        return self.calls(RETRIEVAL)

    @property
    def retrieval_seconds(self) -> float:
        """Seconds in retriever calls."""
        return self.seconds(RETRIEVAL)

    @property
    def component_seconds(self) -> float:
        """Seconds spent in all components together."""
        return math.fsum(entry.seconds for entry in self.components.values())

    @property
    def other_seconds(self) -> float:
        """Wall time outside every component (clipped at 0: calls made in parallel can add
        up to more than the wall time)."""
        return max(0.0, self.total_seconds - self.component_seconds)

    def copy(self) -> Usage:
        """An independent copy (its components are copied too)."""
        return Usage(self.prompt_tokens, self.completion_tokens, self.cached_prompt_tokens, self.total_seconds,
                     {name: ComponentUsage(e.calls, e.seconds) for name, e in self.components.items()})

    # -- JSON ------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The record as plain JSON values (see the module docstring for the shape).

        Raises:
            UsageError: a count is not an integer or a number of seconds is not finite
                (the message names the field).
        """
        out: dict[str, Any] = {name: _count(getattr(self, name), name) for name in _TOKEN_FIELDS}
        out["total_seconds"] = _seconds(self.total_seconds, "total_seconds")
        out["components"] = {
            name: {"calls": _count(entry.calls, f"components.{name}.calls"),
                   "seconds": _seconds(entry.seconds, f"components.{name}.seconds")}
            for name, entry in self.components.items()}
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Usage:
        """The record of :meth:`to_dict`'s JSON; a missing key counts as 0.

        Raises:
            UsageError: ``data`` or a component is not a mapping, a count is not an
                integer, or a number of seconds is not finite (the message names the field).
        """
        if not isinstance(data, Mapping):
            raise UsageError(f"a usage record must be a JSON object, got {data!r}")
        components = data.get("components") or {}
        if not isinstance(components, Mapping):
            raise UsageError(f"usage field 'components' must be a JSON object, got {components!r}")
        usage = cls(total_seconds=_seconds(data.get("total_seconds", 0.0), "total_seconds"))
        for name in _TOKEN_FIELDS:
            setattr(usage, name, _count(data.get(name, 0), name))
        for name, entry in components.items():
            if not isinstance(entry, Mapping):
                raise UsageError(f"usage field 'components.{name}' must be a JSON object with calls and "
                                 f"seconds, got {entry!r}")
            usage.components[str(name)] = ComponentUsage(
                _count(entry.get("calls", 0), f"components.{name}.calls"),
                _seconds(entry.get("seconds", 0.0), f"components.{name}.seconds"))
        return usage


def _count(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise UsageError(f"usage field {name!r} must be a non-negative integer, got {value!r}")
    return value


def _seconds(value: Any, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise UsageError(f"usage field {name!r} must be a finite number of seconds, got {value!r}")
    return float(value)


_current: contextvars.ContextVar[Usage | None] = contextvars.ContextVar("hopkit_usage", default=None)


def current_usage() -> Usage | None:
    """The usage block open in this thread or task, if any."""
    return _current.get()


@contextmanager
def track_usage() -> Iterator[Usage]:
    """Open a usage block; meters called inside it add to the yielded :class:`Usage`.

    When the block closes (also on an error), its wall time is written to
    :attr:`Usage.total_seconds`.
    """
    usage = Usage()
    token = _current.set(usage)
    started = time.perf_counter()
    try:
        yield usage
    finally:
        usage.total_seconds = time.perf_counter() - started
        _current.reset(token)


@contextmanager
def timed_component(name: str) -> Iterator[None]:
    """Add one call of component ``name`` and the seconds spent in it to the open usage block.

    A no-op outside a :func:`track_usage` block. The call counts also when the body
    raises. Seconds that other components recorded into the block while this one was
    open (a judge's own model calls) are not counted again here.

    Args:
        name: the component, e.g. ``"judge:relevance"``.

    Raises:
        UsageError: ``name`` is not a non-empty string.
    """
    if not isinstance(name, str) or not name.strip():
        raise UsageError(f"a component name must be a non-empty string, got {name!r}")
    usage = _current.get()
    if usage is None:
        yield
        return
    inside_before = usage.component_seconds
    started = time.perf_counter()
    try:
        yield
    finally:
        elapsed = time.perf_counter() - started
        nested = usage.component_seconds - inside_before
        usage.add_call(name, max(0.0, elapsed - nested))
