import threading
from pathlib import Path
from typing import Sequence

import pytest

from hopkit.errors import LLMError
from hopkit.llm.cache import CachedLLM, cache_key
from hopkit.llm.protocol import LLM, Completion

pytestmark = pytest.mark.unit


class CountingLLM:
    """Answers with a numbered reply so a repeated call is visible."""

    context_length = 512

    def __init__(self, model_id: str = "counting") -> None:
        self.model_id = model_id
        self.calls = 0
        self._lock = threading.Lock()

    def complete(self, prompt: str, *, stop: Sequence[str] = (), max_tokens: int = 256,
                 temperature: float = 0.0) -> Completion:
        with self._lock:
            self.calls += 1
            number = self.calls
        return Completion(text=f"reply {number} to {prompt}", prompt_tokens=11, completion_tokens=7, seconds=2.5,
                          cached_prompt_tokens=3)

    def count_tokens(self, text: str) -> int:
        return len(text)


def test_miss_then_hit_keeps_token_counts(tmp_path: Path) -> None:
    inner = CountingLLM()
    cached = CachedLLM(inner, tmp_path / "sub" / "cache.sqlite")
    assert isinstance(cached, LLM) and cached.model_id == "counting" and cached.context_length == 512
    first = cached.complete("q", stop=["\n"], max_tokens=5)
    second = cached.complete("q", stop=["\n"], max_tokens=5)
    assert inner.calls == 1
    assert not first.from_cache and first.seconds == 2.5
    assert second.from_cache and second.text == first.text == "reply 1 to q"
    assert (second.prompt_tokens, second.completion_tokens, second.cached_prompt_tokens) == (11, 7, 0)
    assert second.seconds < 1.0
    assert len(cached) == 1


@pytest.mark.parametrize(
    "change",
    [
        {"prompt": "other"},
        {"stop": ["\n", "."]},
        {"max_tokens": 6},
        {"temperature": 0.5},
    ],
)
def test_every_request_field_is_part_of_the_key(tmp_path: Path, change: dict) -> None:
    inner = CountingLLM()
    cached = CachedLLM(inner, tmp_path / "cache.sqlite")
    request = {"prompt": "q", "stop": ["\n"], "max_tokens": 5, "temperature": 0.0}
    cached.complete(**request)
    assert cached.complete(**{**request, **change}).from_cache is False
    assert inner.calls == 2


def test_key_depends_on_model_id_and_stop_order_but_not_int_vs_float() -> None:
    base = cache_key("m", "p", ["a", "b"], 5, 0)
    assert base == cache_key("m", "p", ("a", "b"), 5, 0.0)
    assert base != cache_key("other", "p", ["a", "b"], 5, 0)
    assert base != cache_key("m", "p", ["b", "a"], 5, 0)
    assert cache_key("m", "p\x00", [], 5, 0) != cache_key("m", "p", ["\x00"], 5, 0)


def test_cache_persists_across_instances_and_separates_models(tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite"
    CachedLLM(CountingLLM("a"), path).complete("q")
    again = CountingLLM("a")
    assert CachedLLM(again, path).complete("q").from_cache and again.calls == 0
    other = CountingLLM("b")
    assert not CachedLLM(other, path).complete("q").from_cache and other.calls == 1


def test_concurrent_threads_share_one_file(tmp_path: Path) -> None:
    inner = CountingLLM()
    cached = CachedLLM(inner, tmp_path / "cache.sqlite")
    errors: list[BaseException] = []

    def work(worker: int) -> None:
        try:
            for i in range(20):
                cached.complete(f"prompt {i % 10}")
        except BaseException as exc:  # noqa: BLE001 (collected and re-raised in the test thread)
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(w,)) for w in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert len(cached) == 10
    assert 10 <= inner.calls <= 40  # racing misses may both call the model; most calls are hits
    texts = {cached.complete(f"prompt {i}").text for i in range(10)}
    assert len(texts) == 10


def test_unusable_cache_path_raises_llm_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    cached = CachedLLM(CountingLLM(), blocker / "cache.sqlite")  # constructor does no I/O
    with pytest.raises(LLMError, match="LLM response cache .*cache.sqlite"):
        cached.complete("q")
