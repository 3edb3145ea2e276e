"""The ``sampling`` capability: independent, repeatable samples of one prompt (ALCE's RERANK draws four),
through the scripted model, the wrappers, a server and llama.cpp."""

from __future__ import annotations

from pathlib import Path

import pytest

from hopkit.errors import LLMError
from hopkit.llm import SAMPLING, SamplingLLM, require, supports
from hopkit.llm.cache import CachedLLM
from hopkit.llm.fake import ScriptedLLM
from hopkit.llm.llama_cpp import LlamaCppLLM
from hopkit.llm.meter import MeteredLLM
from hopkit.llm.openai_compat import OpenAICompatibleLLM
from hopkit.llm.testing_server import serve_fake_openai
from hopkit.usage import track_usage


@pytest.mark.unit
def test_the_capability_is_declared_and_a_model_without_it_is_refused_by_name() -> None:
    model = ScriptedLLM(["a"], sampling=True)
    assert supports(model, SAMPLING) and isinstance(model, SamplingLLM)
    with pytest.raises(LLMError, match="does not support 'sampling' \\(complete_sample\\) \\(needed by RERANK\\)"):
        require(ScriptedLLM(["a"]), SAMPLING, purpose="RERANK")
    with pytest.raises(LLMError, match="sample must be >= 0"):
        model.complete_sample("p", -1)


@pytest.mark.unit
def test_the_cache_keeps_each_sample_apart_and_apart_from_the_plain_completion(tmp_path: Path) -> None:
    inner = ScriptedLLM(["first", "second", "greedy"], sampling=True)
    cached = MeteredLLM(CachedLLM(inner, tmp_path / "cache.sqlite"))
    with track_usage() as usage:
        drawn = [cached.complete_sample("Q: where?", i, temperature=0.5).text for i in (0, 1)]
        again = cached.complete_sample("Q: where?", 0, temperature=0.5)
        plain = cached.complete("Q: where?", temperature=0.5)
    assert drawn == ["first", "second"] and again.text == "first" and again.from_cache
    assert plain.text == "greedy" and inner.samples == [0, 1] and len(inner.prompts) == 3
    assert usage.llm_calls == 4  # the meter outside the cache counts what the method asked for


@pytest.mark.unit
def test_a_server_is_sent_the_sample_as_its_seed() -> None:
    with serve_fake_openai(lambda prompt: "Tarsk") as server:
        for endpoint in ("completions", "chat"):
            llm = OpenAICompatibleLLM(server.base_url, "fake", endpoint=endpoint, max_retries=0)  # type: ignore[arg-type]
            assert llm.complete_sample("Where?", 3, temperature=0.5).text == "Tarsk"
        assert [r.body["seed"] for r in server.requests] == [3, 3]
        assert server.requests[0].body["temperature"] == 0.5
        assert server.requests[1].body["messages"] == [{"role": "user", "content": "Where?"}]


@pytest.mark.integration
def test_llama_cpp_samples_differ_and_each_repeats_whatever_came_between(smollm2: LlamaCppLLM) -> None:
    prompt = "Write one sentence about a city by the sea:"
    samples = [smollm2.complete_sample(prompt, i, max_tokens=24, temperature=1.0).text for i in range(4)]
    assert len(set(samples)) >= 2
    smollm2.complete("The capital of France is", max_tokens=4)
    assert smollm2.complete_sample(prompt, 2, max_tokens=24, temperature=1.0).text == samples[2]
