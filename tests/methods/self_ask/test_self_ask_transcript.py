"""Reading the Self-Ask markers off model output: written ones come back, any text is read without
an exception (model output is untrusted)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hopkit.methods.self_ask.transcript import final_answer, follow_up, without_trailing_follow_up

pytestmark = pytest.mark.unit

LINE = st.text(alphabet="abcdefghij XYZ?.,'-0123456789", min_size=1, max_size=40).map(str.strip).filter(bool)
ANY = st.text(max_size=300)


@settings(max_examples=300)
@given(ANY)
def test_any_text_is_read_without_an_exception(text: str) -> None:
    asked, answer, rest = follow_up(text), final_answer(text), without_trailing_follow_up(text)
    assert asked is None or (asked and "\n" not in asked)
    assert answer is None or isinstance(answer, str)
    assert len(rest) <= len(text)


@settings(max_examples=200)
@given(st.lists(LINE, max_size=3), LINE, st.sampled_from(["Follow up:", "follow up:", "Follow-up:", "FOLLOW UP :"]))
def test_a_written_follow_up_on_the_last_line_comes_back(before: list[str], question: str, marker: str) -> None:
    text = "\n".join([" Yes.", *before, f"{marker} {question}"]) + "\n"
    assert follow_up(text) == question
    assert without_trailing_follow_up(text) == "\n".join([" Yes.", *before])


@settings(max_examples=200)
@given(st.lists(LINE, max_size=3), LINE)
def test_a_follow_up_not_on_the_last_line_is_not_a_pending_one(before: list[str], after: str) -> None:
    text = "\n".join(["Follow up: who?", *before, f"So the final answer is: {after}"])
    assert follow_up(text) is None


@settings(max_examples=200)
@given(st.text(alphabet="abcdefghij XYZ0123456789", min_size=1, max_size=30).map(str.strip).filter(bool))
def test_the_last_final_answer_line_is_the_answer(answer: str) -> None:
    text = f"Follow up: who?\nIntermediate answer: x.\nSo the final answer is: nobody\nSo the final answer is: {answer}."
    assert final_answer(text) == answer


@pytest.mark.parametrize("text", ["Follow up:", "Follow up:   ", "Intermediate answer: yes", "", "\n\n"])
def test_an_empty_or_missing_follow_up_is_none(text: str) -> None:
    assert follow_up(text) is None


def test_no_final_answer_line_is_none_and_an_empty_one_is_blank() -> None:
    assert final_answer("The answer is Tarsk.") is None
    assert final_answer("So the final answer is:") == ""
