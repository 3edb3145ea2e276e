"""One contract every LLM backend and wrapper keeps, checked over all of them.

Backends: llama.cpp (the real SmolLM2 GGUF), the OpenAI-compatible HTTP client and a LangChain
chat model (both against the loopback server), the scripted fake; wrappers: the response cache
and the usage meter, around a backend with every capability and around one with none. A new
backend or wrapper joins by one entry in ``BUILDERS``.

The contract: it is an ``LLM`` with a model id and a context length; ``complete`` gives a
``Completion`` whose text stops before a stop sequence, with token counts and seconds that are
not negative; ``count_tokens`` counts; ``capabilities`` names only known capabilities, each
with its method working; and a capability it does not declare is refused with an ``LLMError``
naming it, never half-served.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Iterator

import pytest

from hopkit.errors import LLMError
from hopkit.llm.cache import CachedLLM
from hopkit.llm.fake import ScriptedLLM
from hopkit.llm.langchain import as_llm
from hopkit.llm.meter import MeteredLLM
from hopkit.llm.openai_compat import OpenAICompatibleLLM
from hopkit.llm.protocol import (ATTENTION, CHAT, EARLY_STOP, LLM, SAMPLING, SCORING, TOKEN_SCORING, ChatMessage,
                                 Completion, Scores)
from hopkit.llm.capabilities import CAPABILITY_METHODS, capabilities_of, require
from hopkit.llm.testing_server import FakeOpenAIServer, serve_fake_openai

pytestmark = pytest.mark.unit

PROMPT = "Q: Where is Tarsk?\nA:"
REPLY = "Tarsk is a port.\nQ: another question"
LOGPROBS = {" yes": -0.2, " no": -1.8}
KNOWN = {EARLY_STOP, SCORING, TOKEN_SCORING, CHAT, SAMPLING, ATTENTION, "concurrent_calls"}


def first_line_settled(text: str) -> bool:
    """An early-stop predicate: the first line is written."""
    return "\n" in text


def scripted(**options: Any) -> ScriptedLLM:
    return ScriptedLLM(lambda prompt: REPLY, **options)


def full_scripted() -> ScriptedLLM:
    return scripted(scores=LOGPROBS, streaming=True, chat=True, sampling=True, entropies=0.5)


def llama_cpp(_: FakeOpenAIServer, __: Path) -> LLM:
    from hopkit.llm.llama_cpp import LlamaCppLLM

    return LlamaCppLLM.load(n_ctx=1024)


BUILDERS: dict[str, Callable[[FakeOpenAIServer, Path], LLM]] = {
    "scripted": lambda server, tmp: full_scripted(),
    "scripted-bare": lambda server, tmp: scripted(),
    "openai-completions": lambda server, tmp: OpenAICompatibleLLM(server.base_url, "fake", endpoint="completions",
                                                                  max_retries=0),
    "openai-chat": lambda server, tmp: OpenAICompatibleLLM(server.base_url, "fake", endpoint="chat", max_retries=0),
    "langchain": lambda server, tmp: as_llm(__import__("langchain_openai").ChatOpenAI(
        base_url=server.base_url, api_key="x", model="fake-chat", max_retries=0)),
    "cache": lambda server, tmp: CachedLLM(full_scripted(), tmp / "cache.sqlite"),
    "cache-bare": lambda server, tmp: CachedLLM(scripted(), tmp / "cache.sqlite"),
    "meter": lambda server, tmp: MeteredLLM(full_scripted()),
    "meter-bare": lambda server, tmp: MeteredLLM(scripted()),
    "meter-over-cache": lambda server, tmp: MeteredLLM(CachedLLM(full_scripted(), tmp / "cache.sqlite")),
    "llama.cpp": llama_cpp,
}


@pytest.fixture(params=sorted(BUILDERS))
def llm(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[LLM]:
    with serve_fake_openai(lambda prompt: REPLY, logprobs=LOGPROBS) as server:
        yield BUILDERS[request.param](server, tmp_path)


def check_completion(completion: Completion) -> None:
    assert isinstance(completion, Completion) and isinstance(completion.text, str)
    assert "\n" not in completion.text  # the stop sequence, never in the text
    assert completion.prompt_tokens >= 0 and completion.completion_tokens >= 0 and completion.seconds >= 0
    assert 0 <= completion.cached_prompt_tokens <= max(completion.prompt_tokens, completion.cached_prompt_tokens)


def test_every_backend_and_wrapper_keeps_the_contract(llm: LLM) -> None:
    assert isinstance(llm, LLM)
    assert isinstance(llm.model_id, str) and llm.model_id
    assert isinstance(llm.context_length, int) and llm.context_length > 0
    check_completion(llm.complete(PROMPT, stop=["\n"], max_tokens=8))
    assert llm.count_tokens("Tarsk is a port city.") >= 1
    capabilities = capabilities_of(llm)
    assert capabilities <= KNOWN

    if SCORING in capabilities:
        scores = llm.score_continuations(PROMPT, [" yes", " no"])  # type: ignore[attr-defined]
        assert isinstance(scores, Scores) and len(scores) == 2 and all(value <= 0 for value in scores)
    if TOKEN_SCORING in capabilities:
        tokens = llm.score_tokens(PROMPT, " Tarsk is a port.")  # type: ignore[attr-defined]
        assert "".join(tokens.tokens) == " Tarsk is a port." and all(value <= 0 for value in tokens.logprobs)
    if SAMPLING in capabilities:
        check_completion(llm.complete_sample(PROMPT, 1, stop=["\n"], max_tokens=8))  # type: ignore[attr-defined]
    if CHAT in capabilities:
        check_completion(llm.complete_chat([ChatMessage("user", "Where is Tarsk?")],  # type: ignore[attr-defined]
                                           stop=["\n"], max_tokens=8))
    if EARLY_STOP in capabilities:
        check_completion(llm.complete_until(PROMPT, first_line_settled, stop=["\n"],  # type: ignore[attr-defined]
                                            max_tokens=8))

    if ATTENTION in capabilities:
        attended = llm.complete_attended(PROMPT, stop=["\n"], max_tokens=8)  # type: ignore[attr-defined]
        check_completion(attended.completion)
        assert len(attended.tokens) == len(attended.entropies) == attended.attention.weights.shape[1]
        attention = llm.attend("Where is Tarsk?")  # type: ignore[attr-defined]
        assert attention.weights.shape[1:] == (len(attention.tokens),) * 2

    for capability in sorted(set(CAPABILITY_METHODS) - capabilities):
        with pytest.raises(LLMError, match=capability):
            require(llm, capability)  # type: ignore[arg-type]
        for name in CAPABILITY_METHODS[capability]:
            method = getattr(llm, name, None)
            if method is None:
                continue
            with pytest.raises(LLMError, match=capability):  # a wrapper has every method: it must refuse
                if capability == SCORING:
                    method(PROMPT, [" yes"])
                elif capability == CHAT:
                    method([ChatMessage("user", "Where is Tarsk?")])
                elif capability == ATTENTION:
                    method(PROMPT)
                else:
                    method(PROMPT, first_line_settled)


def test_wrappers_declare_exactly_what_they_wrap(tmp_path: Path) -> None:
    for inner in (full_scripted(), scripted()):
        for wrapper in (CachedLLM(inner, tmp_path / "c.sqlite"), MeteredLLM(inner)):
            assert capabilities_of(wrapper) == capabilities_of(inner)
            assert (wrapper.model_id, wrapper.context_length) == (inner.model_id, inner.context_length)
