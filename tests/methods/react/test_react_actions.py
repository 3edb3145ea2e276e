"""Reading ReAct's thoughts and actions off model output: written ones come back, any text is read
without an exception."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hopkit.methods.react.actions import Action, parse_action, split_thought_action
from hopkit.parsing.answers import first_line

pytestmark = pytest.mark.unit

WORDS = st.text(alphabet="abcdefghij XYZ,.'()0123456789-", min_size=1, max_size=40).map(
    lambda s: " ".join(s.split())).filter(bool)


@settings(max_examples=300)
@given(st.text(max_size=200), st.integers(1, 9))
def test_any_text_is_read_without_an_exception(text: str, number: int) -> None:
    split = split_thought_action(text, number)
    assert split is None or all(isinstance(part, str) for part in split)
    action = parse_action(text)
    assert action is None or action.verb in ("search", "lookup", "finish")
    assert "\n" not in first_line(text)


@settings(max_examples=200)
@given(st.sampled_from(["Search", "search", "LOOKUP", "Finish"]), WORDS.filter(lambda s: "]" not in s))
def test_a_written_action_comes_back(verb: str, argument: str) -> None:
    assert parse_action(f"{verb}[{argument}]") == Action(verb.lower(), argument)  # type: ignore[arg-type]
    assert parse_action(f" {verb} [ {argument} ] .") == Action(verb.lower(), argument)  # type: ignore[arg-type]


@settings(max_examples=200)
@given(st.sampled_from(["Search", "Finish"]), WORDS.filter(lambda s: "]" not in s),
       st.text(max_size=30).filter(lambda s: "]" not in s and "\n" not in s))
def test_text_after_the_closing_bracket_is_dropped(verb: str, argument: str, after: str) -> None:
    assert parse_action(f"{verb}[{argument}]{after}") == Action(verb.lower(), argument)  # type: ignore[arg-type]


def test_the_action_as_written_keeps_its_brackets_and_drops_what_followed() -> None:
    assert parse_action("Finish[Bright Leaf] ```json").written == "Finish[Bright Leaf]"  # type: ignore[union-attr]
    assert parse_action(" Search[a [b]] ").written == "Search[a [b]]"  # type: ignore[union-attr]
    assert parse_action("Search[a [b]] ").argument == "a [b]"  # type: ignore[union-attr]


@settings(max_examples=200)
@given(WORDS, WORDS, st.integers(1, 9))
def test_the_thought_and_the_action_line_are_split_at_action_n(thought: str, argument: str, number: int) -> None:
    generation = f" {thought}\nAction {number}: Search[{argument}]\nObservation {number}: made up"
    assert split_thought_action(generation, number) == (thought, f"Search[{argument}]")
    assert split_thought_action(generation, number + 1) is None


@pytest.mark.parametrize("text", ["Search", "Search[x", "Ask[x]", "Finish", "", "Finish x"])
def test_anything_but_the_three_actions_is_none(text: str) -> None:
    assert parse_action(text) is None


def test_an_empty_finish_is_an_empty_answer() -> None:
    assert parse_action("Finish[]") == Action("finish", "")
