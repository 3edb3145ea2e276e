"""Self-Ask's steps, each naming the one before::

    retrieve (the question) -> reason -> retrieve (follow-up 1) -> reason -> ... -> extract | read

A ``reason`` step is one generation: the model says whether it needs a follow-up and asks it,
or answers the last one and goes on. The answer is read off the transcript (``extract``), or,
when the model gave none, asked for once more after "So the final answer is:" (``read``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from hopkit.traces.payload import Payload, at
from hopkit.traces.summary import Summary

FinalReason = Literal["no_final_answer", "follow_up_limit"]


@dataclass(frozen=True, kw_only=True)
class SelfAskRetrieve(Payload):
    """A retrieval: the query (the question, then each follow-up), the hits (the step's
    ``paragraph_ids`` and ``scores``), the ids among them not retrieved before (``added``);
    ``follow_up`` is the follow-up's number (0: the question itself), ``k`` the hits asked for."""

    kind = "retrieve"
    query: str = at("input")
    added: tuple[int, ...] = at("output")
    follow_up: int
    k: int


@dataclass(frozen=True, kw_only=True)
class SelfAskAsk(Payload):
    """One generation of the model (the step's ``paragraph_ids`` the paragraphs in its prompt):
    ``generation`` as written, the follow-up it ends with (``follow_up``, None when it asks
    none) and ``round``, from 1."""

    kind = "reason"
    generation: str = at("output")
    follow_up: str | None = None
    round: int


@dataclass(frozen=True, kw_only=True)
class SelfAskExtract(Payload):
    """The answer read off the transcript's "So the final answer is:" line."""

    kind = "extract"
    transcript: str = at("input")
    answer: str = at("output")


@dataclass(frozen=True, kw_only=True)
class SelfAskRead(Payload):
    """The answer asked for after "So the final answer is:", which the loop wrote because the model
    gave none (``reason``: it stopped without one, or the follow-ups reached their limit)."""

    kind = "read"
    question: str = at("input")
    answer: str = at("output")
    generation: str
    reason: FinalReason


#: Self-Ask's payloads, one per kind.
PAYLOADS: tuple[type[Payload], ...] = (SelfAskRetrieve, SelfAskAsk, SelfAskExtract, SelfAskRead)


@dataclass(frozen=True, kw_only=True)
class SelfAskSummary(Summary):
    """Self-Ask's summary of one question.

    Attributes:
        follow_ups: the follow-up questions asked, in order.
        transcript: the model's whole answer, from "Are follow up questions needed here:" on.
        retrieved_titles: the titles of the paragraphs retrieved (the result's ``chunk_ids``).
        forced_final: why the loop wrote "So the final answer is:" itself, None when the model did.
    """

    follow_ups: tuple[str, ...]
    transcript: str
    retrieved_titles: tuple[str, ...] = ()
    forced_final: FinalReason | None = None
