"""ReAct's steps, each naming the one before: per turn a ``reason`` step (the thought and the
action), then the action's own step: a ``retrieve`` for Search and Lookup, an ``extract`` for
Finish (or for the empty answer the loop gives when the turns run out)::

    reason -> retrieve (search) -> reason -> retrieve (lookup) -> ... -> reason -> extract
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from hopkit.traces.payload import Payload, at
from hopkit.traces.summary import Summary


@dataclass(frozen=True, kw_only=True)
class ReActThink(Payload):
    """Turn ``turn``'s generation: the thought, the action as written, and whether the model was
    asked for the action alone after a generation without one (``reprompted``)."""

    kind = "reason"
    thought: str = at("output")
    action: str
    turn: int
    reprompted: bool = False


@dataclass(frozen=True, kw_only=True)
class ReActSearch(Payload):
    """``Search[query]``: the hits (the step's ``paragraph_ids`` and ``scores``) and the observation
    shown to the model."""

    kind = "retrieve"
    action: Literal["search"] = "search"
    query: str = at("input")
    observation: str = at("output")
    turn: int


@dataclass(frozen=True, kw_only=True)
class ReActLookup(Payload):
    """``Lookup[keyword]`` in the last search's paragraphs: the observation (the step's
    ``paragraph_ids``: the paragraph its sentence is from)."""

    kind = "retrieve"
    action: Literal["lookup"] = "lookup"
    keyword: str = at("input")
    observation: str = at("output")
    turn: int


@dataclass(frozen=True, kw_only=True)
class ReActInvalid(Payload):
    """An action that is none of Search, Lookup, Finish; the model is told "Invalid action"."""

    kind = "reason"
    invalid: Literal[True] = True
    action: str = at("input")
    observation: str = at("output")
    turn: int


@dataclass(frozen=True, kw_only=True)
class ReActFinish(Payload):
    """The answer: the argument of ``Finish[...]``, or "" when the turns ran out (``out_of_turns``)."""

    kind = "extract"
    action: str = at("input")
    answer: str = at("output")
    out_of_turns: bool = False


#: ReAct's payloads, in the order a step is tried against them.
PAYLOADS: tuple[type[Payload], ...] = (ReActInvalid, ReActThink, ReActSearch, ReActLookup, ReActFinish)


@dataclass(frozen=True, kw_only=True)
class ReActSummary(Summary):
    """ReAct's summary of one question.

    Attributes:
        turns: Thought/Action turns taken.
        trajectory: the question's trajectory as the prompt holds it (from "Question:" on).
        searches: the queries of its Search actions.
        retrieved_titles: the titles of the paragraphs its searches returned (the result's ``chunk_ids``).
        finished: whether the model ended with Finish[...] (False: the turns ran out).
    """

    turns: int
    trajectory: str
    searches: tuple[str, ...] = ()
    retrieved_titles: tuple[str, ...] = ()
    finished: bool = True
