"""Per-question accounting: calls, model tokens and seconds per labelled component.

The runner opens a :func:`track_usage` block around each question; the meters add what
they spend to the innermost open block of the current thread or task, so concurrent
questions never mix their numbers. Code that wants its cost told apart opens a label
with :func:`usage_component`::

    with usage_component("migres:leaf"):
        completion = llm.complete(prompt)

A method names the parts of it that call the model once, as :class:`ModelCallParts` in its registry
entry, and opens them by name (``with PARTS.call("leaf"):``), which refuses a part it did not declare.

Every model call the LLM meter sees is recorded under the innermost open label (its
calls, tokens and seconds), or under ``"model"`` when none is open; the retrieval meter
records under ``"retrieval"``; the judges open ``"judge:relevance"`` and the like around
each of their calls. A component's ``seconds`` are the time spent in it and neither in
its own model calls (those are its ``llm_seconds``) nor in another component opened
inside it, so the components never count a second twice and add up to at most the
block's wall time, :attr:`Usage.total_seconds`. The totals (:attr:`Usage.prompt_tokens`,
:attr:`Usage.llm_calls` ...) are sums over the components.

A :class:`Usage` is stored with each result as the JSON of :meth:`Usage.to_dict`::

    {"prompt_tokens": 2400, "completion_tokens": 60, "cached_prompt_tokens": 1900,
     "total_seconds": 12.5,
     "components": {"migres:leaf": {"calls": 2, "seconds": 0.01, "llm_calls": 2, "llm_seconds": 9.0,
                                    "prompt_tokens": 1800, "cached_prompt_tokens": 1500,
                                    "completion_tokens": 40},
                    "retrieval": {"calls": 3, "seconds": 0.02, "llm_calls": 0, "llm_seconds": 0.0,
                                  "prompt_tokens": 0, "cached_prompt_tokens": 0, "completion_tokens": 0},
                    ...}}

The top-level token counts are the components' sums, written for readers of the JSON.
Records written before components had tokens (``{"model": {"calls": 3, "seconds": 12.1}}``,
every model call under ``"model"`` and the tokens only at the top) are read as the
same cost: :meth:`Usage.from_dict` gives their ``"model"`` component the model calls,
their seconds and the top-level tokens.
"""

from __future__ import annotations

import contextvars
import math
import time
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field, fields
from typing import Any, Iterator, Mapping

from hopkit.errors import UsageError

#: The component a model call made with no label open is recorded under.
MODEL = "model"
#: The component the retrieval meter records under.
RETRIEVAL = "retrieval"
#: The components every method may have; any other (judges, a method's labels) is shown apart in reports.
BUILTIN_COMPONENTS: tuple[str, ...] = (MODEL, RETRIEVAL)

_TOKEN_FIELDS = ("prompt_tokens", "completion_tokens", "cached_prompt_tokens")
_SECONDS_FIELDS = ("seconds", "llm_seconds")


@dataclass
class ComponentUsage:
    """What one labelled component spent during a block.

    Attributes:
        calls: times the component was entered (for ``"model"``: its model calls).
        seconds: time in it outside its own model calls and outside other components.
        llm_calls: model calls made under it.
        llm_seconds: seconds of those model calls.
        prompt_tokens: their prompt tokens.
        cached_prompt_tokens: those of the prompt tokens served from a reused KV cache.
        completion_tokens: the tokens they generated.
    """

    calls: int = 0
    seconds: float = 0.0
    llm_calls: int = 0
    llm_seconds: float = 0.0
    prompt_tokens: int = 0
    cached_prompt_tokens: int = 0
    completion_tokens: int = 0

    @property
    def total_seconds(self) -> float:
        """Its own seconds and its model calls' seconds."""
        return self.seconds + self.llm_seconds

    def to_dict(self, where: str) -> dict[str, Any]:
        """The component as plain JSON values (``where`` names it in an error message)."""
        return {spec.name: (_seconds if spec.name in _SECONDS_FIELDS else _count)(
                    getattr(self, spec.name), f"{where}.{spec.name}") for spec in fields(self)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], where: str) -> ComponentUsage:
        """The component of :meth:`to_dict`'s JSON; a missing key counts as 0."""
        if not isinstance(data, Mapping):
            raise UsageError(f"usage field {where!r} must be a JSON object with calls and seconds, got {data!r}")
        return cls(**{spec.name: (_seconds if spec.name in _SECONDS_FIELDS else _count)(
                          data.get(spec.name, 0), f"{where}.{spec.name}") for spec in fields(cls)})


