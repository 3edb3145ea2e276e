"""RIND: words merged from tokens as the authors merge them, scores of entropy x attention normalised within
each sentence, stopwords never firing, and the answer's sentence left unchecked."""

from __future__ import annotations

import numpy as np
import pytest

from hopkit.judges.sentences import SyntokSplitter
from hopkit.llm.fake import uniform_attention
from hopkit.llm.protocol import AttendedCompletion, Attention, Completion
from hopkit.methods.dragin.rind import attention_received, detect, is_real_word, words_of

pytestmark = pytest.mark.unit


def attended(tokens: list[str], entropies: list[float], weights: np.ndarray | None = None) -> AttendedCompletion:
    attention = uniform_attention(tokens) if weights is None else Attention(tuple(tokens), weights)
    return AttendedCompletion(completion=Completion("".join(tokens), 1, len(tokens), 0.0), tokens=tuple(tokens),
                              entropies=tuple(entropies), attention=attention)


def test_words_start_at_whitespace_and_after_a_newline() -> None:
    words = words_of(["Ada", " Qu", "ill", " was", " born", ".", "\n", "So"])
    assert [(w.text, w.start, w.end) for w in words] == [
        ("Ada", 0, 1), ("Quill", 1, 3), ("was", 3, 4), ("born.", 4, 6), ("", 6, 7), ("So", 7, 8)]


def test_real_words_are_content_words_without_their_edge_punctuation() -> None:
    assert [is_real_word(w) for w in ["Tarsk.", "1871", "the", "was", "(", "\"Power\"", "Of"]] == [
        True, True, False, False, False, True, False]


def test_the_attention_a_token_receives_is_the_maximum_over_its_readers_averaged_over_heads() -> None:
    weights = np.array([[[1, 0, 0], [0.5, 0.5, 0], [0.2, 0.3, 0.5]],
                        [[1, 0, 0], [0.9, 0.1, 0], [0.6, 0.2, 0.2]]], dtype=np.float32)
    received = attention_received(Attention(("a", " b", " c"), weights))
    assert received == pytest.approx([1.0, (0.5 + 0.2) / 2, (0.5 + 0.2) / 2])


def test_a_sure_generation_needs_nothing() -> None:
    tokens = ["Ada", " Quill", " founded", " Velmora", "."]
    assert detect(attended(tokens, [0.1] * 5), SyntokSplitter(), threshold=1.4) is None


def test_the_first_sentence_with_an_uncertain_content_word_fires_and_keeps_the_sentences_before() -> None:
    tokens = ["Ada", " Quill", " founded", " it", ".", " She", " was", " born", " in", " Zorn", "."]
    entropies = [0.1] * 9 + [4.0, 0.1]
    trigger = detect(attended(tokens, entropies), SyntokSplitter(), threshold=1.4)
    assert trigger is not None
    assert trigger.sentence == "She was born in Zorn."
    assert trigger.before == "Ada Quill founded it."
    assert trigger.words == ("She", "was", "born", "in", "Zorn.")
    assert trigger.hit_words == ("Zorn.",)
    # the sentence's five words share its attention ("Zorn." has two tokens: their attention summed, their
    # entropy averaged); a word's score is its share x its entropy x the sentence's 5 words
    received = attention_received(uniform_attention(tokens))[5:]
    words = [*received[:4], received[4] + received[5]]
    assert trigger.scores[4] == pytest.approx(words[4] / sum(words) * (4.0 + 0.1) / 2 * 5)


def test_a_stopword_never_fires_however_uncertain() -> None:
    tokens = ["Ada", " was", " the", " founder", "."]
    assert detect(attended(tokens, [0.1, 0.1, 9.0, 0.1, 0.1]), SyntokSplitter(), threshold=1.4) is None


def test_an_uncertain_answer_sentence_triggers_retrieval() -> None:
    tokens = ["Ada", " was", " born", " there", ".", " So", " the", " answer", " is", " Zorn", "."]
    trigger = detect(attended(tokens, [0.1] * 9 + [5.0, 5.0]), SyntokSplitter(), threshold=1.4)
    assert trigger is not None and trigger.sentence == "So the answer is Zorn."
    assert trigger.before == "Ada was born there." and trigger.hit_words == ("Zorn.",)


def test_scores_that_are_not_numbers_never_fire() -> None:
    tokens = ["Ada", " Quill", " founded", " it", "."]
    for value in (float("nan"), float("-inf"), -3.0):
        assert detect(attended(tokens, [value] * 5), SyntokSplitter(), threshold=1.4) is None


def test_an_empty_generation_needs_nothing() -> None:
    assert detect(attended([], []), SyntokSplitter(), threshold=1.4) is None
