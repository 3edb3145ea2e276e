"""Scoring over HTTP: the OpenAI-compatible backend against the loopback fake server, for real over a socket."""

import math
from pathlib import Path

import pytest

from hopkit.errors import LLMError, LLMServerError
from hopkit.llm import retry
from hopkit.llm.cache import CachedLLM
from hopkit.llm.early_stop import complete_until
from hopkit.llm.meter import MeteredLLM
from hopkit.llm.openai_compat import OpenAICompatibleLLM
from hopkit.llm.testing_server import Fault, serve_fake_openai
from hopkit.usage import track_usage

pytestmark = pytest.mark.unit

TABLE = {" yes": math.log(0.7), " no": math.log(0.2), " Yes": math.log(0.05), " maybe": math.log(0.01)}


@pytest.fixture
def waits(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    recorded: list[float] = []
    monkeypatch.setattr(retry, "_sleep", recorded.append)
    return recorded


def test_completions_endpoint_reads_the_top_logprobs_of_the_first_token() -> None:
    with serve_fake_openai(["never used"], logprobs=TABLE) as server:
        llm = OpenAICompatibleLLM(server.base_url, "fake-model", top_logprobs=3)
        scores = llm.score_continuations("Is Paris in France? Answer:", [" yes", " no"])
    assert scores.candidates == (" yes", " no")
    assert list(scores) == [pytest.approx(math.log(0.7)), pytest.approx(math.log(0.2))]
    assert scores.floored == () and scores.best == " yes"
    assert scores.prompt_tokens == 5 and scores.seconds > 0  # the fake server counts whitespace words
    request = server.requests[0]
    assert request.path == "/v1/completions"
    assert request.body == {"model": "fake-model", "prompt": "Is Paris in France? Answer:", "max_tokens": 1,
                            "temperature": 0.0, "logprobs": 3, "echo": False}


def test_chat_endpoint_asks_for_logprobs_and_top_logprobs() -> None:
    table = {"yes": -0.1, "no": -2.5}
    with serve_fake_openai([], logprobs=table) as server:
        llm = OpenAICompatibleLLM(server.base_url, "fake-model", endpoint="chat")
        scores = llm.score_continuations("Is Paris in France? Answer yes or no.", ["no", "yes"])
    assert list(scores) == [-2.5, -0.1]
    body = server.requests[0].body
    assert server.requests[0].path == "/v1/chat/completions"
    assert (body["logprobs"], body["top_logprobs"], body["max_tokens"]) == (True, 20, 1)
    assert body["messages"] == [{"role": "user", "content": "Is Paris in France? Answer yes or no."}]


@pytest.mark.parametrize("endpoint", ["completions", "chat"])
def test_a_candidate_outside_the_top_k_gets_a_flagged_floor(endpoint: str) -> None:
    with serve_fake_openai([], logprobs=TABLE) as server:
        llm = OpenAICompatibleLLM(server.base_url, "m", endpoint=endpoint, top_logprobs=2)  # type: ignore[arg-type]
        scores = llm.score_continuations("Answer:", [" yes", " maybe"])
    assert scores.floored == (False, True)
    assert scores[0] == pytest.approx(math.log(0.7))
    assert scores[1] == pytest.approx(math.log(0.1))  # an upper bound: the mass " yes" and " no" leave over
    assert scores[1] >= TABLE[" maybe"]


@pytest.mark.parametrize("endpoint", ["completions", "chat"])
def test_a_server_without_logprobs_is_a_clear_error(endpoint: str) -> None:
    with serve_fake_openai(lambda prompt: "yes") as server:  # no table: "logprobs": null
        llm = OpenAICompatibleLLM(server.base_url, "m", endpoint=endpoint)  # type: ignore[arg-type]
        with pytest.raises(LLMError, match=rf"{server.base_url}/.*returned no log-probabilities .*does not "
                                           "support them"):
            llm.score_continuations("Answer:", [" yes", " no"])


def test_multi_word_candidates_are_refused_before_any_request() -> None:
    with serve_fake_openai([], logprobs=TABLE) as server:
        llm = OpenAICompatibleLLM(server.base_url, "m")
        with pytest.raises(LLMError, match=r"OpenAICompatibleLLM\(.*\) scores only the first generated token .*"
                                           r"'Paris is' spans several tokens"):
            llm.score_continuations("The capital of France:", [" Lyon", "Paris is"])
    assert server.requests == []


def test_scoring_requests_are_retried_like_completions(waits: list[float]) -> None:
    with serve_fake_openai([], logprobs=TABLE, fail_first=1, fail_status=503) as server:
        llm = OpenAICompatibleLLM(server.base_url, "m", backoff=0.5)
        assert llm.score_continuations("Answer:", [" no"])[0] == pytest.approx(math.log(0.2))
    assert len(server.requests) == 2 and waits == [0.5]
    with serve_fake_openai([], logprobs=TABLE, fail_first=5) as server:
        with pytest.raises(LLMServerError, match="failed 2 time"):
            OpenAICompatibleLLM(server.base_url, "m", max_retries=1).score_continuations("Answer:", [" no"])


def test_a_refused_scoring_request_suggests_a_smaller_top_k() -> None:
    with serve_fake_openai([], logprobs=TABLE, faults=[Fault("status", status=400)]) as server:
        llm = OpenAICompatibleLLM(server.base_url, "m")
        with pytest.raises(LLMError, match="HTTP 400.*top_logprobs=20.*pass top_logprobs=5") as caught:
            llm.score_continuations("Answer:", [" no"])
    assert not isinstance(caught.value, LLMServerError)


def test_the_http_backend_has_no_early_stop_and_completes_in_full() -> None:
    with serve_fake_openai(lambda prompt: "First one. Second one.") as server:
        llm = OpenAICompatibleLLM(server.base_url, "m")
        assert complete_until(llm, "prompt", lambda text: True).text == "First one. Second one."


def test_meter_and_cache_over_http_a_rerun_sends_no_request(tmp_path: Path) -> None:
    with serve_fake_openai([], logprobs=TABLE) as server:
        llm = MeteredLLM(CachedLLM(OpenAICompatibleLLM(server.base_url, "m"), tmp_path / "cache.sqlite"))
        with track_usage() as usage:
            first = llm.score_continuations("Is it? Answer:", [" yes", " no"])
            again = llm.score_continuations("Is it? Answer:", [" yes", " no"])
    assert len(server.requests) == 1 and again.from_cache and list(again) == list(first)
    assert (usage.llm_calls, usage.prompt_tokens, usage.completion_tokens) == (2, 6, 0)
