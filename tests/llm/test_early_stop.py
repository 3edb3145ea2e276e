from pathlib import Path
from typing import Sequence

import pytest

from hopkit.errors import LLMError
from hopkit.llm.cache import CachedLLM
from hopkit.llm.early_stop import complete_until
from hopkit.llm.fake import ScriptedLLM
from hopkit.llm.meter import MeteredLLM
from hopkit.llm.protocol import EARLY_STOP, Completion, Done
from hopkit.usage import track_usage

pytestmark = pytest.mark.unit


class StreamingLLM:
    """Produces its text word by word and stops where ``done`` first holds."""

    model_id = "streaming"
    context_length = 100
    capabilities = frozenset({EARLY_STOP})

    def __init__(self, text: str) -> None:
        self.words = text.split(" ")
        self.calls: list[str] = []

    def complete(self, prompt: str, *, stop: Sequence[str] = (), max_tokens: int = 256,
                 temperature: float = 0.0) -> Completion:
        self.calls.append("complete")
        return Completion(text=" ".join(self.words), prompt_tokens=3, completion_tokens=len(self.words), seconds=0.0)

    def complete_until(self, prompt: str, done, *, stop: Sequence[str] = (), max_tokens: int = 256,
                       temperature: float = 0.0) -> Completion:
        self.calls.append("complete_until")
        text = ""
        for count, word in enumerate(self.words, start=1):
            text = " ".join(self.words[:count])
            if done(text):
                break
        return Completion(text=text, prompt_tokens=3, completion_tokens=len(text.split(" ")), seconds=0.0)

    def count_tokens(self, text: str) -> int:
        return len(text.split())


def test_a_backend_without_streaming_generates_in_full() -> None:
    llm = ScriptedLLM(["First one. Second one."])
    completion = complete_until(llm, "prompt", lambda text: "." in text, stop=["\n"])
    assert completion.text == "First one. Second one."


def test_a_streaming_backend_stops_where_done_holds() -> None:
    llm = StreamingLLM("First one. Second one and more")
    completion = complete_until(llm, "prompt", lambda text: text.endswith("Second"))
    assert completion.text == "First one. Second"
    assert llm.calls == ["complete_until"]


def test_the_meter_passes_early_stop_through_and_counts_the_call() -> None:
    inner = StreamingLLM("First one. Second one and more")
    metered = MeteredLLM(inner)
    with track_usage() as usage:
        completion = complete_until(metered, "prompt", lambda text: text.endswith("one."))
    assert completion.text == "First one."
    assert inner.calls == ["complete_until"]
    assert (usage.llm_calls, usage.prompt_tokens, usage.completion_tokens) == (1, 3, 2)


def test_a_method_without_the_declared_capability_is_not_looked_for() -> None:
    """Capabilities are declared, not found with getattr: an undeclared complete_until is not called."""

    class Undeclared(StreamingLLM):
        capabilities = frozenset()

    llm = Undeclared("First one. Second one")
    assert complete_until(llm, "prompt", lambda text: True).text == "First one. Second one"
    assert llm.calls == ["complete"]


def test_the_meter_refuses_early_stop_its_model_lacks() -> None:
    metered = MeteredLLM(ScriptedLLM(["First one."]))
    assert metered.capabilities == frozenset()
    with pytest.raises(LLMError, match=r"ScriptedLLM\('scripted'\) does not support 'early_stop' \(complete_until\)"):
        metered.complete_until("prompt", lambda text: True)
    assert complete_until(metered, "prompt", lambda text: True).text == "First one."  # the plain fallback


# The response cache forwards the early stop (it used to drop it and generate in full).

def sentences_done(count: int) -> Done:
    return lambda text: text.count(". ") >= count


