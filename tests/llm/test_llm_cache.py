import logging
import threading
from pathlib import Path
from typing import Sequence

import pytest

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


def test_an_unusable_cache_path_is_bypassed_with_one_warning(tmp_path: Path,
                                                             caplog: pytest.LogCaptureFixture) -> None:
    """Issue item 10: a cache that cannot be used failed every question; now the model answers."""
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    inner = CountingLLM()
    cached = CachedLLM(inner, blocker / "cache.sqlite")  # constructor does no I/O
    with caplog.at_level(logging.WARNING, logger="hopkit.llm.cache"):
        assert [cached.complete("q").text for _ in range(3)] == ["reply 1 to q", "reply 2 to q", "reply 3 to q"]
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "cache.sqlite cannot be used" in warnings[0] and "without the cache" in warnings[0]
    assert cached.bypassed is not None and len(cached) == 0


@pytest.mark.parametrize("garbage", [b"this is not a database" * 50, b"SQLite format 3\x00" + b"\xff" * 4000])
def test_a_corrupted_cache_file_is_moved_aside_and_started_again(tmp_path: Path, garbage: bytes,
                                                                 caplog: pytest.LogCaptureFixture) -> None:
    """Issue item 10: a corrupted cache file failed every question (and the run still exited 0)."""
    path = tmp_path / "cache.sqlite"
    path.write_bytes(garbage)
    inner = CountingLLM()
    cached = CachedLLM(inner, path)
    with caplog.at_level(logging.WARNING, logger="hopkit.llm.cache"):
        first = cached.complete("q")
        second = cached.complete("q")
    assert first.text == "reply 1 to q" and second.from_cache and inner.calls == 1  # a working cache again
    aside = list(tmp_path.glob("cache.sqlite.corrupt-*"))
    assert len(aside) == 1 and aside[0].read_bytes() == garbage  # kept for a look, not deleted
    assert any("is corrupted" in r.getMessage() and aside[0].name in r.getMessage() for r in caplog.records)
    assert cached.bypassed is None


def test_a_cache_deleted_mid_run_is_started_again(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Issue item 10: deleting the cache mid-run failed every later question with advice to delete it."""
    path = tmp_path / "cache.sqlite"
    inner = CountingLLM()
    cached = CachedLLM(inner, path)
    cached.complete("before")
    for part in tmp_path.glob("cache.sqlite*"):
        part.unlink()
    with caplog.at_level(logging.WARNING, logger="hopkit.llm.cache"):
        after = cached.complete("after")
        again = cached.complete("after")
    assert after.text == "reply 2 to after" and again.from_cache
    assert any("deleted or emptied" in r.getMessage() for r in caplog.records)
    assert cached.bypassed is None and len(cached) == 1


def test_a_cache_that_breaks_mid_run_never_fails_a_question(tmp_path: Path) -> None:
    """The file overwritten with garbage between calls, from several threads at once."""
    path = tmp_path / "cache.sqlite"
    inner = CountingLLM()
    cached = CachedLLM(inner, path)
    cached.complete("warm")
    path.write_bytes(b"garbage" * 1000)
    errors: list[BaseException] = []

    def ask(number: int) -> None:
        try:
            cached.complete(f"prompt {number}")
        except BaseException as exc:  # noqa: BLE001 (collected for the assertion)
            errors.append(exc)

    threads = [threading.Thread(target=ask, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert len(list(tmp_path.glob("cache.sqlite.corrupt-*"))) >= 1


def test_an_empty_completion_is_not_kept_so_a_retry_asks_the_model_again(tmp_path: Path) -> None:
    """Issue item 4: a question that failed with an empty answer must get a real retry, not the cached blank."""

    class BlankOnce(CountingLLM):
        def complete(self, prompt: str, *, stop: Sequence[str] = (), max_tokens: int = 256,
                     temperature: float = 0.0) -> Completion:
            completion = super().complete(prompt, stop=stop, max_tokens=max_tokens, temperature=temperature)
            return Completion(text=" \n", prompt_tokens=11, completion_tokens=0, seconds=0.1) \
                if self.calls == 1 else completion

    inner = BlankOnce()
    cached = CachedLLM(inner, tmp_path / "cache.sqlite")
    assert cached.complete("q").text == " \n"
    assert cached.complete("q").text == "reply 2 to q" and inner.calls == 2
    assert cached.complete("q").from_cache and inner.calls == 2
