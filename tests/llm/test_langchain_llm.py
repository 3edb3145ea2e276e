from typing import Any, Iterator

import pytest

from hopkit.errors import ConfigError, LLMError, LLMServerError
from hopkit.llm.fake import ScriptedLLM
from hopkit.llm.langchain import LangChainLLM, as_llm
from hopkit.llm.protocol import EARLY_STOP, LLM, SCORING
from hopkit.llm.capabilities import supports
from hopkit.llm.testing_server import FakeOpenAIServer, serve_fake_openai

pytestmark = pytest.mark.unit

langchain_openai = pytest.importorskip("langchain_openai")


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with serve_fake_openai(["Thus the answer is: Paris.\nQ: next question"] * 3) as running:
        yield running


def chat_model(server: FakeOpenAIServer, **options: Any) -> Any:
    return langchain_openai.ChatOpenAI(base_url=server.base_url, api_key="x", model="fake-chat", max_retries=0,
                                       **options)


def test_chat_model_against_loopback_server(server: FakeOpenAIServer) -> None:
    llm = LangChainLLM(chat_model(server))
    completion = llm.complete("Q: capital of France?\nA:", stop=["\n"], max_tokens=40, temperature=0.0)
    assert completion.text == "Thus the answer is: Paris."
    # from usage_metadata: the fake server counts whitespace words (an estimate would say 9 and 7)
    assert completion.prompt_tokens == 5 and completion.completion_tokens == 5
    assert llm.model_id == "langchain:ChatOpenAI:fake-chat"
    request = server.requests[0]
    assert request.path == "/v1/chat/completions"
    assert request.body["messages"] == [{"role": "user", "content": "Q: capital of France?\nA:"}]
    assert request.body["stop"] == ["\n"]
    assert request.body["temperature"] == 0.0
    assert 40 in (request.body.get("max_tokens"), request.body.get("max_completion_tokens"))


def test_pass_options_off_sends_only_the_models_own_settings(server: FakeOpenAIServer) -> None:
    llm = LangChainLLM(chat_model(server, temperature=0.7), pass_options=False)
    llm.complete("hello", max_tokens=12, temperature=0.0)
    body = server.requests[0].body
    assert body["temperature"] == 0.7
    assert 12 not in (body.get("max_tokens"), body.get("max_completion_tokens"))


def test_client_errors_are_plain_llm_errors(server: FakeOpenAIServer) -> None:
    llm = LangChainLLM(chat_model(server))
    for _ in range(3):
        llm.complete("use up the script")
    with pytest.raises(LLMError, match="ran out of its 3 scripted replies") as caught:
        llm.complete("one more")
    assert not isinstance(caught.value, LLMServerError)


def test_stop_is_applied_even_if_the_model_ignores_it() -> None:
    from langchain_core.language_models.fake_chat_models import FakeListChatModel

    llm = LangChainLLM(FakeListChatModel(responses=["first line\nsecond line"]), pass_options=False)
    completion = llm.complete("one two", stop=["\n"])
    assert completion.text == "first line"
    assert completion.prompt_tokens == 2  # no usage_metadata: estimated


def test_provider_errors_become_llm_errors() -> None:
    with serve_fake_openai([], fail_first=5, fail_status=500) as server:
        llm = LangChainLLM(chat_model(server))
        with pytest.raises(LLMServerError, match="langchain:ChatOpenAI:fake-chat failed: .*500.*scripted failure"):
            llm.complete("x")


def test_as_llm_keeps_llms_wraps_langchain_models_and_rejects_the_rest(server: FakeOpenAIServer) -> None:
    scripted = ScriptedLLM(["a"])
    assert as_llm(scripted) is scripted
    wrapped = as_llm(chat_model(server))
    assert isinstance(wrapped, LangChainLLM) and isinstance(wrapped, LLM)
    assert wrapped.complete("q").text.startswith("Thus the answer is")
    with pytest.raises(ConfigError, match="builtins.str"):
        as_llm("gpt-4o")


def test_plain_langchain_llms_get_the_prompt_string() -> None:
    from langchain_core.language_models.fake import FakeListLLM

    llm = as_llm(FakeListLLM(responses=["Paris.\nQ: more"]))
    assert isinstance(llm, LangChainLLM)
    assert llm.complete("Q: capital of France?\nA:", stop=["\n"]).text == "Paris."


def test_a_chat_model_with_logprobs_scores_the_first_token_of_its_reply() -> None:
    with serve_fake_openai([], logprobs={"yes": -0.2, "no": -1.8, "Yes": -3.0}) as server:
        llm = LangChainLLM(chat_model(server), top_logprobs=5)
        assert supports(llm, SCORING) and not supports(llm, EARLY_STOP)
        scores = llm.score_continuations("Is Paris in France? Answer yes or no.", ["yes", "no"])
    assert list(scores) == [-0.2, -1.8] and scores.floored == ()
    body = server.requests[0].body
    assert (body["logprobs"], body["top_logprobs"]) == (True, 5)
    assert 1 in (body.get("max_tokens"), body.get("max_completion_tokens"))


def test_a_provider_that_returns_no_logprobs_is_a_clear_error(server: FakeOpenAIServer) -> None:
    llm = LangChainLLM(chat_model(server))  # the server has no logprobs table: it answers "logprobs": null
    with pytest.raises(LLMError, match=r"langchain:ChatOpenAI:fake-chat returned no logprobs .*does not return "
                                       "log-probabilities"):
        llm.score_continuations("Is it?", ["yes", "no"])


def test_models_without_a_logprobs_option_do_not_offer_scoring() -> None:
    from langchain_core.language_models.fake import FakeListLLM
    from langchain_core.language_models.fake_chat_models import FakeListChatModel

    chat = LangChainLLM(FakeListChatModel(responses=["yes"]))
    assert chat.capabilities == frozenset({"concurrent_calls", "chat"})  # no scoring
    assert LangChainLLM(FakeListLLM(responses=["yes"])).capabilities == frozenset({"concurrent_calls"})  # no chat
    with pytest.raises(LLMError, match=r"LangChainLLM\('langchain:FakeListChatModel:default'\) does not support "
                                       "'scoring'"):
        chat.score_continuations("Is it?", ["yes"])
    with pytest.raises(ConfigError, match="cannot score with a FakeListLLM"):
        LangChainLLM(FakeListLLM(responses=["yes"]), scoring=True)
    assert supports(LangChainLLM(FakeListChatModel(responses=["yes"]), scoring=True), SCORING)  # the user's word
