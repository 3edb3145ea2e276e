"""One question's trace: its steps and citations, and their JSON form.

The JSON form, stored under the key :data:`TRACE_KEY` of a result's trace beside the
method's own keys (schema in ``docs/traces.md``)::

    {"schema_version": 1,
     "steps": [{"id": 1, "parent": null, "kind": "retrieve", "input": "...", "output": {...},
                "paragraph_ids": [4, 9], "scores": [12.5, 11.0], "llm_calls": 0, "extra": {}}, ...],
     "citations": [{"step": 3, "claim": null, "paragraph_ids": [4], "score": 0.9}, ...]}
"""

from __future__ import annotations

from numbers import Integral, Real
from typing import Any, Mapping, Sequence

from hopkit.traces.records import Citation, Step, TraceError

#: The version of the JSON form; bumped when a field changes meaning or goes away.
SCHEMA_VERSION = 1
#: Where the typed trace sits in a result's trace (``QueryResult.trace[TRACE_KEY]``).
TRACE_KEY = "typed_trace"

_STEP_FIELDS = ("id", "parent", "kind", "input", "output", "paragraph_ids", "scores", "llm_calls", "extra")
_CITATION_FIELDS = ("step", "claim", "paragraph_ids", "score")


class Trace:
    """The steps and citations recorded for one question, in recording order.

    Usually filled through :func:`hopkit.traces.record_step` and :func:`hopkit.traces.cite`
    inside a :func:`hopkit.traces.collect_trace` block; the runner opens one per question.
    """

    def __init__(self) -> None:
        self._steps: list[Step] = []
        self._citations: list[Citation] = []

    @property
    def steps(self) -> tuple[Step, ...]:
        """The steps, in the order they were recorded (``steps[i].id == i + 1``)."""
        return tuple(self._steps)

    @property
    def citations(self) -> tuple[Citation, ...]:
        """The citations, in the order they were made."""
        return tuple(self._citations)

    def retrieved_ids(self) -> tuple[int, ...]:
        """The paragraphs the ``retrieve`` steps returned, in the order they came, each once: what a
        question that failed half-way had retrieved (its result's ``chunk_ids``)."""
        return tuple(dict.fromkeys(pid for step in self._steps if step.kind == "retrieve"
                                   for pid in step.paragraph_ids))

    def __bool__(self) -> bool:
        """True once a step or a citation is recorded."""
        return bool(self._steps or self._citations)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Trace):
            return NotImplemented
        return self._steps == other._steps and self._citations == other._citations

    def __repr__(self) -> str:
        return f"Trace(steps={len(self._steps)}, citations={len(self._citations)})"

    def add_step(self, kind: str, *, parent: int | None = None, input: Any = None, output: Any = None,
                 paragraph_ids: Sequence[int] = (), scores: Sequence[float] | Mapping[str, float] = (),
                 llm_calls: int = 0, extra: Mapping[str, Any] | None = None) -> Step:
        """Append a step; it gets the next id.

        Paragraph ids and scores of numeric types other than ``int`` and ``float`` (NumPy's)
        are converted to them.

        Raises:
            TraceError: a field is malformed (see :class:`Step`).
        """
        step = Step(id=len(self._steps) + 1, kind=kind, parent=parent, input=input, output=output,
                    paragraph_ids=tuple(_plain(i, Integral, int) for i in paragraph_ids),
                    scores=({name: _plain(v, Real, float) for name, v in scores.items()}
                            if isinstance(scores, Mapping) else tuple(_plain(v, Real, float) for v in scores)),
                    llm_calls=llm_calls, extra=dict(extra or {}))
        self._steps.append(step)
        return step

    def add_citation(self, step: int, paragraph_ids: Sequence[int], *, claim: str | None = None,
                     score: float | None = None) -> Citation:
        """Append a citation of ``paragraph_ids`` by the recorded step ``step``.

        Raises:
            TraceError: ``step`` is not a recorded step, or a field is malformed.
        """
        citation = Citation(step=step, paragraph_ids=tuple(paragraph_ids), claim=claim, score=score)
        if step > len(self._steps):
            raise TraceError(f"a citation names step {step}, but only {len(self._steps)} steps are recorded")
        self._citations.append(citation)
        return citation

    def to_json(self) -> dict[str, Any]:
        """The trace as plain JSON values (``schema_version``, ``steps``, ``citations``).

        The values a method put in ``input``, ``output`` and ``extra`` are passed through
        as they are; the runner checks the whole result's trace is JSON.
        """
        return {"schema_version": SCHEMA_VERSION, "steps": [step.to_json() for step in self._steps],
                "citations": [citation.to_json() for citation in self._citations]}

    @classmethod
    def from_json(cls, data: Any) -> Trace:
        """The trace of :meth:`to_json`'s output (after a trip through JSON).

        Raises:
            TraceError: ``data`` is not a trace of this schema version, or a step or
                citation is malformed (the message says which).
        """
        if not isinstance(data, Mapping) or data.get("schema_version") != SCHEMA_VERSION:
            found = data.get("schema_version") if isinstance(data, Mapping) else type(data).__name__
            raise TraceError(f"expected a typed trace with schema_version {SCHEMA_VERSION}, got {found!r}")
        trace = cls()
        for index, step in enumerate(_objects(data, "steps", _STEP_FIELDS)):
            if step["id"] != index + 1:
                raise TraceError(f"steps[{index}] has id {step['id']!r}; ids must be 1, 2, ... in order")
            trace.add_step(step["kind"], parent=step["parent"], input=step["input"], output=step["output"],
                           paragraph_ids=_ids(step["paragraph_ids"], f"steps[{index}]"),
                           scores=_scores(step["scores"], f"steps[{index}]"), llm_calls=step["llm_calls"],
                           extra=step["extra"])
        for index, citation in enumerate(_objects(data, "citations", _CITATION_FIELDS)):
            trace.add_citation(citation["step"], _ids(citation["paragraph_ids"], f"citations[{index}]"),
                               claim=citation["claim"], score=citation["score"])
        return trace

    @classmethod
    def from_result_trace(cls, stored: Mapping[str, Any]) -> Trace:
        """The typed trace inside a stored result's trace (empty when the method recorded none).

        Raises:
            TraceError: the typed trace there is malformed.
        """
        return cls.from_json(stored[TRACE_KEY]) if TRACE_KEY in stored else cls()


def _plain(value: Any, kind: type, plain: type) -> Any:
    """``value`` as a plain ``int`` or ``float`` when it is a number of ``kind`` (a NumPy one), else as it is."""
    if isinstance(value, kind) and not isinstance(value, bool) and type(value) is not plain:
        return plain(value)
    return value


def _objects(data: Mapping[str, Any], key: str, fields: tuple[str, ...]) -> list[Mapping[str, Any]]:
    items = data.get(key)
    if not isinstance(items, list):
        raise TraceError(f"a typed trace's {key!r} must be a list, got {items!r}")
    for index, item in enumerate(items):
        missing = [name for name in fields if not isinstance(item, Mapping) or name not in item]
        if missing:
            raise TraceError(f"{key}[{index}] lacks the fields {', '.join(missing)}")
    return items


def _ids(value: Any, where: str) -> list[int]:
    if not isinstance(value, list):
        raise TraceError(f"{where}: paragraph_ids must be a list, got {value!r}")
    return value


def _scores(value: Any, where: str) -> list[float] | Mapping[str, float]:
    if not isinstance(value, (list, Mapping)):
        raise TraceError(f"{where}: scores must be a list or an object, got {value!r}")
    return value
