"""The trace a result stores: the method's own keys plus the typed trace, checked as JSON.

The runner calls :func:`stored_trace` inside its per-question guard: a trace JSON
cannot represent (NaN, an object, a set, a cycle) fails that question with a message
naming the question and the key path, instead of failing the store write and the run.
"""

from __future__ import annotations

import json
import math
import reprlib
from typing import Any, Mapping

from hopkit.traces.records import TraceError
from hopkit.traces.trace import TRACE_KEY, Trace

_ROOT = "trace"


def stored_trace(query_id: str, metadata: Any, trace: Trace) -> dict[str, Any]:
    """The trace to store for one question.

    Args:
        query_id: the question, for the error message.
        metadata: the method's trace (``GenerationResult.metadata``).
        trace: the steps and citations collected while the method ran.

    Returns:
        A copy of ``metadata`` with ``trace.to_json()`` under :data:`TRACE_KEY` when a
        step or citation was recorded (``metadata`` alone otherwise).

    Raises:
        TraceError: ``metadata`` is not a mapping or uses :data:`TRACE_KEY` itself, or
            something in the result is not JSON (``json.dumps(allow_nan=False)`` refuses it).
    """
    if not isinstance(metadata, Mapping):
        raise TraceError(f"question {query_id}: the method's metadata must be a mapping, got "
                         f"{type(metadata).__name__}")
    if TRACE_KEY in metadata:
        raise TraceError(f"question {query_id}: the method's metadata uses the key {TRACE_KEY!r}, which holds "
                         "the typed trace; record steps with hopkit.traces.record_step instead")
    stored = dict(metadata)
    if trace:
        stored[TRACE_KEY] = trace.to_json()
    check_json(stored, f"question {query_id}")
    return stored


def check_json(value: Any, what: str) -> None:
    """Check ``json.dumps(value, allow_nan=False)`` succeeds.

    Raises:
        TraceError: it does not; the message starts with ``what`` and names the first
            offending key path (``trace.typed_trace.steps[2].scores[0]``).
    """
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError, RecursionError) as exc:
        try:
            found = _first_non_json(value, _ROOT, frozenset())
        except RecursionError:  # nested deeper than Python recurses: say what json said
            found = None
        path, problem = found if found is not None else (_ROOT, str(exc))
        raise TraceError(f"{what}: the trace cannot be stored as JSON: {path} is {problem}; a trace may hold "
                         "only strings, finite numbers, booleans, None, lists and dicts") from exc


def _first_non_json(value: Any, path: str, enclosing: frozenset[int]) -> tuple[str, str] | None:
    """Where and why ``json.dumps(allow_nan=False)`` refuses ``value`` (None if it does not)."""
    if value is None or isinstance(value, (str, bool, int)):
        return None
    if isinstance(value, float):
        return None if math.isfinite(value) else (path, f"{value!r} (not a finite number)")
    if not isinstance(value, (dict, list, tuple)):
        return path, f"an object of type {type(value).__name__} ({reprlib.repr(value)})"
    if id(value) in enclosing:
        return path, "the container it sits in (a cycle)"
    inside = enclosing | {id(value)}
    if isinstance(value, dict):
        for key, item in value.items():
            where = path + _key_path(key)
            if not (key is None or isinstance(key, (str, int, float, bool))):
                return where, f"under a key of type {type(key).__name__}; keys must be strings"
            if isinstance(key, float) and not math.isfinite(key):
                return where, f"under the key {key!r} (not a finite number)"
            found = _first_non_json(item, where, inside)
            if found is not None:
                return found
        return None
    for index, item in enumerate(value):
        found = _first_non_json(item, f"{path}[{index}]", inside)
        if found is not None:
            return found
    return None


def _key_path(key: Any) -> str:
    """``.name`` for a key that reads as a name, else ``["key"]`` (or ``[key]`` for a non-string)."""
    if isinstance(key, str):
        return f".{key}" if key.isidentifier() else f"[{json.dumps(key, ensure_ascii=False)}]"
    return f"[{key!r}]"
