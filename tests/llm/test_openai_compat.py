import socket
from typing import Iterator

import pytest

from hopkit.errors import DETERMINISTIC_FAILURES, LLMError, LLMServerError, RequestRefusedError
from hopkit.llm import retry
from hopkit.llm.openai_compat import OpenAICompatibleLLM, endpoint_url
from hopkit.llm.protocol import LLM
from hopkit.llm.testing_server import FakeOpenAIServer, Fault, serve_fake_openai
from tests.polling import wait_until

pytestmark = pytest.mark.unit


@pytest.fixture
def waits(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """Record the backoff waits instead of sleeping."""
    recorded: list[float] = []
    monkeypatch.setattr(retry, "_sleep", recorded.append)
    return recorded


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with serve_fake_openai(lambda prompt: f"echo {prompt.split()[-1]}. More text\nsecond line") as running:
        yield running


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.mark.parametrize(
    ("base_url", "endpoint", "expected"),
    [
        ("http://h:8000", "completions", "http://h:8000/v1/completions"),
        ("http://h:8000/", "completions", "http://h:8000/v1/completions"),
        ("http://h:8000/v1", "chat", "http://h:8000/v1/chat/completions"),
        ("https://api.openai.com/v1/", "chat", "https://api.openai.com/v1/chat/completions"),
    ],
)
def test_endpoint_url_with_or_without_v1(base_url: str, endpoint: str, expected: str) -> None:
    assert endpoint_url(base_url, endpoint) == expected


def test_constructor_validates_and_does_no_io() -> None:
    llm = OpenAICompatibleLLM("http://127.0.0.1:1", "m")  # nothing listens there: no request yet
    assert isinstance(llm, LLM)
    assert llm.model_id == "m" and llm.context_length == 8192
    with pytest.raises(LLMError, match="http:// or https://"):
        OpenAICompatibleLLM("localhost:8000", "m")
    with pytest.raises(LLMError, match="endpoint"):
        OpenAICompatibleLLM("http://h", "m", endpoint="embeddings")  # type: ignore[arg-type]
    with pytest.raises(LLMError, match="max_retries=-1"):
        OpenAICompatibleLLM("http://h", "m", max_retries=-1)


def test_completion_success_sends_the_request_and_reads_usage(server: FakeOpenAIServer) -> None:
    llm = OpenAICompatibleLLM(server.base_url.removesuffix("/v1"), "fake-model", api_key="sekret")
    completion = llm.complete("Q: where?\nA: answer", stop=["\n"], max_tokens=32, temperature=0.0)
    assert completion.text == "echo answer. More text"
    assert completion.prompt_tokens == 4  # the fake server counts whitespace words
    assert completion.completion_tokens == 4
    assert completion.seconds > 0 and not completion.from_cache
    request = server.requests[0]
    assert request.path == "/v1/completions"
    assert request.body == {"model": "fake-model", "prompt": "Q: where?\nA: answer", "max_tokens": 32,
                            "temperature": 0.0, "stop": ["\n"]}
    assert request.headers["authorization"] == "Bearer sekret"


def test_api_key_from_environment_at_call_time(server: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch) -> None:
    llm = OpenAICompatibleLLM(server.base_url, "m")
    monkeypatch.setenv("OPENAI_API_KEY", "from-env")
    llm.complete("hi")
    monkeypatch.delenv("OPENAI_API_KEY")
    llm.complete("hi")
    assert server.requests[0].headers["authorization"] == "Bearer from-env"
    assert "authorization" not in server.requests[1].headers


def test_chat_endpoint(server: FakeOpenAIServer) -> None:
    llm = OpenAICompatibleLLM(server.base_url, "fake-model", endpoint="chat")
    completion = llm.complete("say the last word", stop=["."])
    assert completion.text == "echo word"
    assert llm.model_id == "fake-model@chat"
    request = server.requests[0]
    assert request.path == "/v1/chat/completions"
    assert request.body["messages"] == [{"role": "user", "content": "say the last word"}]


def test_missing_usage_falls_back_to_an_estimate() -> None:
    with serve_fake_openai(["a short reply"], usage=False) as server:
        completion = OpenAICompatibleLLM(server.base_url, "m").complete("one two three four")
    assert completion.text == "a short reply"
    assert completion.prompt_tokens == 4 and completion.completion_tokens == 3


def test_server_errors_are_retried_with_backoff_then_succeed(waits: list[float]) -> None:
    with serve_fake_openai(["fine"], fail_first=2, fail_status=500) as server:
        llm = OpenAICompatibleLLM(server.base_url, "m", max_retries=4, backoff=0.25)
        assert llm.complete("x").text == "fine"
    assert len(server.requests) == 3
    assert waits == [0.25, 0.5]


def test_rate_limit_honours_retry_after(waits: list[float]) -> None:
    with serve_fake_openai(["fine"], fail_first=1, fail_status=429, retry_after=7) as server:
        llm = OpenAICompatibleLLM(server.base_url, "m", backoff=0.1)
        assert llm.complete("x").text == "fine"
    assert waits == [7.0]


def test_exhausted_retries_raise_server_error_naming_the_url(waits: list[float]) -> None:
    with serve_fake_openai(["never"], fail_first=10, fail_status=503) as server:
        llm = OpenAICompatibleLLM(server.base_url, "m", max_retries=2, backoff=0.1)
        with pytest.raises(LLMServerError) as caught:
            llm.complete("x")
        message = str(caught.value)
        assert f"{server.base_url}/completions" in message
        assert "HTTP 503" in message and "scripted failure 3 of 10" in message
    assert len(server.requests) == 3
    assert waits == [0.1, 0.2]


def test_unreachable_server_raises_server_error_naming_the_url(waits: list[float]) -> None:
    url = f"http://127.0.0.1:{free_port()}"
    llm = OpenAICompatibleLLM(url, "m", max_retries=1, backoff=0.0)
    with pytest.raises(LLMServerError, match=f"{url}/v1/completions failed 2 time.*connection failed"):
        llm.complete("x")
    assert waits == [0.0]


def test_client_errors_fail_at_once_with_the_server_message(waits: list[float]) -> None:
    with serve_fake_openai(["only one"]) as server:
        llm = OpenAICompatibleLLM(server.base_url, "m")
        llm.complete("first")
        with pytest.raises(LLMError, match="HTTP 400: the fake server ran out of its 1 scripted replies") as caught:
            llm.complete("second")
    assert not isinstance(caught.value, LLMServerError)
    assert len(server.requests) == 2 and waits == []


@pytest.mark.parametrize(("status", "refused"), [(400, True), (413, True), (422, True), (401, False), (404, False)])
def test_a_request_refused_as_sent_is_an_error_a_rerun_repeats(status: int, refused: bool,
                                                               waits: list[float]) -> None:
    """Issue 70: a prompt longer than the context (HTTP 400) was an LLMError, which a rerun retries."""
    with serve_fake_openai(["never sent"], faults=[Fault("status", status=status)]) as server:
        llm = OpenAICompatibleLLM(server.base_url, "m")
        with pytest.raises(LLMError, match=f"refused the request with HTTP {status}") as caught:
            llm.complete("a prompt of 1.6M tokens")
    assert isinstance(caught.value, RequestRefusedError) is refused
    assert (type(caught.value).__name__ in DETERMINISTIC_FAILURES) is refused
    assert len(server.requests) == 1 and waits == []


def test_time_outs_are_retried(waits: list[float]) -> None:
    with serve_fake_openai(["after the stall"], stall_first=1, stall_seconds=3) as server:
        llm = OpenAICompatibleLLM(server.base_url, "m", timeout=0.3, backoff=0.0)
        assert llm.complete("x").text == "after the stall"
    assert len(server.requests) == 2
    assert waits == [0.0]


@pytest.mark.parametrize("endpoint", ["completions", "chat"])
def test_a_null_answer_is_an_error_naming_the_url_not_an_empty_text(endpoint: str, waits: list[float]) -> None:
    """Issue item 4: null content used to come back as "" (then stored as a successful empty answer)."""
    with serve_fake_openai(lambda prompt: "Paris", faults=[Fault("null")]) as server:
        llm = OpenAICompatibleLLM(server.base_url, "m", endpoint=endpoint)  # type: ignore[arg-type]
        with pytest.raises(LLMError, match=rf"{server.base_url}/.*answered with no text .*is None"):
            llm.complete("capital of France?")
    assert len(server.requests) == 1 and waits == []  # not retried: the same request would say the same


def test_a_filtered_answer_is_an_error_saying_so() -> None:
    with serve_fake_openai(lambda prompt: "Paris", faults=[Fault("content_filter")]) as server:
        llm = OpenAICompatibleLLM(server.base_url, "m", endpoint="chat")
        with pytest.raises(LLMError, match=r"withheld the answer \(finish_reason 'content_filter'"):
            llm.complete("capital of France?")


def test_a_truncated_answer_keeps_its_text_and_reports_finish_reason_length() -> None:
    with serve_fake_openai(lambda prompt: "Paris is the capital city", faults=[Fault("length")]) as server:
        llm = OpenAICompatibleLLM(server.base_url, "m")
        cut = llm.complete("capital of France?", max_tokens=2)
        whole = llm.complete("capital of France?")
    assert (cut.text, cut.finish_reason) == ("Paris is", "length")
    assert (whole.text, whole.finish_reason) == ("Paris is the capital city", "stop")


@pytest.mark.parametrize("kind", ["drop", "truncated_body"])
def test_a_connection_dropped_mid_reply_is_retried(kind: str, waits: list[float]) -> None:
    with serve_fake_openai(lambda prompt: "Paris", faults=[Fault(kind)]) as server:
        llm = OpenAICompatibleLLM(server.base_url, "m", backoff=0.0)
        assert llm.complete("capital of France?").text == "Paris"
    assert len(server.requests) == 2 and waits == [0.0]


def test_a_malformed_body_is_an_error_quoting_it() -> None:
    with serve_fake_openai(lambda prompt: "Paris", faults=[Fault("malformed")]) as server:
        llm = OpenAICompatibleLLM(server.base_url, "m")
        with pytest.raises(LLMError, match="body that is not JSON"):
            llm.complete("capital of France?")


def test_requests_at_once_each_have_a_connection_kept_for_the_next_ones() -> None:
    """Requests at once open a connection each; the requests that follow reuse them; closing drops them."""
    import threading

    with serve_fake_openai(lambda prompt: "ok", faults=lambda number, prompt: Fault("delay", seconds=0.3)) as running:
        llm = OpenAICompatibleLLM(running.base_url, "m")
        threads = [threading.Thread(target=llm.complete, args=(f"q{i}",)) for i in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        at_once = {request.client_port for request in running.requests}
        for i in range(6):
            llm.complete(f"after {i}")
        later = {request.client_port for request in running.requests[4:]}
        llm.close()
        llm.complete("after closing")
    assert len(at_once) == 4
    assert later <= at_once
    assert running.requests[-1].client_port not in at_once


def test_a_request_in_flight_when_the_model_is_closed_finishes_and_its_connection_is_dropped() -> None:
    import threading

    with serve_fake_openai(lambda prompt: "ok", faults=lambda number, prompt: Fault("delay", seconds=0.5)) as running:
        llm = OpenAICompatibleLLM(running.base_url, "m")
        answers: list[str] = []
        flight = threading.Thread(target=lambda: answers.append(llm.complete("slow").text))
        flight.start()
        wait_until(lambda: bool(running.requests), 10, "the slow request to arrive")
        llm.close()
        flight.join()
        llm.complete("next")
    assert answers == ["ok"]
    assert running.requests[1].client_port != running.requests[0].client_port
