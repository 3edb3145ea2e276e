import pytest

from hopkit.llm.kv_states import KVState, KVStateCache, shared_prefix_length

pytestmark = pytest.mark.unit


def state(*tokens: int) -> KVState:
    return KVState(tokens=tokens, data=bytes(tokens))


def test_shared_prefix_length() -> None:
    assert shared_prefix_length([], [1, 2]) == 0
    assert shared_prefix_length([1, 2, 3], [1, 2, 4, 5]) == 2
    assert shared_prefix_length([1, 2, 3, 4], [1, 2]) == 2


def test_best_is_the_state_sharing_the_longest_prefix() -> None:
    cache = KVStateCache(4)
    cache.remember(state(1, 2, 3))
    cache.remember(state(1, 2, 9, 9))
    cache.remember(state(7, 7))
    length, best = cache.best([1, 2, 3, 4])
    assert (length, best) == (3, state(1, 2, 3))
    assert cache.best([5]) == (0, None)


def test_over_capacity_the_older_of_the_closest_pair_goes() -> None:
    cache = KVStateCache(3)
    reasoning_q1 = state(1, 1, 1, 1, 5)  # one question's growing reasoning prompt ...
    reader_q1 = state(2, 2, 2, 6)
    reasoning_q1_later = state(1, 1, 1, 1, 5, 8)  # ... and its next step
    reasoning_q2 = state(1, 1, 1, 3)
    for s in (reasoning_q1, reader_q1, reasoning_q1_later, reasoning_q2):
        cache.remember(s)
    assert len(cache) == 3
    assert cache.best([1, 1, 1, 1, 5]) == (5, reasoning_q1_later)  # the earlier step was dropped
    assert cache.best([2, 2, 2, 7]) == (3, reader_q1)  # the reader's prefix survived


def test_states_of_prompts_that_never_return_age_out() -> None:
    # Every prompt opens with the BOS token (0). A finished zero-shot run left states that
    # share only "Question:" (0, 7, 7); IRCoT's reasoning and reader prompts share the
    # paragraphs of the first demonstration (5, 5, 5, 5) and then differ. The stale states
    # must not keep the slots those two prompt families need.
    cache = KVStateCache(4)
    for question in (41, 42, 43, 44):
        cache.remember(state(0, 7, 7, *[question] * 20))
    reasoning_demos, reader_demos = (0, 5, 5, 5, 5, *[1] * 10), (0, 5, 5, 5, 5, *[2] * 10)
    for question in range(3):
        for step in range(3):
            cache.remember(state(*reasoning_demos, question, step))
        cache.remember(state(*reader_demos, question))
    assert cache.best([*reasoning_demos, 9])[0] == len(reasoning_demos)  # the next question's reasoning
    assert cache.best([*reader_demos, 9])[0] == len(reader_demos)  # and its reader find their demos


def test_the_same_tokens_are_kept_once_and_capacity_zero_keeps_nothing() -> None:
    cache = KVStateCache(3)
    cache.remember(state(1, 2))
    cache.remember(state(1, 2))
    assert len(cache) == 1
    empty = KVStateCache(0)
    empty.remember(state(1, 2))
    assert len(empty) == 0 and empty.best([1, 2]) == (0, None)
    with pytest.raises(ValueError, match="capacity >= 0"):
        KVStateCache(-1)
