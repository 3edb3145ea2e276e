"""The "chat" capability: system and user turns through each backend and wrapper."""

from pathlib import Path

import pytest

from hopkit.errors import LLMError
from hopkit.llm.cache import CachedLLM
from hopkit.llm.fake import ScriptedLLM
from hopkit.llm.meter import MeteredLLM
from hopkit.llm.openai_compat import OpenAICompatibleLLM
from hopkit.llm.protocol import CHAT, ChatMessage
from hopkit.llm.capabilities import supports
from hopkit.llm.testing_server import serve_fake_openai
from hopkit.usage import track_usage

pytestmark = pytest.mark.unit

TURNS = [ChatMessage("system", "Answer briefly."), ChatMessage("user", "Capital of France?")]


def test_scripted_model_lays_out_the_turns_and_records_them() -> None:
    llm = ScriptedLLM(["Paris\nmore"], chat=True)
    completion = llm.complete_chat(TURNS, stop=["\n"])
    assert completion.text == "Paris"
    assert llm.prompts == ["<|system|>\nAnswer briefly.\n<|user|>\nCapital of France?\n<|assistant|>\n"]


def test_a_model_without_chat_says_so_through_every_wrapper(tmp_path: Path) -> None:
    plain = ScriptedLLM(["x"])
    for llm in (plain, MeteredLLM(plain), CachedLLM(plain, tmp_path / "c.sqlite")):
        assert not supports(llm, CHAT)
        with pytest.raises(LLMError, match=r"does not support 'chat' \(complete_chat\)"):
            llm.complete_chat(TURNS)


def test_meter_counts_a_chat_call() -> None:
    llm = MeteredLLM(ScriptedLLM(["Paris"], chat=True))
    assert supports(llm, CHAT)
    with track_usage() as usage:
        llm.complete_chat(TURNS)
    assert usage.llm_calls == 1 and usage.completion_tokens == 1 and usage.prompt_tokens > 0


def test_cache_keys_on_the_turns(tmp_path: Path) -> None:
    inner = ScriptedLLM(["Paris", "Lyon", "Nice"], chat=True)
    llm = CachedLLM(inner, tmp_path / "c.sqlite")
    first = llm.complete_chat(TURNS)
    again = llm.complete_chat(TURNS)
    other = llm.complete_chat([ChatMessage("system", "Answer at length."), TURNS[1]])
    assert (first.text, again.text, again.from_cache, other.text) == ("Paris", "Paris", True, "Lyon")
    assert len(inner.prompts) == 2


def test_chat_and_plain_prompts_never_share_a_cache_entry(tmp_path: Path) -> None:
    inner = ScriptedLLM(["from chat", "from plain"], chat=True)
    llm = CachedLLM(inner, tmp_path / "c.sqlite")
    rendered = "<|user|>\nhi\n<|assistant|>\n"
    assert llm.complete_chat([ChatMessage("user", "hi")]).text == "from chat"
    assert llm.complete(rendered).text == "from plain"


def test_server_chat_endpoint_sends_every_role() -> None:
    with serve_fake_openai(["Paris"]) as server:
        llm = OpenAICompatibleLLM(server.base_url, "m", endpoint="chat", max_retries=0)
        assert supports(llm, CHAT)
        assert llm.complete_chat(TURNS, max_tokens=5).text == "Paris"
        assert server.requests[0].path == "/v1/chat/completions"
        assert server.requests[0].body["messages"] == [{"role": "system", "content": "Answer briefly."},
                                                        {"role": "user", "content": "Capital of France?"}]


def test_server_completions_endpoint_has_no_chat() -> None:
    llm = OpenAICompatibleLLM("http://127.0.0.1:9", "m", endpoint="completions")
    assert not supports(llm, CHAT)
    with pytest.raises(LLMError, match="endpoint: chat"):
        llm.complete_chat(TURNS)


