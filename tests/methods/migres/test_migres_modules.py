"""The MIGRES modules' calls: what they do with a response that max_tokens cut short."""

from __future__ import annotations

import pytest

from hopkit.llm.fake import ScriptedLLM
from hopkit.methods.migres_modules import MIGRESModules

pytestmark = pytest.mark.unit

LIST = "1. Who directed Levity? 2. Where was Ed Solomon born? 3. What is the name of the city in which he"


def queries_with(max_tokens: int) -> list[str] | None:
    modules = MIGRESModules(ScriptedLLM([LIST]), None, yes_no=False, max_tokens=max_tokens)
    return modules.queries("Where was the director of Levity born?", [], [], "the director's birthplace").value


def test_the_unfinished_last_query_of_a_response_cut_short_is_dropped() -> None:
    # 14 words: cut inside the third query ("3. What is the")
    assert queries_with(max_tokens=14) == ["Who directed Levity?", "Where was Ed Solomon born?"]
    assert queries_with(max_tokens=300) == ["Who directed Levity?", "Where was Ed Solomon born?",
                                            "What is the name of the city in which he"]
