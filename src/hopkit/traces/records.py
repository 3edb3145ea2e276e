"""The two records of a typed trace: a step the method took, and a citation it made.

A step is one thing a method did for a question: retrieve, reason, read, extract,
verify... Steps form a tree through ``parent`` (IRCoT's is a chain: each step follows
the one before it). A citation says which paragraphs support what a step claimed.
What ``input`` and ``output`` hold for each kind is documented in ``docs/traces.md``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Protocol, Self, TypeVar

from hopkit.errors import TraceError

#: The kinds hopkit's methods record; a method may use another short name.
KINDS: tuple[str, ...] = ("scope", "retrieve", "reason", "read", "extract", "verify")

Scores = tuple[float, ...] | Mapping[str, float]

__all__ = ["KINDS", "Citation", "Scores", "Step", "StepPayload", "TraceError"]


class StepPayload(Protocol):
    """What :meth:`Step.payload` reads a step as: a class that reads itself from a step, as every
    :class:`~hopkit.traces.payload.Payload` does (payloads build on these records, not the other way)."""

    @classmethod
    def from_step(cls, step: Step) -> Self:
        """The payload ``step`` holds; raises :class:`TraceError` when it holds none of this kind."""
        ...


P = TypeVar("P", bound=StepPayload)


@dataclass(frozen=True)
class Step:
    """One step of a method on one question.

    Attributes:
        id: the step's number within its question, from 1, in recording order.
        kind: what the step did, a short name ("retrieve", "reason", "read", ...).
        parent: the id of the step this one follows from, or None for a root.
        input: what the step worked on (a query, a question...); any JSON value.
        output: what it produced (a sentence, an answer...); any JSON value.
        paragraph_ids: the paragraphs it returned or read, in its order.
        scores: one score per paragraph id (same order), or named scores of the
            step (``{"confidence": 4}``); empty when it has none.
        llm_calls: model calls made during the step, as the usage block counts them.
        extra: any other JSON fields of the step (raw generation, options...).

    What ``input``, ``output`` and ``extra`` hold is typed per kind by the method's payload
    classes (:class:`~hopkit.traces.payload.Payload`), read with :meth:`payload`.

    Raises:
        TraceError: a field has the wrong type, the parent is not an earlier step,
            or a list of scores does not match the paragraph ids.
    """

    id: int
    kind: str
    parent: int | None = None
    input: Any = None
    output: Any = None
    paragraph_ids: tuple[int, ...] = ()
    scores: Scores = ()
    llm_calls: int = 0
    extra: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        where = f"step {self.id!r} ({self.kind!r})"
        if not _is_int(self.id) or self.id < 1:
            raise TraceError(f"{where}: the id must be an integer >= 1")
        if not isinstance(self.kind, str) or not self.kind.strip():
            raise TraceError(f"{where}: the kind must be a non-empty string such as {', '.join(KINDS)}")
        if self.parent is not None and (not _is_int(self.parent) or not 1 <= self.parent < self.id):
            raise TraceError(f"{where}: the parent must be the id of an earlier step or None, got {self.parent!r}")
        _check_ids(self.paragraph_ids, f"{where}: paragraph_ids")
        _check_scores(self.scores, len(self.paragraph_ids), where)
        if not _is_int(self.llm_calls) or self.llm_calls < 0:
            raise TraceError(f"{where}: llm_calls must be an integer >= 0, got {self.llm_calls!r}")
        _check_keys(self.extra, f"{where}: extra")

    def payload(self, kind: type[P]) -> P:
        """The step's ``input``, ``output`` and ``extra`` read as the typed payload ``kind``
        (``step.payload(IRCoTRetrieve).kept``; the payloads are declared in each method's package).

        Raises:
            TraceError: the step is of another kind, or a field is missing or has the wrong type.
        """
        return kind.from_step(self)

    def to_json(self) -> dict[str, Any]:
        """The step as a JSON object (every field present; tuples become lists)."""
        return {"id": self.id, "parent": self.parent, "kind": self.kind, "input": self.input,
                "output": self.output, "paragraph_ids": list(self.paragraph_ids),
                "scores": dict(self.scores) if isinstance(self.scores, Mapping) else list(self.scores),
                "llm_calls": self.llm_calls, "extra": dict(self.extra)}


@dataclass(frozen=True)
class Citation:
    """Paragraphs a step cites for what it claimed.

    Attributes:
        step: the id of the step that made the claim.
        paragraph_ids: the paragraphs cited, in the method's order.
        claim: the claim itself, when the step made several (None: its whole output).
        score: how strongly the paragraphs support it (an NLI or reranker score), if known.

    Raises:
        TraceError: a field has the wrong type.
    """

    step: int
    paragraph_ids: tuple[int, ...]
    claim: str | None = None
    score: float | None = None

    def __post_init__(self) -> None:
        where = f"citation of step {self.step!r}"
        if not _is_int(self.step) or self.step < 1:
            raise TraceError(f"{where}: the step must be the id of a recorded step")
        _check_ids(self.paragraph_ids, f"{where}: paragraph_ids")
        if self.claim is not None and not isinstance(self.claim, str):
            raise TraceError(f"{where}: the claim must be a string or None, got {self.claim!r}")
        if self.score is not None and not _is_number(self.score):
            raise TraceError(f"{where}: the score must be a number or None, got {self.score!r}")

    def to_json(self) -> dict[str, Any]:
        """The citation as a JSON object (every field present)."""
        return {"step": self.step, "claim": self.claim, "paragraph_ids": list(self.paragraph_ids),
                "score": self.score}


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _check_ids(ids: Any, where: str) -> None:
    if not isinstance(ids, tuple) or not all(_is_int(i) for i in ids):
        raise TraceError(f"{where} must be a tuple of integer paragraph ids, got {ids!r}")


def _check_keys(mapping: Any, where: str) -> None:
    if not isinstance(mapping, Mapping) or not all(isinstance(key, str) for key in mapping):
        raise TraceError(f"{where} must be a mapping with string keys, got {mapping!r}")


def _check_scores(scores: Any, paragraphs: int, where: str) -> None:
    if isinstance(scores, Mapping):
        _check_keys(scores, f"{where}: scores")
        values = list(scores.values())
    elif isinstance(scores, tuple):
        if scores and len(scores) != paragraphs:
            raise TraceError(f"{where}: {len(scores)} scores for {paragraphs} paragraph ids; give one score "
                             "per paragraph id, or named scores as a mapping")
        values = list(scores)
    else:
        raise TraceError(f"{where}: scores must be a tuple (one per paragraph id) or a mapping of named "
                         f"scores, got {scores!r}")
    if not all(_is_number(value) for value in values):
        raise TraceError(f"{where}: every score must be a number, got {scores!r}")
