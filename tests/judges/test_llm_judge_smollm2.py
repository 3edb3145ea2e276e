"""The LLM relevance judge on the real SmolLM2-135M-Instruct GGUF (llama.cpp).

SmolLM2-135M is too weak to rank even an obvious pair reliably (it gave the octopus
paragraph the higher log-odds), so this checks the plumbing on the real model: each
score is log P(" yes") - log P(" no") of the judge's own prompt as llama.cpp scores it,
per text, finite and repeatable, and the call is timed under the judge's component.
Ranking quality is the benchmark's business (with Qwen2.5-Coder-1.5B)."""

from __future__ import annotations

from typing import Iterator

import pytest

import math

from hopkit.judges import LLMRelevanceJudge
from hopkit.judges.llm_prompts import RELEVANCE_PROMPT
from hopkit.llm.llama_cpp import LlamaCppLLM
from hopkit.usage import track_usage

pytestmark = pytest.mark.integration

QUESTION = "What is the capital city of France?"
RELEVANT = "Paris is the capital and most populous city of France, on the river Seine."
IRRELEVANT = "The common octopus has eight arms and three hearts, and lives in shallow seas."


@pytest.fixture(scope="module")
def llm() -> Iterator[LlamaCppLLM]:
    model = LlamaCppLLM.load(n_ctx=2048, n_threads=1)
    yield model
    model.close()


def test_relevance_is_the_yes_no_log_odds_llama_cpp_gives_each_text(llm: LlamaCppLLM) -> None:
    judge = LLMRelevanceJudge(llm)
    with track_usage() as usage:
        scores = judge.relevance(QUESTION, [RELEVANT, IRRELEVANT])
    assert usage.calls("judge:relevance") == 1
    expected = []
    for text in (RELEVANT, IRRELEVANT):
        direct = llm.score_continuations(RELEVANCE_PROMPT.format(query=QUESTION, text=text), [" yes", " no"])
        expected.append(direct[0] - direct[1])
    assert scores == pytest.approx(expected, abs=0.05)
    assert all(math.isfinite(s) for s in scores) and scores[0] != scores[1]
    # in the other order each prompt is evaluated after a different cached prefix, which
    # changes llama.cpp's float rounding (about 0.01 here), not the score
    assert judge.relevance(QUESTION, [IRRELEVANT, RELEVANT]) == pytest.approx(scores[::-1], abs=0.05)
