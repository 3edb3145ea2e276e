"""Optional capabilities (declared, not looked for) and scoring through the fake model and the wrappers."""

import math
from pathlib import Path
from typing import Sequence

import numpy as np
import pytest

from hopkit.errors import LLMError
from hopkit.llm import EARLY_STOP, LLM, SCORING, Scores, ScoringLLM, capabilities_of, require, supports
from hopkit.llm.cache import CachedLLM, scores_key
from hopkit.llm.fake import ScriptedLLM
from hopkit.llm.llama_cpp import LlamaCppLLM
from hopkit.llm.logprobs import first_token_scores, log_softmax, top_of_first_position
from hopkit.llm.meter import MeteredLLM
from hopkit.llm.openai_compat import OpenAICompatibleLLM
from hopkit.usage import track_usage

pytestmark = pytest.mark.unit

YES_NO = {" yes": math.log(0.8), " no": math.log(0.15), " maybe": math.log(0.01)}


def test_scores_are_a_sequence_of_logprobs_with_their_candidates() -> None:
    scores = Scores(candidates=(" yes", " no"), logprobs=(-0.2, -1.9), prompt_tokens=5, seconds=0.0)
    assert list(scores) == [-0.2, -1.9] and len(scores) == 2 and scores[1] == -1.9
    assert scores.best == " yes" and scores.logprob(" no") == -1.9
    assert sum(scores.normalized()) == pytest.approx(1.0)
    assert scores.normalized()[0] == pytest.approx(math.exp(-0.2) / (math.exp(-0.2) + math.exp(-1.9)))
    with pytest.raises(LLMError, match="' maybe' was not scored"):
        scores.logprob(" maybe")
    with pytest.raises(LLMError, match="one log-probability .* per candidate"):
        Scores(candidates=(" yes",), logprobs=(-0.2, -1.9), prompt_tokens=5, seconds=0.0)


def test_capabilities_are_declared_and_an_undeclared_model_has_none() -> None:
    plain = ScriptedLLM(["a"])
    scoring = ScriptedLLM(["a"], scores=YES_NO)
    assert capabilities_of(plain) == frozenset() and not supports(plain, SCORING)
    assert supports(scoring, SCORING) and not supports(scoring, EARLY_STOP)
    assert isinstance(scoring, ScoringLLM) and isinstance(scoring, LLM)
    assert LlamaCppLLM.capabilities == frozenset({EARLY_STOP, SCORING, "token_scoring", "sampling"})
    server = OpenAICompatibleLLM("http://127.0.0.1:1", "m")
    assert server.capabilities == frozenset({SCORING, "sampling", "concurrent_calls"})

    class NoDeclaration:  # a third-party LLM that never heard of capabilities
        model_id, context_length = "bare", 10

        def complete(self, prompt: str, **_: object) -> None: ...

        def count_tokens(self, text: str) -> int:
            return 0

        def score_continuations(self, prompt: str, candidates: Sequence[str]) -> None: ...

    assert not supports(NoDeclaration(), SCORING)  # having the method is not declaring it


def test_require_says_which_model_lacks_what_and_a_false_declaration_is_caught() -> None:
    with pytest.raises(LLMError, match=r"ScriptedLLM\('scripted'\) does not support 'scoring' "
                                       r"\(score_continuations\) \(needed by the yes/no reader\); its "
                                       r"capabilities: none"):
        require(ScriptedLLM(["a"]), SCORING, purpose="the yes/no reader")
    require(ScriptedLLM(["a"], scores=YES_NO), SCORING)

    class Liar:
        model_id, context_length = "liar", 10
        capabilities = frozenset({SCORING})

    with pytest.raises(LLMError, match=r"Liar\('liar'\) declares the capability 'scoring' but has no "
                                       r"score_continuations\(\) method"):
        supports(Liar(), SCORING)


def test_the_fake_model_scores_from_a_table_or_a_function() -> None:
    llm = ScriptedLLM(["a"], scores=YES_NO)
    scores = llm.score_continuations("Is it? Answer:", [" no", " yes"])
    assert scores.candidates == (" no", " yes") and list(scores) == [YES_NO[" no"], YES_NO[" yes"]]
    assert scores.prompt_tokens == 3 and llm.scored == [("Is it? Answer:", (" no", " yes"))]
    assert llm.prompts == []  # scoring is not a completion
    by_prompt = ScriptedLLM(["a"], scores=lambda prompt: {" yes": -0.1 if "sky" in prompt else -3.0})
    assert by_prompt.score_continuations("Is the sky blue?", [" yes"])[0] == -0.1
    with pytest.raises(LLMError, match=r"no scripted score for \[' perhaps'\]"):
        llm.score_continuations("Is it?", [" yes", " perhaps"])
    with pytest.raises(LLMError, match="at least one candidate"):
        llm.score_continuations("Is it?", [])
    with pytest.raises(LLMError, match="single string"):
        llm.score_continuations("Is it?", " yes")
    with pytest.raises(LLMError, match="does not support 'scoring'"):
        ScriptedLLM(["a"]).score_continuations("Is it?", [" yes"])


