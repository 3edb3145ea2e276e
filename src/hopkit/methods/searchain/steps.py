"""SearChain's steps: the typed payload of each kind, and the recorders that store them.

The steps form the Tree-of-Reasoning::

    reason (round 1) -> retrieve -> verify          one retrieve and verify per node processed
                     -> verify (duplicate | not_reached)
    reason (round 2, parent: the verify step of the node fed back in round 1) -> ...
    read (tracing, parent: the last round's reason step) | extract

Each kind's payload is a class below (:data:`PAYLOADS`); ``docs/traces.md`` lists their JSON
fields (a test checks it against these classes). Read a stored step with
:func:`searchain_payload`. The question's summary, stored beside the steps, is
:class:`SearChainSummary`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal, Mapping, Sequence

from hopkit.judges.protocol import SpanAnswer
from hopkit.methods.searchain.feedback import Verdict
from hopkit.methods.searchain.tracing import Mark, Statement
from hopkit.parsing.chain import Chain, ChainNode
from hopkit.records import ScoredParagraph
from hopkit.traces import Step, cite
from hopkit.traces.payload import Payload, Record, at, payload_of, record
from hopkit.traces.summary import Summary

StopReason = Literal["finished", "max_rounds", "unreadable"]


@dataclass(frozen=True)
class Node(Record):
    """A node of a chain as parsed (:class:`~hopkit.parsing.chain.ChainNode`)."""

    index: int
    query: str
    answer: str | None
    unsolved: bool
    complete: bool


@dataclass(frozen=True)
class ParsedChain(Record):
    """A round's chain as parsed: its nodes and its final content."""

    nodes: tuple[Node, ...]
    final_content: str | None


@dataclass(frozen=True, kw_only=True)
class SearChainRound(Payload):
    """A round's chain (Algorithm 1's ``ChainGenerate``): the feedback that started it (None in
    round 1); the chain, None when it could not be read twice (then ``generations``, every
    attempt's text, and the ``error``); the raw ``generation`` with the first query's tag the
    prompt ended in; the ``attempts``."""

    kind = "reason"
    feedback: str | None = at("input")
    chain: ParsedChain | None = at("output")
    round: int
    generation: str
    attempts: int
    generations: tuple[str, ...] | None = at("extra", "generations", default=None, omit_none=True)
    error: str | None = at("extra", "error", default=None, omit_none=True)


@dataclass(frozen=True, kw_only=True)
class SearChainRetrieve(Payload):
    """The retrieval for one node (``Retrieval(q_i)``): its query, its ``round`` and position
    ``node`` (from 1), ``k``; the passages are the step's ``paragraph_ids`` and ``scores``."""

    kind = "retrieve"
    query: str = at("input")
    round: int
    node: int
    k: int


@dataclass(frozen=True)
class NodeClaim(Record):
    """The model's node as IR checks it (``unsolved``: the model gave no answer)."""

    query: str
    answer: str | None
    unsolved: bool


@dataclass(frozen=True, kw_only=True)
class SearChainVerify(Payload):
    """What IR decided on a node: the ``verdict``, the reader's answer and finite confidence on
    the passage read (the step's ``paragraph_ids``), the answer the node carries on the correct
    path; the ``feedback`` sent back, or None; for a duplicate, the verify step it repeats
    (``duplicate_of``) and the ``similarity``."""

    kind = "verify"
    claim: NodeClaim = at("input")
    verdict: Verdict = at("output", "verdict")
    reader_answer: str | None = at("output", "reader_answer", default=None)
    confidence: float | None = at("output", "confidence", default=None)
    path_answer: str | None = at("output", "path_answer", default=None)
    round: int
    node: int
    feedback: str | None = None
    duplicate_of: int | None = at("extra", "duplicate_of", default=None, omit_none=True)
    similarity: float | None = at("extra", "similarity", default=None, omit_none=True)


@dataclass(frozen=True)
class CitedMark(Record):
    """A mark ``[number]`` of the final content, the passage it resolves to, whether it is valid."""

    number: int
    paragraph_id: int | None
    valid: bool


@dataclass(frozen=True, kw_only=True)
class SearChainTracing(Payload):
    """The tracing call: the question and the answer; the raw ``generation``, the
    ``final_content``, ``traced`` (the final content followed by its passages), the correct
    path's ``pairs``, the ``marks`` and the ``traceability`` scores of the summary."""

    kind = "read"
    question: str = at("input")
    answer: str = at("output")
    generation: str
    final_content: str
    traced: str
    pairs: tuple[tuple[str, str], ...] = ()
    marks: tuple[CitedMark, ...] = ()
    traceability: Mapping[str, float | None] = at("extra", "traceability", default_factory=dict)


@dataclass(frozen=True, kw_only=True)
class SearChainExtract(Payload):
    """No tracing call was made: the answer taken from the text of ``source`` ("final_content":
    the chain had no node; "generation": no chain could be read)."""

    kind = "extract"
    text: str = at("input")
    answer: str = at("output")
    source: str
    question: str


#: SearChain's payloads, one per kind.
PAYLOADS: tuple[type[Payload], ...] = (SearChainRound, SearChainRetrieve, SearChainVerify, SearChainTracing,
                                       SearChainExtract)

SearChainPayload = SearChainRound | SearChainRetrieve | SearChainVerify | SearChainTracing | SearChainExtract


