"""hopkit campaign reparse-migres: which stored MIGRES questions the current Query Generator parser would change."""

from __future__ import annotations

from types import ModuleType
from typing import Any, Callable

import pytest

from hopkit.methods.migres.steps import record_knowledge, record_queries
from hopkit.traces import collect_trace, stored_trace

pytestmark = pytest.mark.unit

QUESTION = "Where was the director of Levity born?"


def trace(*rounds: tuple[str, list[str]]) -> dict[str, Any]:
    """A stored MIGRES trace with one Query Generator step per (response, queries asked) round, after a retrieval."""
    with collect_trace() as recorded:
        step = record_knowledge(QUESTION, "what the model knows", None)
        for response, asked in rounds:
            step = record_queries("missing", asked, (), (), (response,), step)
    return stored_trace("q1", {}, recorded)


@pytest.fixture(scope="module")
def reparse(load_benchmark: Callable[[str], ModuleType]) -> ModuleType:
    return load_benchmark("migres_reparse")


def test_a_round_the_current_parser_reads_alike_is_not_affected(reparse: ModuleType) -> None:
    response = "1. Who directed Levity?\n2. Where was he born?\n3. When?\n4. Why?"
    assert not reparse.asked_differently(QUESTION, trace((response, ["Who directed Levity?", "Where was he born?",
                                                                      "When?"])), 3)


def test_an_unfinished_query_the_run_asked_is_found(reparse: ModuleType) -> None:
    # the old parser asked the cut-off fragment; the current one drops it: nothing new to ask
    response = "1. Who directed Levity? 2. Where was the director of Lev"
    first = (response, ["Who directed Levity?", "Where was the director of Lev"])
    assert reparse.asked_differently(QUESTION, trace(first), 3)


def test_queries_asked_in_an_earlier_round_are_remembered(reparse: ModuleType) -> None:
    again = ("1. Who directed Levity?\n2. Where was Ed Solomon born?", ["Where was Ed Solomon born?"])
    first = ("Who directed Levity?", ["Who directed Levity?"])
    assert not reparse.asked_differently(QUESTION, trace(first, again), 3)
    explained = ("Where was Ed Solomon born? To answer it we need his birthplace.",
                 ["Where was Ed Solomon born? To answer it we need his birthplace."])
    assert reparse.asked_differently(QUESTION, trace(first, explained), 3)
