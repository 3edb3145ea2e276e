"""The transformers backend with the real SmolLM2 GGUF (the file llama.cpp loads, de-quantized by
transformers): completions that honour stop sequences and budgets, DRAGIN's entropies and last-layer
attention, token scores that agree with llama.cpp's on the same text, and the ``attention`` capability
passed through the wrappers."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Iterator

import numpy as np
import pytest

from hopkit.errors import ContextFullError, LLMError
from hopkit.llm import ATTENTION, AttendingLLM, require, supports
from hopkit.llm.cache import CachedLLM
from hopkit.llm.llama_cpp import LlamaCppLLM
from hopkit.llm.meter import MeteredLLM
from hopkit.llm.transformers_backend import TransformersLLM
from hopkit.usage import track_usage

pytestmark = [pytest.mark.integration, pytest.mark.slow]

PROMPT = ("Question: Jeremy Theobald and Christopher Nolan share what profession?\nAnswer: Jeremy Theobald is an actor "
          "and producer. Christopher Nolan is a director, producer, and screenwriter. So the answer is producer.\n"
          "Question: In what country was Lost Gravity manufactured?\nAnswer:")


@pytest.fixture(scope="module")
def model() -> Iterator[TransformersLLM]:
    yield TransformersLLM.load(n_ctx=1024, n_threads=1)


def test_it_declares_attention_and_the_methods_it_needs(model: TransformersLLM) -> None:
    assert supports(model, ATTENTION) and isinstance(model, AttendingLLM)
    require(model, ATTENTION, purpose="a test")
    assert model.model_id.endswith("@transformers") and model.context_length == 1024


def test_a_completion_stops_before_its_stop_sequence_and_within_its_budget(model: TransformersLLM) -> None:
    whole = model.complete(PROMPT, max_tokens=24)
    assert whole.completion_tokens <= 24 and whole.prompt_tokens == model.count_tokens(PROMPT)
    cut = model.complete(PROMPT, stop=["\n"], max_tokens=24)
    assert "\n" not in cut.text and whole.text.startswith(cut.text)
    assert model.complete(PROMPT, max_tokens=24).text == whole.text  # greedy: the same text again


def test_an_attended_completion_has_an_entropy_and_an_attention_row_per_token(model: TransformersLLM) -> None:
    attended = model.complete_attended(PROMPT, stop=["\n"], max_tokens=24)
    assert attended.completion.text == model.complete(PROMPT, stop=["\n"], max_tokens=24).text
    assert "".join(attended.tokens).strip() == attended.completion.text.strip() and attended.tokens
    assert all(value >= 0 and math.isfinite(value) for value in attended.entropies)
    weights = attended.attention.weights
    n = len(attended.tokens)
    assert weights.shape[1:] == (n, n) and weights.shape[0] >= 1
    assert np.allclose(weights.sum(axis=2), 1.0, atol=1e-3)           # each row a distribution
    assert np.allclose(np.triu(weights, k=1), 0.0, atol=1e-6)          # causal: nothing after a token


def test_the_attention_over_a_text_covers_its_tokens(model: TransformersLLM) -> None:
    attention = model.attend("In what country was Lost Gravity manufactured?")
    assert "".join(attention.tokens) == "In what country was Lost Gravity manufactured?"
    assert attention.weights.shape[1] == len(attention.tokens)
    with pytest.raises(LLMError, match="non-empty"):
        model.attend("  ")


def test_token_scores_agree_with_llama_cpp_on_the_same_gguf(model: TransformersLLM) -> None:
    ours = model.score_tokens(PROMPT, " The Lost Gravity")
    theirs = LlamaCppLLM.load(n_ctx=512, n_threads=1)
    try:
        reference = theirs.score_tokens(PROMPT, " The Lost Gravity")
    finally:
        theirs.close()
    assert "".join(ours.tokens) == " The Lost Gravity" and ours.tokens == reference.tokens
    # the same weights, de-quantized by each library: the same probabilities to a few percent
    assert ours.total == pytest.approx(reference.total, abs=0.25)


def test_the_wrappers_pass_attention_through_and_count_its_calls(model: TransformersLLM, tmp_path: Path) -> None:
    metered = MeteredLLM(CachedLLM(model, tmp_path / "cache.sqlite"))
    assert supports(metered, ATTENTION)
    with track_usage() as usage:
        attended = metered.complete_attended(PROMPT, stop=["\n"], max_tokens=8)
        metered.attend("Lost Gravity")
    assert attended.tokens and usage.llm_calls == 2


def test_bad_options_and_missing_files_are_refused_by_name(tmp_path: Path) -> None:
    with pytest.raises(LLMError, match="model not found: .*nothing.gguf"):
        TransformersLLM.load(tmp_path / "nothing.gguf")
    with pytest.raises(LLMError, match="dtype must be"):
        TransformersLLM.load(dtype="float8")
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(b"not a gguf file")
    with pytest.raises(LLMError, match="could not"):
        TransformersLLM.load(broken)


def test_a_prompt_sharing_the_last_ones_prefix_reuses_its_cache_and_writes_the_same(model: TransformersLLM) -> None:
    follow_up = PROMPT.replace("In what country was Lost Gravity manufactured?", "Who directed Nosferatu?")
    model.complete(PROMPT, stop=["\n"], max_tokens=16)
    reused = model.complete_attended(follow_up, stop=["\n"], max_tokens=16)
    assert reused.completion.cached_prompt_tokens >= model.count_tokens(PROMPT.split("Question: In what")[0]) - 2
    model._prefix.enabled = False
    try:
        fresh = model.complete_attended(follow_up, stop=["\n"], max_tokens=16)
    finally:
        model._prefix.enabled = True
    assert fresh.completion.cached_prompt_tokens == 0
    assert reused.completion.text == fresh.completion.text
    assert reused.entropies == pytest.approx(fresh.entropies, abs=0.01)


def test_a_text_longer_than_the_context_is_a_failure_a_rerun_repeats(model: TransformersLLM) -> None:
    too_long = "word " * 1100
    for call in (lambda: model.complete(too_long, max_tokens=8), lambda: model.attend(too_long),
                 lambda: model.score_tokens(too_long, " yes")):
        with pytest.raises(ContextFullError, match="context of 1024"):
            call()
