"""IRCoT's steps: the typed payload of each kind, and the recorders that store them.

Each step names the one before it as its parent, so a question's steps form a chain::

    scope (IIRC only) -> retrieve (a) -> reason (b, c) -> retrieve (d) -> reason ... -> read (e)

Each kind's payload is a class below (:data:`PAYLOADS`); ``docs/traces.md`` lists their JSON
fields (a test checks it against these classes). Read a stored step with
``step.payload(IRCoTRetrieve)``, or :func:`ircot_payload` for whichever kind it is. The
question's summary, stored beside the steps, is :class:`IRCoTSummary`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Sequence

from hopkit.methods.ircot.iirc import TitleScope
from hopkit.methods.paragraph_collection import Admission
from hopkit.records import Paragraph, ScoredParagraph
from hopkit.traces import PREVIOUS, Step
from hopkit.traces.payload import Payload, Record, at, optional, payload_of, record
from hopkit.traces.summary import Summary

Skip = Literal["empty_query", "budget_full"]
StopReason = Literal["answer", "empty", "max_steps"]


@dataclass(frozen=True, kw_only=True)
class IRCoTScope(Payload):
    """IIRC's title step (i): the question; the corpus titles retrieval is restricted to
    (``output``); the titles the model wrote (``generated``) and its raw ``generation``."""

    kind = "scope"
    question: str = at("input")
    titles: tuple[str, ...] = at("output")
    generated: tuple[str, ...] = ()
    generation: str = ""


@dataclass(frozen=True)
class Drop(Record):
    """A paragraph the collection did not keep, and why (``duplicate``, ``near_duplicate``,
    ``too_long``, ``budget_full``: :class:`~hopkit.methods.paragraph_collection.Admission`)."""

    paragraph_id: int
    reason: str


@dataclass(frozen=True, kw_only=True)
class IRCoTRetrieve(Payload):
    """A retrieval (a) or (d): the query; what the collection kept and dropped of the hits (the
    step's ``paragraph_ids`` and ``scores``); ``skipped`` says why a retrieval was not made
    (then nothing was returned); ``k`` the hits asked for."""

    kind = "retrieve"
    query: str = at("input")
    kept: tuple[int, ...] = at("output", "kept")
    dropped: tuple[Drop, ...] = at("output", "dropped", default=())
    skipped: Skip | None = at("output", "skipped", default=None)
    k: int


@dataclass(frozen=True, kw_only=True)
class IRCoTReason(Payload):
    """A reasoning step (b, c): the first sentence kept (``""`` when the model wrote nothing) of
    its ``generation``; the ``demonstrations`` kept in the prompt; ``stop_reason``, None while
    the loop goes on. The step's ``paragraph_ids`` are the paragraphs in the prompt."""

    kind = "reason"
    sentence: str = at("output")
    generation: str
    demonstrations: int
    stop_reason: StopReason | None = None


@dataclass(frozen=True, kw_only=True)
class IRCoTRead(Payload):
    """The reading step (e) with a reader: the question; the answer; the reader's ``generation``,
    the ``reader`` ("direct", "cot") and its ``context`` ("own", "reasoning")."""

    kind = "read"
    question: str = at("input")
    answer: str = at("output")
    generation: str | None = None
    reader: str
    context: str


@dataclass(frozen=True, kw_only=True)
class IRCoTExtract(Payload):
    """The reading step (e) without a reader (``reader: none``): the answer taken from the CoT."""

    kind = "extract"
    cot: str = at("input")
    answer: str = at("output")
    reader: str = "none"


#: IRCoT's payloads, one per kind.
PAYLOADS: tuple[type[Payload], ...] = (IRCoTScope, IRCoTRetrieve, IRCoTReason, IRCoTRead, IRCoTExtract)

IRCoTPayload = IRCoTScope | IRCoTRetrieve | IRCoTReason | IRCoTRead | IRCoTExtract


@dataclass(frozen=True, kw_only=True)
class IRCoTSummary(Summary):
    """IRCoT's summary of one question (``GenerationResult.metadata``).

    Attributes:
        steps: reasoning steps taken.
        cot_sentences: the CoT, one kept sentence per step.
        chunk_ids: the collected paragraph ids, in collection order (the result's ``chunk_ids``).
        queries: the queries retrieved with, in order.
        stop_reason: why the loop ended.
        reader_generation: the reader's raw generation (None without a reader).
        retrieved_titles: the collected paragraphs' titles.
        demonstrations: the demonstrations kept in the prompt at each step.
        iirc_generated_titles: IIRC only: the titles the model wrote (else absent).
        iirc_titles: IIRC only: the corpus titles retrieval was restricted to (else absent).
    """

    steps: int
    cot_sentences: tuple[str, ...]
    chunk_ids: tuple[int, ...]
    queries: tuple[str, ...]
    stop_reason: StopReason
    reader_generation: str | None = None
    retrieved_titles: tuple[str, ...] = ()
    demonstrations: tuple[int, ...] = ()
    iirc_generated_titles: tuple[str, ...] | None = optional()
    iirc_titles: tuple[str, ...] | None = optional()


def ircot_payload(step: Step) -> IRCoTPayload | None:
    """The payload of one of IRCoT's steps (None for a kind IRCoT does not record).

    Raises:
        TraceError: the step does not read as its kind's payload.
    """
    return payload_of(step, PAYLOADS)  # type: ignore[return-value]


def record_scope(question: str, scope: TitleScope) -> None:
    """IIRC's title step (i)."""
    record(IRCoTScope(question=question, titles=scope.titles, generated=scope.generated,
                      generation=scope.generation), parent=PREVIOUS)


def record_retrieval(query: str, hits: Sequence[ScoredParagraph], admissions: Sequence[Admission], k: int) -> None:
    """A retrieval (a) or (d): what the retriever returned and what the collection did with each."""
    fates = list(zip(hits, admissions))
    record(IRCoTRetrieve(query=query, kept=tuple(hit.id for hit, admission in fates if admission is Admission.ADDED),
                         dropped=tuple(Drop(hit.id, admission.value) for hit, admission in fates
                                       if admission is not Admission.ADDED), k=k), parent=PREVIOUS, hits=hits)


def record_skipped_retrieval(query: str, reason: Skip, k: int) -> None:
    """A retrieval not made: the query was empty ("empty_query") or the budget full ("budget_full")."""
    record(IRCoTRetrieve(query=query, kept=(), skipped=reason, k=k), parent=PREVIOUS)


def record_reasoning(shown: Sequence[Paragraph], sentence: str, generation: str, demonstrations: int,
                     stop_reason: StopReason | None) -> None:
    """A reasoning step (b, c): the sentence kept from the model's line."""
    record(IRCoTReason(sentence=sentence, generation=generation, demonstrations=demonstrations,
                       stop_reason=stop_reason), parent=PREVIOUS, paragraph_ids=[p.id for p in shown])


def record_reading(question: str, cot: Sequence[str], shown: Sequence[Paragraph], answer: str,
                   generation: str | None, reader: str, context: str) -> None:
    """The reading step (e): the reader's answer, or the one extracted from the CoT without a reader."""
    if reader == "none":
        record(IRCoTExtract(cot=" ".join(cot), answer=answer, reader=reader), parent=PREVIOUS)
        return
    record(IRCoTRead(question=question, answer=answer, generation=generation, reader=reader, context=context),
           parent=PREVIOUS, paragraph_ids=[p.id for p in shown])