@dataclass
class Usage:
    """What one question (or one whole run) cost.

    Attributes:
        total_seconds: wall time of the :func:`track_usage` block (set when it closes).
        components: what each component spent (``"model"``, ``"retrieval"``,
            ``"judge:relevance"``, ``"migres:leaf"`` ...); a component never entered is absent.
    """

    total_seconds: float = 0.0
    components: dict[str, ComponentUsage] = field(default_factory=dict)

    # -- recording ----------------------------------------------------------

    def add_call(self, component: str, seconds: float) -> None:
        """Add one call of ``component`` that took ``seconds`` of its own."""
        entry = self.component(component, create=True)
        entry.calls += 1
        entry.seconds += seconds

    def add_llm(self, prompt_tokens: int, completion_tokens: int, seconds: float, cached_prompt_tokens: int = 0,
                component: str = MODEL) -> None:
        """Add one model call with its token counts under ``component`` (``"model"``: also one call of it)."""
        entry = self.component(component, create=True)
        if component == MODEL:
            entry.calls += 1
        entry.llm_calls += 1
        entry.llm_seconds += seconds
        entry.prompt_tokens += prompt_tokens
        entry.completion_tokens += completion_tokens
        entry.cached_prompt_tokens += cached_prompt_tokens

    def add_retrieval(self, seconds: float) -> None:
        """Add one retrieval (component ``"retrieval"``)."""
        self.add_call(RETRIEVAL, seconds)

    # -- reading -------------------------------------------------------------

    def component(self, name: str, *, create: bool = False) -> ComponentUsage:
        """What ``name`` spent (an empty record if it was never entered; ``create``: kept in the block)."""
        if create:
            return self.components.setdefault(name, ComponentUsage())
        return self.components.get(name) or ComponentUsage()

    def calls(self, component: str) -> int:
        """Calls of ``component`` (0 if it was never called)."""
        return self.component(component).calls

    def seconds(self, component: str) -> float:
        """Seconds spent in ``component`` outside its model calls (0.0 if it was never called)."""
        return self.component(component).seconds

    def _sum(self, name: str) -> Any:
        values = [getattr(entry, name) for entry in self.components.values()]
        return math.fsum(values) if name in _SECONDS_FIELDS else sum(values)

    @property
    def prompt_tokens(self) -> int:
        """Prompt tokens of every model call."""
        return int(self._sum("prompt_tokens"))

    @property
    def completion_tokens(self) -> int:
        """Tokens every model call generated."""
        return int(self._sum("completion_tokens"))

    @property
    def cached_prompt_tokens(self) -> int:
        """Prompt tokens served from a reused KV cache."""
        return int(self._sum("cached_prompt_tokens"))

    @property
    def llm_calls(self) -> int:
        """Model calls, under whichever component."""
        return int(self._sum("llm_calls"))

    @property
    def llm_seconds(self) -> float:
        """Seconds in model calls, under whichever component."""
        return float(self._sum("llm_seconds"))

    @property
    def retrieval_calls(self) -> int:
        """Retriever calls."""
        return self.calls(RETRIEVAL)

    def nested_calls(self, component: str) -> int:
        """Calls of ``component``, also where :func:`components_of` nested it under an owner
        (``adaptive-rag:retrieval``: a routed strategy's retrievals)."""
        return sum(entry.calls for name, entry in self.components.items()
                   if name == component or name.endswith(":" + component))

    @property
    def retrieval_seconds(self) -> float:
        """Seconds in retriever calls."""
        return self.seconds(RETRIEVAL)

    @property
    def component_seconds(self) -> float:
        """Seconds spent in all components together, their model calls included."""
        return math.fsum(entry.total_seconds for entry in self.components.values())

    @property
    def other_seconds(self) -> float:
        """Wall time outside every component (clipped at 0: calls made in parallel can add
        up to more than the wall time)."""
        return max(0.0, self.total_seconds - self.component_seconds)

    def copy(self) -> Usage:
        """An independent copy (its components are copied too)."""
        return Usage(self.total_seconds,
                     {name: ComponentUsage(**vars(entry)) for name, entry in self.components.items()})

    # -- JSON ------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The record as plain JSON values (see the module docstring for the shape).

        Raises:
            UsageError: a count is not an integer or a number of seconds is not finite
                (the message names the field).
        """
        components = {name: entry.to_dict(f"components.{name}") for name, entry in self.components.items()}
        out: dict[str, Any] = {name: self._sum(name) for name in _TOKEN_FIELDS}
        out["total_seconds"] = _seconds(self.total_seconds, "total_seconds")
        out["components"] = components
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Usage:
        """The record of :meth:`to_dict`'s JSON, or of the JSON written before components had
        tokens (read as described in the module docstring); a missing key counts as 0.

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
        for name, entry in components.items():
            usage.components[str(name)] = ComponentUsage.from_dict(entry, f"components.{name}")
            if str(name) == MODEL and "llm_calls" not in entry:  # written when "model" held every model call
                model = usage.components[MODEL]
                model.llm_calls, model.llm_seconds, model.seconds = model.calls, model.seconds, 0.0
        for name in _TOKEN_FIELDS:
            unlabelled = _count(data.get(name, 0), name) - usage._sum(name)
            if unlabelled > 0:  # tokens of a record whose components had none
                entry = usage.component(MODEL, create=True)
                setattr(entry, name, getattr(entry, name) + unlabelled)
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
_label: contextvars.ContextVar[str] = contextvars.ContextVar("hopkit_usage_label", default=MODEL)
_prefix: contextvars.ContextVar[str] = contextvars.ContextVar("hopkit_usage_prefix", default="")


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
def components_of(owner: str) -> Iterator[None]:
    """Count the components opened inside under ``owner`` (``"adaptive-rag:"`` + ``"oner:read"``): a
    method that runs another method as one of its parts keeps that part's costs as its own.

    Raises:
        UsageError: ``owner`` is not a non-empty string.
    """
    if not isinstance(owner, str) or not owner.strip():
        raise UsageError(f"a component owner must be a non-empty string, got {owner!r}")
    token = _prefix.set(f"{_prefix.get()}{owner}:")
    try:
        yield
    finally:
        _prefix.reset(token)


