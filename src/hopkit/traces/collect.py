"""Collecting a question's trace on the side, the way ``hopkit.usage`` collects its cost.

The runner opens a :func:`collect_trace` block around each question; a method records
its steps with :func:`record_step` and its citations with :func:`cite`, which add to
the block open in the current thread or task and do nothing outside one (a method
called directly, as in the documented example, records nothing)::

    first = record_step("retrieve", input=question, paragraph_ids=ids, scores=scores)
    record_step("read", parent=first, input=question, output=answer, paragraph_ids=ids)

A method whose steps form a chain passes ``parent=PREVIOUS``: each step then follows the
one recorded just before it, and the method need not carry step ids around.

A step's ``llm_calls`` are the model calls the usage block counted since the previous
step was recorded (or since the block opened): record each step as soon as it is done.
A block opened with ``prompts=True`` also keeps the prompts of those calls: the metering
wrapper notes each completion's prompt (:func:`note_prompt`), and the next step recorded
carries them as ``extra["prompts"]`` (the exact text, or a chat call's messages).
"""

from __future__ import annotations

import contextvars
from contextlib import contextmanager
from enum import Enum
from typing import Any, Final, Iterator, Literal, Mapping, Sequence

from hopkit.traces.records import TraceError
from hopkit.traces.trace import Trace
from hopkit.usage import Usage, current_usage


class _Collecting:
    """An open block: its trace, the usage block's model calls when the last step ended, and
    (when prompts are kept) the prompts noted since."""

    def __init__(self, trace: Trace, prompts: bool) -> None:
        self.trace = trace
        self.usage, self.calls = _calls_now()
        self.prompts: list[Any] | None = [] if prompts else None

    def calls_since_last_step(self) -> int:
        usage, calls = _calls_now()
        # a usage block opened after the last mark started from zero
        since = calls - self.calls if usage is self.usage else calls
        self.usage, self.calls = usage, calls
        return max(0, since)


class _Parent(Enum):
    PREVIOUS = "previous"


#: ``record_step(parent=PREVIOUS)``: the step follows the one recorded just before it.
PREVIOUS: Final = _Parent.PREVIOUS


_current: contextvars.ContextVar[_Collecting | None] = contextvars.ContextVar("hopkit_trace", default=None)
_recorded_by: contextvars.ContextVar[str | None] = contextvars.ContextVar("hopkit_trace_method", default=None)


def _calls_now() -> tuple[Usage | None, int]:
    usage = current_usage()
    return usage, (usage.llm_calls if usage is not None else 0)


@contextmanager
def collect_trace(*, prompts: bool = False) -> Iterator[Trace]:
    """Open a trace block; steps and citations recorded inside it go to the yielded :class:`Trace`
    (with ``prompts``, each step also gets the prompts of the model calls made for it)."""
    collecting = _Collecting(Trace(), prompts)
    token = _current.set(collecting)
    try:
        yield collecting.trace
    finally:
        _current.reset(token)


@contextmanager
def recorded_by(method: str) -> Iterator[None]:
    """Mark the steps recorded inside as another method's (``extra["method"]``): a method that runs
    another as one of its parts (Adaptive-RAG's strategies) keeps that part's steps, and the
    registry and the report read them with that method's payload types and template."""
    token = _recorded_by.set(method)
    try:
        yield
    finally:
        _recorded_by.reset(token)


def current_trace() -> Trace | None:
    """The trace open in this thread or task, if any."""
    collecting = _current.get()
    return collecting.trace if collecting is not None else None


def note_prompt(prompt: str | Sequence[Mapping[str, str]]) -> None:
    """Note a model call's prompt (text, or chat messages) for the next step recorded, when the
    open block keeps prompts; otherwise (or outside a block) do nothing."""
    collecting = _current.get()
    if collecting is not None and collecting.prompts is not None:
        collecting.prompts.append(prompt if isinstance(prompt, str) else [dict(message) for message in prompt])


def record_step(kind: str, *, parent: int | Literal[_Parent.PREVIOUS] | None = None, input: Any = None,
                output: Any = None, paragraph_ids: Sequence[int] = (), scores: Sequence[float] | Mapping[str, float] = (),
                llm_calls: int | None = None, extra: Mapping[str, Any] | None = None) -> int | None:
    """Record a step in the open trace.

    Args:
        kind: what the step did ("retrieve", "reason", "read", "extract", "verify", ...).
        parent: the id of the step it follows from (as returned by an earlier call), or
            :data:`PREVIOUS` for the step recorded just before it (None for the first).
        input: what it worked on (JSON value).
        output: what it produced (JSON value).
        paragraph_ids: the paragraphs it returned or read.
        scores: one per paragraph id, or named scores of the step.
        llm_calls: its model calls; None counts them from the usage block (those made
            since the previous step was recorded).
        extra: other JSON fields.

    Returns:
        The new step's id, to name as a later step's parent; None outside a
        :func:`collect_trace` block, where nothing is recorded.

    Raises:
        TraceError: a field is malformed (see :class:`~hopkit.traces.Step`).
    """
    collecting = _current.get()
    if collecting is None:
        return None
    counted = collecting.calls_since_last_step()
    method = _recorded_by.get()
    if method is not None:
        extra = {**(extra or {}), "method": method}
    if collecting.prompts:
        extra = {**(extra or {}), "prompts": collecting.prompts}
        collecting.prompts = []
    if parent is PREVIOUS:
        steps = collecting.trace.steps
        parent = steps[-1].id if steps else None
    step = collecting.trace.add_step(kind, parent=parent, input=input, output=output, paragraph_ids=paragraph_ids,
                                     scores=scores, llm_calls=counted if llm_calls is None else llm_calls,
                                     extra=extra)
    return step.id


def cite(step: int | None, paragraph_ids: Sequence[int], *, claim: str | None = None,
         score: float | None = None) -> None:
    """Record that step ``step`` cites ``paragraph_ids`` (for ``claim``, with ``score``).

    A no-op outside a :func:`collect_trace` block (there ``step`` is None, as
    :func:`record_step` returned it).

    Raises:
        TraceError: ``step`` is not a recorded step, or a field is malformed.
    """
    collecting = _current.get()
    if collecting is None:
        return
    if step is None:
        raise TraceError("cite() needs the id of a recorded step; record_step() returned None because it "
                         "ran outside the collect_trace() block this citation is in")
    collecting.trace.add_citation(step, paragraph_ids, claim=claim, score=score)
