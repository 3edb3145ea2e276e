"""The MIGRES modules' calls: what they do with a response that max_tokens cut short."""

from __future__ import annotations

import pytest

from hopkit.llm.fake import ScriptedLLM
from hopkit.methods.migres.modules import MIGRESModules

pytestmark = pytest.mark.unit

# Queries that are not questions: only the cut tells the unfinished one (a question would lack its "?")
LIST = "1. Find who directed Levity. 2. Find where Ed Solomon was born. 3. Find the name of the city in which he"


def queries_with(max_tokens: int) -> list[str] | None:
    modules = MIGRESModules(ScriptedLLM([LIST]), None, yes_no=False, max_tokens=max_tokens)
    return modules.queries("Where was the director of Levity born?", [], [], "the director's birthplace").value


def test_the_unfinished_last_query_of_a_response_cut_short_is_dropped() -> None:
    # 16 words: cut inside the third query ("3. Find the name")
    assert queries_with(max_tokens=16) == ["Find who directed Levity.", "Find where Ed Solomon was born."]
    assert queries_with(max_tokens=300) == ["Find who directed Levity.", "Find where Ed Solomon was born.",
                                            "Find the name of the city in which he"]