def test_the_wrappers_have_exactly_their_models_capabilities(tmp_path: Path) -> None:
    for inner in (ScriptedLLM(["a"]), ScriptedLLM(["a"], scores=YES_NO), ScriptedLLM(["a"], streaming=True)):
        metered, cached = MeteredLLM(inner), CachedLLM(inner, tmp_path / "cache.sqlite")
        both = MeteredLLM(CachedLLM(inner, tmp_path / "cache.sqlite"))
        assert metered.capabilities == cached.capabilities == both.capabilities == inner.capabilities
    for wrapper in (MeteredLLM(ScriptedLLM(["a"])), CachedLLM(ScriptedLLM(["a"]), tmp_path / "cache.sqlite")):
        with pytest.raises(LLMError, match=r"ScriptedLLM\('scripted'\) does not support 'scoring'"):
            wrapper.score_continuations("Is it?", [" yes"])


def test_the_meter_counts_and_times_a_scoring_call() -> None:
    metered = MeteredLLM(ScriptedLLM(["a"], scores=YES_NO))
    with track_usage() as usage:
        scores = metered.score_continuations("one two three", [" yes", " no"])
    assert scores.best == " yes"
    assert (usage.llm_calls, usage.prompt_tokens, usage.completion_tokens) == (1, 3, 0)
    assert usage.llm_seconds >= 0 and metered.total.llm_calls == 1


def test_the_cache_keys_scores_on_model_prompt_and_candidates(tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite"
    inner = ScriptedLLM(["a"], scores=YES_NO)
    cached = CachedLLM(inner, path)
    first = cached.score_continuations("Is it?", [" yes", " no"])
    second = cached.score_continuations("Is it?", [" yes", " no"])
    assert not first.from_cache and second.from_cache and len(inner.scored) == 1
    assert list(second) == list(first) and second.candidates == first.candidates
    cached.score_continuations("Is it?", [" no", " yes"])  # other order: another key
    cached.score_continuations("Is it really?", [" yes", " no"])
    assert len(inner.scored) == 3
    rerun = ScriptedLLM(["a"], scores=YES_NO)
    assert CachedLLM(rerun, path).score_continuations("Is it?", [" yes", " no"]).from_cache  # a rerun: no call
    assert rerun.scored == []
    assert len(cached) == 0  # scores are not completions
    with pytest.raises(LLMError, match="single string"):
        cached.score_continuations("Is it?", " yes")  # not four one-letter candidates
    assert scores_key("m", "p", ["a", "b"]) != scores_key("m", "p", ["b", "a"]) != scores_key("n", "p", ["b", "a"])


def test_floors_and_flags_for_candidates_outside_the_top_k() -> None:
    top = {" yes": math.log(0.6), " no": math.log(0.3)}
    values, floored = first_token_scores(top, [" yes", " maybe"])
    assert values == (math.log(0.6), pytest.approx(math.log(0.1)))  # the mass the top-k leave over
    assert floored == (False, True)
    assert first_token_scores(top, [" yes", " no"])[1] == ()
    full = {" yes": math.log(0.7), " no": math.log(0.3)}
    assert first_token_scores(full, [" maybe"])[0] == (math.log(0.3),)  # nothing left over: the lowest


def test_both_logprob_formats_are_read_and_same_text_tokens_merged() -> None:
    chat = {"content": [{"token": " yes", "logprob": -0.5, "top_logprobs": [
        {"token": " yes", "logprob": -0.5}, {"token": " no", "logprob": -1.5}, {"token": " no", "logprob": -2.5}]}]}
    assert top_of_first_position(chat, where="x") == {" yes": -0.5, " no": pytest.approx(np.logaddexp(-1.5, -2.5))}
    legacy = {"tokens": [" yes"], "token_logprobs": [-0.5], "top_logprobs": [{" yes": -0.5, " no": -1.0}]}
    assert top_of_first_position(legacy, where="x") == {" yes": -0.5, " no": -1.0}
    with pytest.raises(LLMError, match="x returned no log-probabilities"):
        top_of_first_position(None, where="x")
    with pytest.raises(LLMError, match="unknown shape"):
        top_of_first_position({"content": [{"logprob": -1}]}, where="x")


def test_log_softmax_matches_its_definition() -> None:
    logits = np.array([2.0, 1.0, -3.0, 1000.0, 999.0], dtype=np.float32)
    result = log_softmax(logits)
    assert np.exp(result).sum() == pytest.approx(1.0)
    assert result[3] - result[4] == pytest.approx(1.0) and result[0] < -990