def test_langchain_chat_model_gets_system_and_human_messages() -> None:
    pytest.importorskip("langchain_core")
    from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
    from langchain_core.messages import AIMessage

    from hopkit.llm.langchain import LangChainLLM

    seen: list[object] = []

    class Recording(FakeMessagesListChatModel):
        def _generate(self, messages, stop=None, run_manager=None, **kwargs):  # type: ignore[no-untyped-def]
            seen.append(messages)
            return super()._generate(messages, stop=stop, run_manager=run_manager, **kwargs)

    llm = LangChainLLM(Recording(responses=[AIMessage(content="Paris")]), pass_options=False)
    assert supports(llm, CHAT)
    assert llm.complete_chat(TURNS).text == "Paris"
    kinds = [(type(m).__name__, m.content) for m in seen[0]]  # type: ignore[attr-defined]
    assert kinds == [("SystemMessage", "Answer briefly."), ("HumanMessage", "Capital of France?")]


def test_gguf_chat_template_renders_turns_without_a_second_bos() -> None:
    pytest.importorskip("llama_cpp")
    from hopkit.llm.chat_template import ChatTemplate

    template = ("{{ bos_token }}{% for m in messages %}<|{{ m['role'] }}|>{{ m['content'] }}<|end|>{% endfor %}"
                "{% if add_generation_prompt %}<|assistant|>{% endif %}")
    rendered = ChatTemplate(template, bos_token="<s>", eos_token="</s>").render(TURNS)
    assert rendered == "<|system|>Answer briefly.<|end|><|user|>Capital of France?<|end|><|assistant|>"
    with pytest.raises(LLMError, match="at least one message"):
        ChatTemplate(template, bos_token="<s>", eos_token="</s>").render([])


def test_a_template_that_refuses_a_role_is_an_llm_error() -> None:
    pytest.importorskip("llama_cpp")
    from hopkit.llm.chat_template import ChatTemplate

    strict = "{% for m in messages %}{% if m['role'] == 'system' %}{{ raise_exception('no system') }}{% endif %}{% endfor %}"
    with pytest.raises(LLMError, match="chat template rejected the messages: no system"):
        ChatTemplate(strict, bos_token="", eos_token="").render(TURNS)


BEGUN = [ChatMessage("user", "Capital of France?"), ChatMessage("assistant", "<think> It is")]


def test_a_last_assistant_turn_is_continued_not_closed() -> None:
    """Issue 51: a search agent's turn holds its reasoning and the documents; the model goes on from it."""
    pytest.importorskip("llama_cpp")
    from hopkit.llm.chat_template import ChatTemplate

    template = ("{% for m in messages %}<|{{ m['role'] }}|>{{ m['content'] }}<|end|>{% endfor %}"
                "{% if add_generation_prompt %}<|assistant|>{% endif %}")
    chat = ChatTemplate(template, bos_token="", eos_token="")
    assert chat.render_continuing(BEGUN) == "<|user|>Capital of France?<|end|><|assistant|><think> It is"
    assert chat.render_continuing(TURNS) == chat.render(TURNS)
    with pytest.raises(LLMError, match="cannot begin with the assistant"):
        chat.render_continuing(BEGUN[1:])
    scripted = ScriptedLLM([" Paris"], chat=True)
    assert scripted.complete_chat(BEGUN).text == " Paris"
    assert scripted.prompts == ["<|user|>\nCapital of France?\n<|assistant|>\n<think> It is"]


def test_a_server_is_asked_to_continue_a_last_assistant_turn() -> None:
    with serve_fake_openai([" Paris", "Paris"]) as server:
        llm = OpenAICompatibleLLM(server.base_url, "m", endpoint="chat", max_retries=0)
        llm.complete_chat(BEGUN, max_tokens=5)
        llm.complete_chat(TURNS, max_tokens=5)
        continued, fresh = (request.body for request in server.requests)
    assert continued["messages"][-1] == {"role": "assistant", "content": "<think> It is"}
    assert continued["continue_final_message"] is True and continued["add_generation_prompt"] is False
    assert "continue_final_message" not in fresh
