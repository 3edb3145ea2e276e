"""The ``token_scoring`` capability: each token of a given continuation with its log-probability (what
FLARE checks a look-ahead sentence with), through the scripted model, the wrappers and llama.cpp."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from hopkit.errors import LLMError
from hopkit.llm import SCORING, TOKEN_SCORING, TokenScores, TokenScoringLLM, require, supports
from hopkit.llm.cache import CachedLLM
from hopkit.llm.fake import ScriptedLLM
from hopkit.llm.llama_cpp import LlamaCppLLM
from hopkit.llm.meter import MeteredLLM
from hopkit.llm.openai_compat import OpenAICompatibleLLM
from hopkit.usage import track_usage


def words(prompt: str, continuation: str) -> list[tuple[str, float]]:
    """A scripted model that gives each word its place's probability: 0.9, 0.5, 0.1, ..."""
    pieces = [(" " if i or continuation.startswith(" ") else "") + w for i, w in enumerate(continuation.split())]
    return [(piece, math.log(max(0.9 - 0.4 * i, 0.05))) for i, piece in enumerate(pieces)]


@pytest.mark.unit
def test_token_scores_hold_one_logprob_per_token_and_sum_to_the_continuation_s() -> None:
    scores = TokenScores(tokens=(" Par", "is"), logprobs=(math.log(0.5), math.log(0.8)), prompt_tokens=3, seconds=0.0)
    assert scores.probabilities == pytest.approx((0.5, 0.8)) and scores.total == pytest.approx(math.log(0.4))
    with pytest.raises(LLMError, match="one log-probability per token"):
        TokenScores(tokens=(" Par",), logprobs=(), prompt_tokens=3, seconds=0.0)


@pytest.mark.unit
def test_the_capability_is_declared_apart_from_scoring_and_servers_lack_it() -> None:
    model = ScriptedLLM(["x"], token_scores=words)
    assert supports(model, TOKEN_SCORING) and not supports(model, SCORING) and isinstance(model, TokenScoringLLM)
    assert TOKEN_SCORING in LlamaCppLLM.capabilities
    server = OpenAICompatibleLLM("http://127.0.0.1:1", "m")
    with pytest.raises(LLMError, match="does not support 'token_scoring' \\(score_tokens\\) \\(needed by FLARE\\)"):
        require(server, TOKEN_SCORING, purpose="FLARE")
    with pytest.raises(LLMError, match="token_scoring"):
        ScriptedLLM(["x"]).score_tokens("p", " x")


@pytest.mark.unit
def test_the_meter_counts_a_token_scoring_and_the_cache_passes_it_through(tmp_path: Path) -> None:
    inner = ScriptedLLM(["x"], token_scores=words)
    metered = MeteredLLM(CachedLLM(inner, tmp_path / "cache.sqlite"))
    assert supports(metered, TOKEN_SCORING)
    with track_usage() as usage:
        first = metered.score_tokens("Q: where? A:", " in Tarsk now")
        second = metered.score_tokens("Q: where? A:", " in Tarsk now")
    assert first.tokens == (" in", " Tarsk", " now") and first.probabilities == pytest.approx((0.9, 0.5, 0.1))
    assert second == first and len(inner.scored) == 2  # not cached: asked twice
    assert usage.llm_calls == 2 and usage.prompt_tokens == 2 * 3


@pytest.mark.unit
def test_scripted_tokens_must_join_to_the_continuation() -> None:
    with pytest.raises(LLMError, match="do not join"):
        ScriptedLLM(["x"], token_scores=lambda prompt, text: [(" other", -1.0)]).score_tokens("p", " x")


@pytest.mark.integration
def test_llama_cpp_scores_each_token_of_a_continuation_as_its_sum_scores_the_whole(smollm2: LlamaCppLLM) -> None:
    prompt = "The capital of France is"
    scores = smollm2.score_tokens(prompt, " Paris, a city on the Seine.")
    assert "".join(scores.tokens) == " Paris, a city on the Seine." and len(scores.tokens) >= 5
    assert all(value <= 0.0 for value in scores.logprobs)
    whole = smollm2.score_continuations(prompt, [" Paris, a city on the Seine."])
    assert scores.total == pytest.approx(whole[0], abs=1e-6)
    assert scores.probabilities[0] > 0.1  # " Paris" after this prompt is likely even for a 135M model
    completion = smollm2.complete(prompt, max_tokens=4)  # the context was cut back to the prompt
    assert completion.text
    with pytest.raises(LLMError, match="non-empty continuation"):
        smollm2.score_tokens(prompt, "")


@pytest.mark.unit
def test_one_number_scripts_every_word_as_a_token_as_a_config_file_can() -> None:
    scores = ScriptedLLM(["x"], token_scores=-0.5).score_tokens("p", " in Tarsk, now")
    assert scores.tokens == (" in", " Tarsk,", " now") and scores.logprobs == (-0.5, -0.5, -0.5)