@dataclass(frozen=True, kw_only=True)
class SearChainSummary(Summary):
    """SearChain's summary of one question (``GenerationResult.metadata``).

    Attributes:
        rounds: chains written (an unreadable last one included).
        stop_reason: "finished" (IR fed nothing back), "max_rounds" or "unreadable".
        knowledge_sources: Table 2, over processed nodes: ``llm``, ``corrected``, ``completed``,
            ``unsolved``.
        verdicts: how many nodes of every branch got each verdict.
        words_in: words sent to the model (Table 6).
        words_out: words it wrote (Table 6).
        final_content: the final content the answer was taken from.
        traceability: ``marks``, ``valid_marks``, ``skc``; with ``citation_check`` also
            ``citation_recall`` and ``citation_precision``.
    """

    rounds: int
    stop_reason: StopReason
    knowledge_sources: Mapping[str, int]
    verdicts: Mapping[str, int]
    words_in: int
    words_out: int
    final_content: str
    traceability: Mapping[str, float | None]


def searchain_payload(step: Step) -> SearChainPayload | None:
    """The payload of one of SearChain's steps (None for a kind SearChain does not record).

    Raises:
        TraceError: the step does not read as its kind's payload.
    """
    return payload_of(step, PAYLOADS)  # type: ignore[return-value]


def parsed_chain(chain: Chain) -> ParsedChain:
    """A parsed chain as its trace records it."""
    return ParsedChain(tuple(Node(n.index, n.query, n.answer, n.unsolved, n.complete) for n in chain.nodes),
                       chain.final_content)


def record_chain(round_: int, feedback: str | None, generation: str, chain: Chain, attempts: int,
                 parent: int | None) -> int | None:
    """A round's chain (Algorithm 1's ``ChainGenerate``)."""
    return record(SearChainRound(feedback=feedback, chain=parsed_chain(chain), round=round_, generation=generation,
                                 attempts=attempts), parent=parent)


def record_unreadable_chain(round_: int, feedback: str | None, generations: Sequence[str], error: str,
                            parent: int | None) -> int | None:
    """A round whose chain could not be read, after asking once more: a failed step keeping the raw text."""
    return record(SearChainRound(feedback=feedback, chain=None, round=round_, generation=generations[-1],
                                 attempts=len(generations), generations=tuple(generations), error=error),
                  parent=parent)


def record_retrieval(round_: int, position: int, query: str, hits: Sequence[ScoredParagraph], k: int,
                     parent: int | None) -> int | None:
    """The retrieval for one node (``Retrieval(q_i)``)."""
    return record(SearChainRetrieve(query=query, round=round_, node=position, k=k), parent=parent, hits=hits)


def _finite(value: float | None) -> float | None:
    return value if value is not None and math.isfinite(value) else None


def _claim(node: ChainNode) -> NodeClaim:
    return NodeClaim(node.query, node.answer, node.answer is None)


def record_verdict(round_: int, node: ChainNode, position: int, verdict: Verdict, reading: SpanAnswer | None,
                   paragraph_id: int | None, path_answer: str, feedback: str | None,
                   parent: int | None) -> int | None:
    """The reader's answer on a node's passage and what IR decided (``Reader(q_i, d_i)`` and the rules)."""
    confidence = _finite(reading.confidence) if reading is not None else None
    payload = SearChainVerify(claim=_claim(node), verdict=verdict,
                              reader_answer=reading.text if reading is not None else None, confidence=confidence,
                              path_answer=path_answer, round=round_, node=position, feedback=feedback)
    return record(payload, parent=parent, paragraph_ids=[paragraph_id] if paragraph_id is not None else [],
                  scores={"confidence": confidence} if confidence is not None else {})


def record_skipped(round_: int, node: ChainNode, position: int, verdict: Verdict, parent: int | None, *,
                   duplicate_of: int | None = None, similarity: float | None = None) -> int | None:
    """A node IR did not process: its query repeats a processed one, or it came after the node fed back."""
    duplicate = verdict == "duplicate"
    return record(SearChainVerify(claim=_claim(node), verdict=verdict, round=round_, node=position,
                                  duplicate_of=duplicate_of if duplicate else None,
                                  similarity=similarity if duplicate else None), parent=parent)


def record_tracing(question: str, answer: str, generation: str, final_content: str, traced: str,
                   pairs: Sequence[tuple[str, str]], marks: Sequence[Mark], found: Sequence[Statement],
                   scores: Mapping[str, float | int | None], parent: int | None) -> int | None:
    """The tracing call, and a citation for each marked sentence of the final content."""
    cited = list(dict.fromkeys(m.paragraph_id for m in marks if m.paragraph_id is not None))
    payload = SearChainTracing(question=question, answer=answer, generation=generation, final_content=final_content,
                               traced=traced, pairs=tuple((query, answer_) for query, answer_ in pairs),
                               marks=tuple(CitedMark(m.number, m.paragraph_id, m.valid) for m in marks),
                               traceability=dict(scores))
    step = record(payload, parent=parent, paragraph_ids=cited)
    if step is not None:
        for statement in found:
            ids = list(dict.fromkeys(m.paragraph_id for m in statement.marks if m.paragraph_id is not None))
            if ids:
                cite(step, ids, claim=statement.text)
    return step


def record_extraction(question: str, answer: str, source: str, text: str, parent: int | None) -> int | None:
    """The answer taken from text without a tracing call (``source``: "final_content" or "generation")."""
    return record(SearChainExtract(text=text, answer=answer, source=source, question=question), parent=parent)