def open_component() -> str:
    """The innermost label open in this thread or task (:func:`usage_component`), else ``"model"``:
    the component a model call made now is recorded under."""
    return _label.get()


@contextmanager
def usage_component(name: str) -> Iterator[None]:
    """Open the label ``name``: one call of it, the seconds spent in it and the model calls made
    inside it (their tokens and seconds) go to the open usage block.

    Only the counting is a no-op outside a :func:`track_usage` block: the label is open
    either way, so a meter's running total sees it too. The call counts also when the
    body raises. Seconds that model calls or other components recorded into the block
    while this one was open are not counted again as its own.

    Args:
        name: the component, e.g. ``"judge:relevance"`` or ``"migres:leaf"``.

    Raises:
        UsageError: ``name`` is not a non-empty string.
    """
    if not isinstance(name, str) or not name.strip():
        raise UsageError(f"a component name must be a non-empty string, got {name!r}")
    name = _prefix.get() + name
    usage = _current.get()
    label = _label.set(name)
    inside_before = usage.component_seconds if usage is not None else 0.0
    started = time.perf_counter()
    try:
        yield
    finally:
        _label.reset(label)
        if usage is not None:
            elapsed = time.perf_counter() - started
            nested = usage.component_seconds - inside_before
            usage.add_call(name, max(0.0, elapsed - nested))


@dataclass(frozen=True)
class ModelCallParts:
    """The parts of a method that call the model, each told apart in the cost tables under the label
    ``<method>:<part>`` (``dragin:qfs``): named once, here, held by the method's registry entry
    (:attr:`hopkit.methods.registry.MethodEntry.parts`), and opened by name with :meth:`call`.

    Args:
        method: the method's registered name, the first half of each label.
        names: the parts (letters, digits, ``-`` and ``_``).

    Raises:
        UsageError: no part, a part named twice, or a name that is not a plain word.
    """

    method: str
    names: tuple[str, ...]

    def __post_init__(self) -> None:
        if not isinstance(self.method, str) or not self.method.strip():
            raise UsageError(f"model-call parts: the method must be a non-empty name, got {self.method!r}")
        if not self.names or len(set(self.names)) != len(self.names):
            raise UsageError(f"{self.method}'s model-call parts must be one or more distinct names, got {self.names!r}")
        for name in self.names:
            if not isinstance(name, str) or not name or not name.replace("-", "").replace("_", "").isalnum():
                raise UsageError(f"{self.method}'s model-call part {name!r}: letters, digits, '-' and '_' only")

    def label(self, name: str) -> str:
        """The usage label of the part ``name`` (``dragin:qfs``).

        Raises:
            UsageError: ``name`` is not one of the parts (the message lists them).
        """
        if name not in self.names:
            raise UsageError(f"{self.method} has no model-call part {name!r}; its parts: {', '.join(self.names)}")
        return f"{self.method}:{name}"

    @property
    def labels(self) -> tuple[str, ...]:
        """Every part's usage label, in the order declared."""
        return tuple(self.label(name) for name in self.names)

    def call(self, name: str) -> AbstractContextManager[None]:
        """:func:`usage_component` of the part ``name``: its model calls, tokens and seconds counted as the part's.

        Raises:
            UsageError: ``name`` is not one of the parts.
        """
        return usage_component(self.label(name))
