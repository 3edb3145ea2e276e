"""A search agent's steps, each naming the one before::

    reason (turn 1) -> retrieve -> reason (turn 2) -> ... -> extract | read

A ``reason`` step is one generation and the action read from it; a ``retrieve`` step the search it
asked for. The answer is the one the model wrote between its answer tags (``extract``), or, when it
wrote none, the one it completes after the loop writes the opening answer tag (``read``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from hopkit.traces.payload import Payload, at
from hopkit.traces.summary import Summary

# Why the loop wrote the answer tag itself: the turns ran out, a generation asked for nothing (with a
# template that ends the question then), or the next generation would not fit the context.
ForcedReason = Literal["turn_limit", "no_action", "context_full"]


@dataclass(frozen=True, kw_only=True)
class SearchAgentTurn(Payload):
    """One generation (``turn``, from 1) as the model wrote it, and what it asked for: ``action``
    (``search``, ``answer`` or ``none``) and ``query`` (a search's query); ``searching`` is False on
    the last turn of a template whose searches are not run then; ``prompt_cut``: the prompt was cut to
    the template's ``max_prompt_tokens`` before it."""

    kind = "reason"
    generation: str = at("output")
    action: str
    query: str | None = None
    turn: int
    searching: bool = True
    prompt_cut: bool = False


@dataclass(frozen=True, kw_only=True)
class SearchAgentRetrieve(Payload):
    """A search: the query as searched, the hits (the step's ``paragraph_ids`` and ``scores``), the ids
    among them not retrieved before (``added``), ``k`` asked for; ``cut``: the model's query was
    longer than the limit and was cut to it; ``documents_cut``: the documents block was cut to the
    template's ``max_documents_tokens``."""

    kind = "retrieve"
    query: str = at("input")
    added: tuple[int, ...] = at("output")
    turn: int
    k: int
    cut: bool = False
    documents_cut: bool = False


@dataclass(frozen=True, kw_only=True)
class SearchAgentAnswer(Payload):
    """The answer the model wrote between its answer tags, at ``turn``."""

    kind = "extract"
    answer: str = at("output")
    turn: int


@dataclass(frozen=True, kw_only=True)
class SearchAgentRead(Payload):
    """The answer the model completed after the loop wrote the opening answer tag (``reason``: why)."""

    kind = "read"
    question: str = at("input")
    answer: str = at("output")
    generation: str
    reason: ForcedReason


#: The search agent's payloads, one per kind.
PAYLOADS: tuple[type[Payload], ...] = (SearchAgentTurn, SearchAgentRetrieve, SearchAgentAnswer, SearchAgentRead)


@dataclass(frozen=True, kw_only=True)
class SearchAgentSummary(Summary):
    """A search agent's summary of one question.

    Attributes:
        template: the family whose template it ran with.
        queries: the searches run, in order.
        turns: generations made (the forced answer's included).
        transcript: the model's turn as it stood at the end: its generations and the documents.
        forced: why the loop wrote the answer tag itself, None when the model answered.
        retrieved_titles: the titles of the paragraphs retrieved (the result's ``chunk_ids``).
    """

    template: str
    queries: tuple[str, ...]
    turns: int
    transcript: str
    forced: ForcedReason | None = None
    retrieved_titles: tuple[str, ...] = ()
