"""FLARE's steps, each naming the one before::

    retrieve (the question) -> reason (look-ahead) [-> retrieve (masked sentence) -> reason (regenerated)]
        -> reason ... -> extract

A ``reason`` step is one look-ahead sentence with the lowest probability among its tokens; one
below θ triggers a retrieval with the sentence (its tokens below β masked) and the sentence is
generated again over the new paragraphs (``regenerated``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from hopkit.traces.payload import Payload, at
from hopkit.traces.summary import Summary

RetrievalReason = Literal["question", "uncertain_sentence"]


@dataclass(frozen=True, kw_only=True)
class FLARERetrieve(Payload):
    """A retrieval (the step's ``paragraph_ids`` and ``scores``): with the question first, then with
    an uncertain look-ahead sentence whose tokens below β were ``masked``; ``k`` the hits asked for."""

    kind = "retrieve"
    query: str = at("input")
    reason: RetrievalReason
    masked: tuple[str, ...] = ()
    k: int


@dataclass(frozen=True, kw_only=True)
class FLARELookAhead(Payload):
    """One look-ahead sentence (the step's ``paragraph_ids``: the paragraphs in its prompt), the lowest
    probability among its tokens, whether that was below θ (``uncertain``), and whether it is the
    sentence generated again after a retrieval (``regenerated``: then it is kept unchecked)."""

    kind = "reason"
    sentence: str = at("output")
    lowest_probability: float | None = None
    uncertain: bool = False
    regenerated: bool = False
    generation: str


@dataclass(frozen=True, kw_only=True)
class FLAREExtract(Payload):
    """The answer read off the sentences kept (after "answer is")."""

    kind = "extract"
    cot: str = at("input")
    answer: str = at("output")


#: FLARE's payloads, one per kind.
PAYLOADS: tuple[type[Payload], ...] = (FLARERetrieve, FLARELookAhead, FLAREExtract)


@dataclass(frozen=True, kw_only=True)
class FLARESummary(Summary):
    """FLARE's summary of one question.

    Attributes:
        sentences: the sentences kept, in order (the answer's chain of thought).
        retrievals: retrievals made, the question's included.
        queries: their queries, in order.
        retrieved_titles: the titles of every paragraph retrieved (the result's ``chunk_ids``).
    """

    sentences: tuple[str, ...]
    retrievals: int
    queries: tuple[str, ...]
    retrieved_titles: tuple[str, ...] = ()
