"""DRAGIN's steps, each naming the one before::

    reason (a generation, RIND finds no need) -> reason -> ... -> extract (the authors' answer stage)
    reason (RIND fires on a sentence) -> retrieve (QFS's query) -> reason (continued over the documents) -> ...

A ``reason`` step is one generation: either checked by RIND (``trigger`` set when a sentence needs
retrieval: its words, their scores and the words that passed the threshold) or the continuation
written over the retrieved documents, of which the first sentence is kept.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from hopkit.traces.payload import Payload, Record, at
from hopkit.traces.summary import Summary

# Why the loop ended: the text says the answer, it passed the length budget, it stopped growing, or the
# generations ran out.
StopReason = Literal["answered", "length", "no_progress", "generation_limit"]


@dataclass(frozen=True, kw_only=True)
class DRAGINTrigger(Record):
    """The sentence RIND found in need of retrieval: its words, each word's score, which passed θ."""

    sentence: str
    words: tuple[str, ...]
    scores: tuple[float, ...]
    hits: tuple[bool, ...]


@dataclass(frozen=True, kw_only=True)
class DRAGINGenerate(Payload):
    """One generation and what came of it: ``kept`` (the text added to the output), ``trigger`` (RIND's
    finding; None: the whole generation is kept), ``after_retrieval`` (written over retrieved documents:
    one sentence of it is kept, unchecked: the first, or with ``repeats: skip`` the first not yet held)."""

    kind = "reason"
    generation: str = at("output")
    kept: str
    trigger: DRAGINTrigger | None = None
    after_retrieval: bool = False


@dataclass(frozen=True, kw_only=True)
class DRAGINRetrieve(Payload):
    """A retrieval with QFS's query (the hits are the step's ``paragraph_ids`` and ``scores``); ``k`` asked
    for; ``fallback`` when QFS found no content word and the triggering sentence was searched instead."""

    kind = "retrieve"
    query: str = at("input")
    k: int
    fallback: bool = False


@dataclass(frozen=True, kw_only=True)
class DRAGINExtract(Payload):
    """The answer stage: the loop's ``text`` and why the loop ended, the text the answer is ``read`` from (cut
    before a run-on; with "So the answer is" and the generated words when ``regenerated``), the answer."""

    kind = "extract"
    text: str = at("input")
    answer: str = at("output")
    stopped: StopReason
    read: str = ""
    regenerated: bool = False


#: DRAGIN's payloads, one per kind.
PAYLOADS: tuple[type[Payload], ...] = (DRAGINGenerate, DRAGINRetrieve, DRAGINExtract)


@dataclass(frozen=True, kw_only=True)
class DRAGINSummary(Summary):
    """DRAGIN's summary of one question.

    Attributes:
        text: the output as it stood at the end.
        retrievals: how many times RIND fired (each one retrieval).
        queries: QFS's queries, in order.
        stopped: why the loop ended.
        retrieved_titles: the titles of the paragraphs retrieved (the result's ``chunk_ids``).
    """

    text: str
    retrievals: int
    queries: tuple[str, ...]
    stopped: StopReason
    retrieved_titles: tuple[str, ...] = ()
