"""QFS: the query is the content words the triggering words attend to most (from the positions that predicted
their tokens), in text order, the triggering words left out."""

from __future__ import annotations

import numpy as np
import pytest

from hopkit.errors import LLMError
from hopkit.llm.fake import uniform_attention
from hopkit.llm.protocol import Attention
from hopkit.methods.dragin.qfs import attended_text, query_of, word_attention
from hopkit.methods.dragin.rind import Trigger, words_of

pytestmark = pytest.mark.unit

TRIGGER = Trigger(sentence="She was born in Zorn.", before="Ada Quill founded it.",
                  words=("She", "was", "born", "in", "Zorn."), scores=(0.1, 0.1, 0.2, 0.1, 3.0),
                  hits=(False, False, False, False, True))


def test_the_model_reads_the_question_the_text_so_far_and_the_sentence() -> None:
    assert attended_text("Where?", "", TRIGGER) == "Where?  Ada Quill founded it. She was born in Zorn."  # theirs


def test_the_words_attended_most_are_kept_in_text_order() -> None:
    tokens = ["Where", " was", " Ada", " born", "?", " She", " was", " born", " in", " Zorn", "."]
    n = len(tokens)
    weights = np.full((1, n, n), 1e-3, dtype=np.float32)
    weights[0, 8, 2] = 0.9   # the position before "Zorn" looks at "Ada"
    weights[0, 8, 3] = 0.5   # ...and at "born" (the question's)
    weights[0] = np.tril(weights[0])
    weights[0] /= weights[0].sum(axis=1, keepdims=True)
    trigger = Trigger(sentence="She was born in Zorn.", before="", words=("She", "was", "born", "in", "Zorn."),
                      scores=(0, 0, 0, 0, 3.0), hits=(False, False, False, False, True))
    assert query_of(Attention(tuple(tokens), weights), trigger, keep=2) == "Ada born?"
    assert query_of(Attention(tuple(tokens), weights), trigger, keep=35) == "Ada born? born"  # "Where": a function word


def test_a_words_attention_sums_to_one_over_the_words_before_it() -> None:
    tokens = ["Ada", " Qu", "ill", " was", " born"]
    words = words_of(tokens)
    rows = word_attention(uniform_attention(tokens), words, [2, 3])
    assert rows.sum(axis=1) == pytest.approx([1.0, 1.0])
    assert rows[0, 2:].sum() == 0 and rows[1, 3:].sum() == 0


def test_no_triggering_word_in_the_text_read_gives_no_query() -> None:
    lonely = Trigger(sentence="Zorn.", before="", words=("Zorn.",), scores=(3.0,), hits=(True,))
    assert query_of(uniform_attention(["Zorn", "."]), lonely, keep=35) == ""


def test_a_bos_token_taking_the_attention_sink_is_never_a_query_word() -> None:
    tokens = ["<s>", " Where", " was", " Ada", " born", "?", " She", " was", " born", " in", " Zorn", "."]
    n = len(tokens)
    weights = np.full((1, n, n), 1e-3, dtype=np.float32)
    weights[0, :, 0] = 0.9   # every position looks at the sink most, as Llama-2's do
    weights[0, 9, 3] = 0.5   # the position before "Zorn" looks at "Ada" next
    weights[0] = np.tril(weights[0])
    weights[0] /= weights[0].sum(axis=1, keepdims=True)
    trigger = Trigger(sentence="She was born in Zorn.", before="", words=("She", "was", "born", "in", "Zorn."),
                      scores=(0, 0, 0, 0, 3.0), hits=(False, False, False, False, True))
    assert query_of(Attention(tuple(tokens), weights), trigger, keep=1) == "<s>"  # read as a word, it wins
    assert query_of(Attention(tuple(tokens), weights, special=(0,)), trigger, keep=1) == "Ada"


def test_special_positions_out_of_range_are_refused() -> None:
    with pytest.raises(LLMError, match="special positions"):
        Attention(("a", " b"), np.full((1, 2, 2), 0.5, dtype=np.float32), special=(2,))
