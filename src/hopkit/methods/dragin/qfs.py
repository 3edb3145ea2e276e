"""QFS, Query Formulation based on Self-attention (DRAGIN, Section 3.2).

The model reads the question, the text generated so far and the triggering sentence; the attention
each triggering word's tokens pay to everything before the word (from the position that predicted
each token, averaged over the heads and renormalised, as the authors' ``keep_real_words`` does) is
averaged over the triggering words. The content words with the most of it, at most ``keep`` of them,
in their order in the text, are the query; the triggering words themselves are left out.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from hopkit.llm.protocol import Attention
from hopkit.methods.dragin.rind import Trigger, Word, is_real_word, words_of


def attended_text(question: str, text: str, trigger: Trigger) -> str:
    """What the model reads for QFS: the question, the text so far, the sentences before the trigger and
    the triggering sentence's words, each joined by a space, empty ones too (the authors'
    ``keep_real_words`` input)."""
    return " ".join((question, text, trigger.before, " ".join(trigger.words)))


def word_attention(attention: Attention, words: Sequence[Word], rows: Sequence[int]) -> np.ndarray:
    """``result[r, b]``: how much word ``rows[r]`` attends to word ``b`` before it."""
    mean = attention.weights.mean(axis=0)
    n = len(attention.tokens)
    result = np.zeros((len(rows), len(words)), dtype=np.float64)
    for r, row in enumerate(rows):
        word = words[row]
        per_token = np.zeros(n, dtype=np.float64)
        for i in range(max(word.start, 1), word.end):
            before = mean[i - 1, :word.start].astype(np.float64)
            total = before.sum()
            if total > 0:
                per_token[:word.start] += before / total
        per_token /= word.end - word.start
        result[r] = [per_token[w.start:w.end].sum() for w in words]
    return result


def query_of(attention: Attention, trigger: Trigger, keep: int) -> str:
    """The query: the ``keep`` content words the triggering words attend to most, in text order; empty
    when no content word precedes them. A special token (``<s>``) is never one: the authors' part-of-speech
    match never accepts it."""
    words = [w for w in words_of(attention.tokens) if w.text]
    current = len(words) - len(trigger.words)
    hit = [current + j for j, is_hit in enumerate(trigger.hits) if is_hit and current + j >= 0]
    if not hit:
        return ""
    attended = word_attention(attention, words, hit).mean(axis=0)
    special = set(attention.special)  # a BOS token takes the attention sink but is no word of the text
    candidates = [i for i, w in enumerate(words)
                  if i not in hit and w.start not in special and is_real_word(w.text)]
    chosen = sorted(sorted(candidates, key=lambda i: -attended[i])[:keep])
    return " ".join(words[i].text for i in chosen)
