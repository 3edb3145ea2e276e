import threading
import time
from pathlib import Path
from typing import Callable, Sequence

import pytest

from hopkit.errors import LLMError
from hopkit.llm.cache import CachedLLM
from hopkit.llm.fake import ScriptedLLM
from hopkit.llm.meter import MeteredLLM
from hopkit.llm.protocol import LLM, ChatMessage, Completion
from hopkit.llm.capabilities import CAPABILITY_METHOD_TABLE
from hopkit.traces.collect import collect_trace, record_step
from hopkit.usage import Usage, track_usage, usage_component

pytestmark = pytest.mark.unit


class FixedLLM:
    model_id = "fixed"
    context_length = 100

    def complete(self, prompt: str, *, stop: Sequence[str] = (), max_tokens: int = 256,
                 temperature: float = 0.0) -> Completion:
        if prompt == "fail":
            raise LLMError("scripted failure")
        return Completion(text="ok", prompt_tokens=10, completion_tokens=2, seconds=0.0, cached_prompt_tokens=4)

    def count_tokens(self, text: str) -> int:
        return 1


def test_calls_inside_a_block_are_added_to_it_and_to_the_total() -> None:
    llm = MeteredLLM(FixedLLM())
    assert isinstance(llm, LLM) and llm.model_id == "fixed" and llm.context_length == 100
    llm.complete("outside any block")
    with track_usage() as usage:
        completion = llm.complete("a")
        llm.complete("b", stop=["\n"], max_tokens=3)
    assert completion.text == "ok"
    assert (usage.llm_calls, usage.prompt_tokens, usage.completion_tokens, usage.cached_prompt_tokens) == (2, 20, 4, 8)
    assert usage.llm_seconds > 0
    assert list(usage.components) == ["model"] and usage.components["model"].calls == 2
    total = llm.total
    assert (total.llm_calls, total.prompt_tokens, total.completion_tokens) == (3, 30, 6)


def test_calls_under_a_label_count_under_it_with_their_tokens() -> None:
    llm = MeteredLLM(FixedLLM())
    with track_usage() as usage:
        with usage_component("migres:leaf"):
            llm.complete("a")
            llm.complete("b")
        llm.complete("c")
    leaf, model = usage.components["migres:leaf"], usage.components["model"]
    assert (leaf.calls, leaf.llm_calls, leaf.prompt_tokens, leaf.cached_prompt_tokens, leaf.completion_tokens) == (
        1, 2, 20, 8, 4)
    assert (model.calls, model.llm_calls, model.prompt_tokens) == (1, 1, 10)
    assert (usage.llm_calls, usage.prompt_tokens) == (3, 30)
    assert llm.total.components["migres:leaf"].llm_calls == 2


def test_total_is_a_snapshot() -> None:
    llm = MeteredLLM(FixedLLM())
    before = llm.total
    llm.complete("a")
    assert before.llm_calls == 0 and llm.total.llm_calls == 1


class SlowFailingLLM(FixedLLM):
    """Fails each call after a while, as a server that times out does."""

    def complete(self, prompt: str, *, stop: Sequence[str] = (), max_tokens: int = 256,
                 temperature: float = 0.0) -> Completion:
        time.sleep(0.05)
        raise LLMError("no answer within timeout=0.05s")


def test_a_failed_call_is_model_time_with_no_tokens() -> None:
    """A run whose only time went to a failing server said hopkit's own work took 100% of it (issue 70)."""
    llm = MeteredLLM(SlowFailingLLM())
    with track_usage() as usage:
        with pytest.raises(LLMError):
            llm.complete("fail")
        with usage_component("judge:relevance"), pytest.raises(LLMError):
            llm.complete("fail")
    assert usage.llm_calls == 2 and llm.total.llm_calls == 2
    assert usage.llm_seconds >= 0.1 and usage.components["judge:relevance"].llm_seconds >= 0.05
    assert (usage.prompt_tokens, usage.completion_tokens) == (0, 0)


def test_concurrent_questions_keep_their_own_numbers() -> None:
    llm = MeteredLLM(FixedLLM())
    results: dict[int, Usage] = {}

    def question(number: int) -> None:
        with track_usage() as usage:
            for _ in range(number * 10):
                llm.complete("q")
        results[number] = usage

    threads = [threading.Thread(target=question, args=(n,)) for n in (1, 2, 3, 4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert {n: u.llm_calls for n, u in results.items()} == {1: 10, 2: 20, 3: 30, 4: 40}
    assert llm.total.llm_calls == 100 and llm.total.prompt_tokens == 1000


def test_meter_outside_a_cache_counts_hits_with_their_tokens(tmp_path: Path) -> None:
    llm = MeteredLLM(CachedLLM(ScriptedLLM(["one two"]), tmp_path / "cache.sqlite"))
    with track_usage() as usage:
        llm.complete("x y z")
        llm.complete("x y z")  # a hit: the scripted LLM would raise if called again
    assert usage.llm_calls == 2 and usage.prompt_tokens == 6 and usage.completion_tokens == 4


def test_each_capability_call_is_counted_as_its_table_row_says() -> None:
    """The meter forwards every capability from one table: generations note their prompt and count their
    tokens, scorings their prompt tokens, ``attend`` the tokens it read, ``token_texts`` nothing."""
    inner = ScriptedLLM(lambda prompt: "one two", scores={" yes": -0.1}, token_scores=-0.5, streaming=True,
                        chat=True, sampling=True, entropies=0.5)
    llm = MeteredLLM(inner)
    calls: dict[str, Callable[[], object]] = {
        "complete_until": lambda: llm.complete_until("a b c", lambda text: False),
        "score_continuations": lambda: llm.score_continuations("a b c", [" yes"]),
        "score_tokens": lambda: llm.score_tokens("a b c", " d e"),
        "complete_chat": lambda: llm.complete_chat([ChatMessage("user", "a b")]),
        "complete_sample": lambda: llm.complete_sample(prompt="a b c", sample=1),
        "complete_attended": lambda: llm.complete_attended("a b c"),
        "attend": lambda: llm.attend("a b c d"),
        "token_texts": lambda: llm.token_texts("a b c d"),
    }
    assert sorted(calls) == sorted(method.name for method in CAPABILITY_METHOD_TABLE)
    counted: dict[str, tuple[int, int, int, int]] = {}
    for name, call in calls.items():
        with track_usage() as usage, collect_trace(prompts=True) as trace:
            call()
            record_step("called")
        noted = trace.steps[0].extra.get("prompts", [])
        counted[name] = (usage.llm_calls, usage.prompt_tokens, usage.completion_tokens, len(noted))
    chat_prompt_tokens = inner.count_tokens("<|user|>\na b\n<|assistant|>\n")
    assert counted == {
        "complete_until": (1, 3, 2, 1), "score_continuations": (1, 3, 0, 0), "score_tokens": (1, 3, 0, 0),
        "complete_chat": (1, chat_prompt_tokens, 2, 1), "complete_sample": (1, 3, 2, 1),
        "complete_attended": (1, 3, 2, 1), "attend": (1, 4, 0, 0), "token_texts": (0, 0, 0, 0)}
