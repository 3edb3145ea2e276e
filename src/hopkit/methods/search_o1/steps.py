"""Search-o1's steps, each naming the one before::

    reason -> retrieve -> read (Reason-in-Documents) -> reason -> ... -> extract

A ``reason`` step is one generation of the reasoning; a ``retrieve`` step the search its query asked
for; a ``read`` step the Reason-in-Documents call that condensed the documents into what goes back
into the reasoning. ``extract`` is the final answer: the model's last ``\\boxed{...}``, or the one it
completed after the loop wrote ``\\boxed{`` itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from hopkit.traces.payload import Payload, at
from hopkit.traces.summary import Summary

# What the loop did with a generation's query: searched it, refused it (the search limit, or a query
# already searched), or there was none (the reasoning ended).
QueryOutcome = Literal["searched", "limit", "repeated", "none"]
# Why the loop wrote "\boxed{" itself: the reasoning ended, or the turns ran out, or the context is full,
# without a boxed answer.
ForcedReason = Literal["no_boxed_answer", "turn_limit", "context_full"]


@dataclass(frozen=True, kw_only=True)
class SearchO1Reason(Payload):
    """One generation of the reasoning (``turn``, from 1), the query it ended with (None: none) and
    what the loop did with it (``outcome``)."""

    kind = "reason"
    generation: str = at("output")
    query: str | None = None
    outcome: QueryOutcome
    turn: int


@dataclass(frozen=True, kw_only=True)
class SearchO1Retrieve(Payload):
    """A search: its query, the hits (the step's ``paragraph_ids`` and ``scores``) and those not
    retrieved before (``added``); ``k`` asked for; ``search``: its number, from 1."""

    kind = "retrieve"
    query: str = at("input")
    added: tuple[int, ...] = at("output")
    search: int
    k: int


@dataclass(frozen=True, kw_only=True)
class SearchO1Condense(Payload):
    """Reason-in-Documents: the reasoning so far as it was shown, the model's analysis of the
    documents, and the information taken from it (``information``, put between the result markers)."""

    kind = "read"
    reasoning: str = at("input")
    information: str = at("output")
    analysis: str
    query: str


@dataclass(frozen=True, kw_only=True)
class SearchO1Answer(Payload):
    """The final answer: the last ``\\boxed{...}`` of the reasoning, or, when ``forced`` says why there
    was none, what the model wrote after the loop's ``\\boxed{`` (``generation``)."""

    kind = "extract"
    answer: str = at("output")
    forced: ForcedReason | None = None
    generation: str | None = None


#: Search-o1's payloads, one per kind.
PAYLOADS: tuple[type[Payload], ...] = (SearchO1Reason, SearchO1Retrieve, SearchO1Condense, SearchO1Answer)


@dataclass(frozen=True, kw_only=True)
class SearchO1Summary(Summary):
    """Search-o1's summary of one question.

    Attributes:
        queries: the searches run, in order.
        reasoning: the model's reasoning as it stood at the end, the search results in it.
        forced: why the loop wrote ``\\boxed{`` itself, None when the model boxed its answer.
        retrieved_titles: the titles of the paragraphs retrieved (the result's ``chunk_ids``).
    """

    queries: tuple[str, ...]
    reasoning: str
    forced: ForcedReason | None = None
    retrieved_titles: tuple[str, ...] = ()
