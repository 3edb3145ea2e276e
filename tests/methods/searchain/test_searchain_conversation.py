"""SearChain's growing prompt and the reading of its chains."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hopkit.errors import LLMError, ParseError
from hopkit.llm.fake import ScriptedLLM
from hopkit.methods.searchain.conversation import Conversation, read_chain

pytestmark = pytest.mark.unit


def test_the_conversation_keeps_the_first_prompt_and_the_latest_turn_when_it_overflows() -> None:
    conversation = Conversation(ScriptedLLM([], context_length=20), "one two three")
    conversation.append(" four five six")
    assert conversation.prompt(reserve=5) == "one two three four five six"
    conversation.append(" seven eight nine ten")
    assert conversation.prompt(reserve=11) == "one two three seven eight nine ten"
    assert conversation.prompt(reserve=15) == "one two three"
    with pytest.raises(LLMError, match="more than the context"):
        conversation.prompt(reserve=18)


def test_a_generation_must_say_more_than_the_first_query_tag() -> None:
    assert read_chain("[Query 1]:", " Who?\n[Answer 1]: Ada").nodes[0].answer == "Ada"
    assert len(read_chain("[Query 1]:", " Who?\n[Unsolved Query]: Who?").nodes) == 2
    assert len(read_chain("", "[Unsolved Query]: Who?").nodes) == 1  # a later round may be just that
    with pytest.raises(ParseError, match="nothing after the first query"):
        read_chain("[Query 1]:", " So the answer is: Tarsk.")


@given(st.text(max_size=200))
def test_any_generation_reads_or_raises_a_parse_error_keeping_it(text: str) -> None:
    try:
        read_chain("[Query 1]:", text)
    except ParseError as error:
        assert error.raw == "[Query 1]:" + text
