"""ITER-RETGEN's steps: a retrieval and a generation per iteration, each naming the one before.

    retrieve (t=1) -> read (t=1) -> retrieve (t=2) -> read (t=2) ...

The last ``read`` step holds the answer the method returns.
"""

from __future__ import annotations

from dataclasses import dataclass

from hopkit.traces.payload import Payload, at
from hopkit.traces.summary import Summary


@dataclass(frozen=True, kw_only=True)
class IterRetGenRetrieve(Payload):
    """Iteration ``iteration``'s retrieval (a): the query (the question, then the question and the
    previous generation); ``k`` the hits asked for (the step's ``paragraph_ids`` and ``scores``)."""

    kind = "retrieve"
    query: str = at("input")
    iteration: int
    k: int


@dataclass(frozen=True, kw_only=True)
class IterRetGenRead(Payload):
    """Iteration ``iteration``'s generation (b) over the paragraphs just retrieved (the step's
    ``paragraph_ids``): the question, the answer read off the chain of thought, the ``generation``."""

    kind = "read"
    question: str = at("input")
    answer: str = at("output")
    generation: str
    iteration: int


#: ITER-RETGEN's payloads, one per kind.
PAYLOADS: tuple[type[Payload], ...] = (IterRetGenRetrieve, IterRetGenRead)


@dataclass(frozen=True, kw_only=True)
class IterRetGenSummary(Summary):
    """ITER-RETGEN's summary of one question.

    Attributes:
        iterations: the iterations run (T).
        queries: the retrieval query of each iteration.
        generations: the generation of each iteration; the last one's answer is returned.
        answers: the answer read off each iteration's generation.
        retrieved_titles: the titles of the last iteration's paragraphs (those the answer read).
    """

    iterations: int
    queries: tuple[str, ...]
    generations: tuple[str, ...]
    answers: tuple[str, ...]
    retrieved_titles: tuple[str, ...] = ()
