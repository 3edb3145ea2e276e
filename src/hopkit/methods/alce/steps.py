"""ALCE's steps as the MIGRES paper runs its readers, each naming the one before::

    retrieve (BM25) -> retrieve (rerank) -> [reason per document: sentences, summary or snippet]
        -> [reason per RERANK sample] -> read
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from hopkit.traces.payload import Payload, at
from hopkit.traces.summary import Summary

Condensing = Literal["sentences", "summary", "extraction", "full_text"]


@dataclass(frozen=True, kw_only=True)
class ALCERetrieve(Payload):
    """The BM25 retrieval with the question (the step's ``paragraph_ids`` and ``scores``; ``k`` asked)."""

    kind = "retrieve"
    stage: Literal["bm25"] = "bm25"
    query: str = at("input")
    k: int


@dataclass(frozen=True, kw_only=True)
class ALCERerank(Payload):
    """The hits ordered by the reranker (the step's ``paragraph_ids``, best first, and ``scores``: each
    one's relevance to the question)."""

    kind = "retrieve"
    stage: Literal["rerank"] = "rerank"
    query: str = at("input")


@dataclass(frozen=True, kw_only=True)
class ALCECondense(Payload):
    """One document made shorter (the step's ``paragraph_ids``: it): its sentences kept (VANILLA-s), or
    the model's summary (SUMM) or extraction (SNIPPET); ``kept`` false when it said "irrelevant" (or, for
    VANILLA-s, no sentence was left). ``full_text``: the document read whole because no summary or
    extraction was kept."""

    kind = "reason"
    how: Condensing
    text: str = at("output")
    kept: bool = True


@dataclass(frozen=True, kw_only=True)
class ALCESample(Payload):
    """One of RERANK's sampled answers (the step's ``paragraph_ids``: the documents it read): which sample,
    the answer with its marks, and its citation recall over the documents."""

    kind = "reason"
    sample: int
    generation: str = at("output")
    citation_recall: float


@dataclass(frozen=True, kw_only=True)
class ALCERead(Payload):
    """The answer from the documents (the step's ``paragraph_ids``, numbered from 1 in the prompt): the
    question, the answer without its citation marks, the ``generation`` with them."""

    kind = "read"
    question: str = at("input")
    answer: str = at("output")
    generation: str


#: ALCE's payloads, in the order a step is tried against them.
PAYLOADS: tuple[type[Payload], ...] = (ALCERetrieve, ALCERerank, ALCECondense, ALCESample, ALCERead)


@dataclass(frozen=True, kw_only=True)
class ALCESummary(Summary):
    """The reader's summary of one question.

    Attributes:
        reader: which ALCE reader (vanilla, vanilla-s, summ, snippet, rerank).
        generation: the answer with its citation marks.
        documents: the texts the answer read, in their prompt order.
        condensing_calls: model calls spent on summaries or extractions.
        retrieved_titles: the titles of the documents the answer read (the result's ``chunk_ids``).
        citation_recalls: RERANK's citation recall of each sampled answer, in sample order.
    """

    reader: str
    generation: str
    documents: tuple[str, ...] = ()
    condensing_calls: int = 0
    retrieved_titles: tuple[str, ...] = ()
    citation_recalls: tuple[float, ...] = ()