def test_the_cache_forwards_early_stop_and_a_rerun_costs_no_call(tmp_path: Path) -> None:
    inner = StreamingLLM("First one. Second one. Third one")
    cached = CachedLLM(inner, tmp_path / "cache.sqlite")
    assert cached.capabilities == frozenset({EARLY_STOP})
    first = complete_until(cached, "prompt", sentences_done(1))
    again = complete_until(cached, "prompt", sentences_done(1))
    assert first.text == again.text == "First one. Second"
    assert inner.calls == ["complete_until"]
    assert again.from_cache and not first.from_cache


def test_an_early_stopped_answer_never_answers_a_plain_call(tmp_path: Path) -> None:
    inner = StreamingLLM("First one. Second one. Third one")
    cached = CachedLLM(inner, tmp_path / "cache.sqlite")
    complete_until(cached, "prompt", sentences_done(1))
    plain = cached.complete("prompt")
    assert plain.text == "First one. Second one. Third one" and not plain.from_cache
    assert inner.calls == ["complete_until", "complete"]
    assert cached.complete("prompt").from_cache  # the plain answer is stored under its own key
    assert len(cached) == 2


def test_a_stored_plain_completion_answers_an_early_stopped_call(tmp_path: Path) -> None:
    inner = StreamingLLM("First one. Second one. Third one")
    cached = CachedLLM(inner, tmp_path / "cache.sqlite")
    cached.complete("prompt", stop=["\n"])
    early = complete_until(cached, "prompt", sentences_done(1), stop=["\n"])
    assert early.from_cache and early.text == "First one. Second one. Third one"  # the full text settles any predicate
    assert inner.calls == ["complete"]


def test_a_predicate_wanting_more_than_the_stored_answer_calls_the_model(tmp_path: Path) -> None:
    inner = StreamingLLM("First one. Second one. Third one")
    cached = CachedLLM(inner, tmp_path / "cache.sqlite")
    complete_until(cached, "prompt", sentences_done(1))
    longer = complete_until(cached, "prompt", sentences_done(2))
    assert longer.text == "First one. Second one. Third" and not longer.from_cache
    assert inner.calls == ["complete_until", "complete_until"]
    shorter = complete_until(cached, "prompt", sentences_done(1))  # the longer answer settles it too
    assert shorter.from_cache and shorter.text == "First one. Second one. Third"
    assert len(inner.calls) == 2


def test_a_generation_that_ended_before_the_predicate_held_is_reused(tmp_path: Path) -> None:
    inner = StreamingLLM("Only one sentence.")
    cached = CachedLLM(inner, tmp_path / "cache.sqlite")
    first = complete_until(cached, "prompt", sentences_done(1))
    assert first.text == "Only one sentence."  # the predicate never held: the full generation
    again = complete_until(cached, "prompt", sentences_done(3))
    assert again.from_cache and again.text == first.text and inner.calls == ["complete_until"]
    assert not cached.complete("prompt").from_cache  # still not served to a plain call


def test_the_cache_over_a_model_without_streaming(tmp_path: Path) -> None:
    scripted = ScriptedLLM(["First one. Second one."] * 2)
    cached = CachedLLM(scripted, tmp_path / "cache.sqlite")
    assert complete_until(cached, "prompt", sentences_done(1)).text == "First one. Second one."
    assert complete_until(cached, "prompt", sentences_done(1)).from_cache  # the plain answer, stored
    with pytest.raises(LLMError, match="does not support 'early_stop'"):
        cached.complete_until("prompt", sentences_done(1))


def test_meter_over_cache_over_a_streaming_model(tmp_path: Path) -> None:
    inner = ScriptedLLM(lambda prompt: "First one. Second one. Third one", streaming=True)
    metered = MeteredLLM(CachedLLM(inner, tmp_path / "cache.sqlite"))
    assert metered.capabilities == frozenset({EARLY_STOP})
    with track_usage() as usage:
        texts = [complete_until(metered, "a b", sentences_done(1)).text for _ in range(2)]
    assert texts == ["First one. Second"] * 2
    assert inner.prompts == ["a b"]  # the second call was a hit
    assert (usage.llm_calls, usage.prompt_tokens, usage.completion_tokens) == (2, 4, 6)
