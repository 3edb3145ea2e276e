"""The LLM relevance judge on the real SmolLM2-135M-Instruct GGUF (llama.cpp): an obvious case."""

from __future__ import annotations

from typing import Iterator

import pytest

from hopkit.judges import LLMRelevanceJudge
from hopkit.llm.llama_cpp import LlamaCppLLM

pytestmark = pytest.mark.integration

QUESTION = "What is the capital city of France?"
RELEVANT = "Paris is the capital and most populous city of France, on the river Seine."
IRRELEVANT = "The common octopus has eight arms and three hearts, and lives in shallow seas."


@pytest.fixture(scope="module")
def llm() -> Iterator[LlamaCppLLM]:
    model = LlamaCppLLM.load(n_ctx=2048, n_threads=1)
    yield model
    model.close()


def test_a_relevant_paragraph_outscores_an_irrelevant_one(llm: LlamaCppLLM) -> None:
    judge = LLMRelevanceJudge(llm)
    relevant, irrelevant = judge.relevance(QUESTION, [RELEVANT, IRRELEVANT])
    assert relevant > irrelevant, (relevant, irrelevant)
