"""Decoding threads: every core by default, and the same greedy text whatever the thread count."""

from typing import Iterator

import pytest

from hopkit.llm.llama_cpp import LlamaCppLLM, available_cores

pytestmark = pytest.mark.integration

PROMPTS = (
    "Q: What is the capital city of France?\nA: The capital city of France is",
    "Here is a list of ten fruits, one per line:\n1.",
    "Wikipedia Title: Avel\nThe Avel is a river that rises in the hills above Marrow and flows west for 80 km "
    "to the sea at Kesting, where its mouth forms a wide estuary. Along its banks",
)


@pytest.fixture(scope="module")
def by_default() -> Iterator[LlamaCppLLM]:
    model = LlamaCppLLM.load(n_ctx=1024)
    yield model
    model.close()


def test_prompt_and_decoding_threads_default_to_every_available_core(by_default: LlamaCppLLM) -> None:
    # llama-cpp-python alone decodes on half the cores: one thread on a two-core machine
    assert by_default._model.n_threads == available_cores()
    assert by_default._model.n_threads_batch == available_cores()


def test_greedy_text_is_the_same_on_one_thread_and_on_every_core(by_default: LlamaCppLLM) -> None:
    one_thread = LlamaCppLLM.load(n_ctx=1024, n_threads=1)
    try:
        for prompt in PROMPTS:
            single = one_thread.complete(prompt, max_tokens=40)
            every = by_default.complete(prompt, max_tokens=40)
            assert single.text.strip(), prompt
            assert every.text == single.text, prompt
    finally:
        one_thread.close()
