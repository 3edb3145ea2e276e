"""One model behind several loopback servers: balanced, a failing server skipped."""

import socket
import threading
import time
from contextlib import ExitStack
from typing import Iterator

import pytest

from hopkit.config import instantiate, load_llm
from hopkit.errors import ConfigError, LLMError, LLMServerError
from hopkit.llm import retry
from hopkit.llm.endpoint_pool import EndpointPool, split_base_urls
from hopkit.llm.openai_compat import OpenAICompatibleLLM
from hopkit.llm.testing_server import FakeOpenAIServer, Fault, serve_fake_openai

pytestmark = pytest.mark.unit


@pytest.fixture
def waits(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    recorded: list[float] = []
    monkeypatch.setattr(retry, "_sleep", recorded.append)
    return recorded


def always(fault: Fault):
    return lambda number, prompt: fault


@pytest.fixture
def farm() -> Iterator[list[FakeOpenAIServer]]:
    """Three servers; each answers with its own name."""
    with ExitStack() as stack:
        yield [stack.enter_context(serve_fake_openai(lambda prompt, name=name: name)) for name in "abc"]


def test_base_urls_from_a_list_or_a_string_with_commas_or_spaces() -> None:
    assert split_base_urls("http://a:1/v1, http://b:2/v1  http://c:3") == ("http://a:1/v1", "http://b:2/v1",
                                                                            "http://c:3")
    assert split_base_urls(["http://a:1", "http://a:1"]) == ("http://a:1",)
    with pytest.raises(LLMError, match="http:// or https://.*'b:2'"):
        split_base_urls("http://a:1,b:2")
    with pytest.raises(LLMError, match="names no server"):
        split_base_urls(" , ")
    llm = OpenAICompatibleLLM("http://a:1,http://b:2/v1", "m")
    assert llm.urls == ("http://a:1/v1/completions", "http://b:2/v1/completions")
    assert llm.model_id == "m" and "http://b:2/v1/completions" in repr(llm)


def test_sequential_requests_go_to_each_server_in_turn(farm: list[FakeOpenAIServer]) -> None:
    llm = OpenAICompatibleLLM([s.base_url for s in farm], "m")
    answers = [llm.complete(f"question {n}").text for n in range(9)]
    assert sorted(answers) == sorted("abc" * 3)
    assert [len(s.requests) for s in farm] == [3, 3, 3]


def test_a_failing_server_is_skipped_while_the_others_serve(waits: list[float]) -> None:
    with ExitStack() as stack:
        good = [stack.enter_context(serve_fake_openai(lambda prompt: "fine")) for _ in range(2)]
        bad = stack.enter_context(serve_fake_openai([], faults=always(Fault("status", status=503))))
        llm = OpenAICompatibleLLM([bad.base_url, *(s.base_url for s in good)], "m")
        answers = [llm.complete(f"q{n}").text for n in range(12)]
    assert answers == ["fine"] * 12
    assert waits == []  # no backoff: another server took the request at once
    assert len(bad.requests) == 1  # then it rested
    assert sum(len(s.requests) for s in good) == 12


def test_an_unreachable_server_is_skipped(farm: list[FakeOpenAIServer], waits: list[float]) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{probe.getsockname()[1]}/v1"
    llm = OpenAICompatibleLLM([dead, farm[0].base_url], "m", timeout=2)
    assert [llm.complete(f"q{n}").text for n in range(4)] == ["a"] * 4
    assert waits == [] and llm.endpoints.sent()[f"{dead}/completions"] == 1


def test_a_rested_server_is_tried_again_after_its_rest() -> None:
    pool = EndpointPool(["u1", "u2"], rest_seconds=0.05)
    pool.failed("u1")
    with pool.lease() as first, pool.lease() as second:
        assert first == second == "u2"  # u1 rests even though u2 is busy
    time.sleep(0.06)
    with pool.lease() as url:
        assert url == "u1"
    pool.failed("u1")
    pool.failed("u1")  # a second failure in a row rests it twice as long
    time.sleep(0.06)
    with pool.lease() as url:
        assert url == "u2"


def test_every_server_failing_ends_in_one_error_naming_them(waits: list[float]) -> None:
    with ExitStack() as stack:
        servers = [stack.enter_context(serve_fake_openai([], faults=always(Fault("status", status=500))))
                   for _ in range(2)]
        llm = OpenAICompatibleLLM([s.base_url for s in servers], "m", max_retries=2)
        with pytest.raises(LLMServerError, match=r"2 servers \(.*\) failed 3 time\(s\)"):
            llm.complete("q")
    assert len(waits) == 2


def test_a_client_error_is_not_blamed_on_the_server(waits: list[float]) -> None:
    with ExitStack() as stack:
        refusing = stack.enter_context(serve_fake_openai([], faults=always(Fault("status", status=400))))
        other = stack.enter_context(serve_fake_openai(lambda prompt: "fine"))
        llm = OpenAICompatibleLLM([refusing.base_url, other.base_url], "m")
        with pytest.raises(LLMError, match="refused the request with HTTP 400"):
            llm.complete("q")
        assert llm.complete("q").text == "fine"
        with pytest.raises(LLMError, match="HTTP 400"):
            llm.complete("q")  # its turn again: it was not rested


def test_requests_in_flight_are_spread_over_the_farm() -> None:
    busy: dict[str, int] = {}
    peaks: dict[str, int] = {}
    lock = threading.Lock()

    def slow(name: str):
        def answer(prompt: str) -> str:
            with lock:
                busy[name] = busy.get(name, 0) + 1
                peaks[name] = max(peaks.get(name, 0), busy[name])
            time.sleep(0.2)
            with lock:
                busy[name] -= 1
            return name
        return answer

    with ExitStack() as stack:
        servers = [stack.enter_context(serve_fake_openai(slow(name))) for name in "abc"]
        llm = OpenAICompatibleLLM([s.base_url for s in servers], "m")
        results: list[str] = []
        threads = [threading.Thread(target=lambda n=n: results.append(llm.complete(f"q{n}").text)) for n in range(6)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=10)
    assert sorted(results) == sorted("aabbcc")
    assert peaks == {"a": 2, "b": 2, "c": 2}


def test_a_farm_from_a_yaml_list_or_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    llm = instantiate({"_target_": "hopkit.llm.openai_compat.OpenAICompatibleLLM",
                       "base_url": ["http://10.0.0.1:8000/v1", "http://10.0.0.2:8000/v1"], "model": "m"},
                      "farm.yaml", kind="llm")
    assert len(llm.urls) == 2
    with pytest.raises(ConfigError, match="base_url"):
        instantiate({"_target_": "hopkit.llm.openai_compat.OpenAICompatibleLLM", "base_url": [8000], "model": "m"},
                    "farm.yaml", kind="llm")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:8001/v1,http://127.0.0.1:8002/v1")
    assert load_llm("openai-compatible").base_urls == ("http://127.0.0.1:8001/v1", "http://127.0.0.1:8002/v1")
