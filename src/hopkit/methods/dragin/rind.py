"""RIND, Real-time Information Needs Detection (DRAGIN, Su et al., ACL 2024, Section 3.1).

A generated word's score is its entropy (the mean over its tokens of the entropy of the distribution
each was drawn from) times the attention the generation pays it (over the last layer, the maximum any
token pays it, averaged over the heads, summed over its tokens; normalised within its sentence and
scaled by the sentence's length in words, as the authors' ``AttnWeightRAG.modifier`` does), and
zero for a stopword (the paper's s_i). The first sentence with a word scored above the threshold
needs retrieval; every sentence is checked, the one that gives the answer too (an uncertain answer
retrieves, as in the authors' ``modifier``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from hopkit.judges.sentences import SentenceSplitter
from hopkit.llm.protocol import AttendedCompletion, Attention
from hopkit.retrieval.tokenize import STOPWORDS_EN

# Words that are never "real" (the authors keep spaCy's NOUN, ADJ, VERB, PROPN and NUM): Lucene's English
# stopwords and the other pronouns, determiners, auxiliaries, prepositions, conjunctions and adverbs a
# chain of thought is full of.
FUNCTION_WORDS: frozenset[str] = STOPWORDS_EN | frozenset("""
    i me my mine myself we us our ours ourselves you your yours yourself yourselves he him his himself she her
    hers herself its itself them theirs themselves who whom whose which what whatever whichever whoever
    am been being were has have had having do does did doing would should could might must shall can may
    from about above after against along among around before behind below beneath beside between beyond
    down during except inside near off onto out outside over past since through throughout till toward
    towards under underneath until up upon within without via per
    also although because both either neither nor so than though thus therefore hence however whereas
    whether while yet once
    all any each every few many more most much other others some such same several own
    very too just only even still already again ever never always often here where when why how
    there's it's that's he's she's let's don't doesn't didn't isn't wasn't aren't weren't
""".split())
_EDGE_PUNCTUATION = re.compile(r"^\W+|\W+$")


@dataclass(frozen=True)
class Word:
    """A word of a tokenised text: its text (stripped) and its tokens ``start`` to ``end`` (exclusive)."""

    text: str
    start: int
    end: int


@dataclass(frozen=True)
class Trigger:
    """The sentence that needs retrieval.

    Attributes:
        sentence: the sentence.
        before: the generated sentences before it, joined (the text kept).
        words: its words.
        scores: each word's RIND score.
        hits: which words scored above the threshold (stopwords never do).
    """

    sentence: str
    before: str
    words: tuple[str, ...]
    scores: tuple[float, ...]
    hits: tuple[bool, ...]

    @property
    def hit_words(self) -> tuple[str, ...]:
        return tuple(w for w, hit in zip(self.words, self.hits) if hit)


def words_of(tokens: Sequence[str]) -> list[Word]:
    """The words of a token sequence: a word starts at the first token, at a token that begins with
    whitespace, and after a newline; the tokens in between continue it (the authors' merge of pieces, given
    token texts that keep their piece's word-start space: :func:`hopkit.llm.token_pieces.piece_texts`)."""
    words: list[Word] = []
    for i, token in enumerate(tokens):
        starts = i == 0 or token[:1].isspace() or tokens[i - 1].endswith("\n")
        if starts:
            words.append(Word(token.strip(), i, i + 1))
        else:
            last = words[-1]
            words[-1] = Word((last.text + token).strip(), last.start, i + 1)
    return words


def is_real_word(word: str) -> bool:
    """A content word: letters or digits once its edge punctuation is gone, and not a function word (the
    paper's stopword indicator; the authors' part-of-speech filter without a spaCy model)."""
    core = _EDGE_PUNCTUATION.sub("", word).lower()
    return bool(core) and any(c.isalnum() for c in core) and core not in FUNCTION_WORDS


def attention_received(attention: Attention) -> np.ndarray:
    """Per token, the maximum attention any token pays it in each head, averaged over the heads
    (the authors' ``solver: max``)."""
    if not attention.tokens:
        return np.zeros(0, dtype=np.float32)
    return attention.weights.max(axis=1).mean(axis=0)


def detect(attended: AttendedCompletion, splitter: SentenceSplitter, threshold: float) -> Trigger | None:
    """The first sentence of the generation whose RIND score passes ``threshold``, or None.

    Args:
        attended: the generation with its tokens' entropies and attention.
        splitter: how the generation is cut into sentences.
        threshold: θ (the authors' ``hallucination_threshold``).
    """
    words = [w for w in words_of(attended.tokens) if w.text]
    if not words:
        return None
    received = attention_received(attended.attention)
    entropy = np.asarray(attended.entropies, dtype=np.float64)
    word_attention = np.array([received[w.start:w.end].sum() for w in words], dtype=np.float64)
    word_entropy = np.array([entropy[w.start:w.end].mean() for w in words], dtype=np.float64)
    starts = _word_offsets(attended.tokens, words)
    sentences = splitter.split("".join(attended.tokens))
    spans = _sentence_spans("".join(attended.tokens), sentences)
    for index, (sentence, (begin, end)) in enumerate(zip(sentences, spans)):
        members = [i for i, start in enumerate(starts) if begin <= start < end]
        if not members:
            continue
        attention = word_attention[members]
        total = attention.sum()
        share = attention / total if total > 0 else np.full(len(members), 1.0 / len(members))
        scores = share * word_entropy[members] * len(members)
        texts = tuple(words[i].text for i in members)
        hits = tuple(bool(score > threshold) and is_real_word(text) for score, text in zip(scores, texts))
        if any(hits):
            return Trigger(sentence=sentence, before=" ".join(sentences[:index]), words=texts,
                           scores=tuple(float(s) for s in scores), hits=hits)
    return None


def _word_offsets(tokens: Sequence[str], words: Sequence[Word]) -> list[int]:
    """Where each word's first non-space character lies in the tokens joined."""
    token_starts = np.cumsum([0, *(len(t) for t in tokens)])
    offsets = []
    for word in words:
        first = tokens[word.start]
        offsets.append(int(token_starts[word.start]) + (len(first) - len(first.lstrip())))
    return offsets


def _sentence_spans(text: str, sentences: Sequence[str]) -> list[tuple[int, int]]:
    """Each sentence's character span in ``text``, found in order (a sentence not found spans nothing)."""
    spans, cursor = [], 0
    for sentence in sentences:
        at = text.find(sentence, cursor)
        if at < 0:
            spans.append((cursor, cursor))
            continue
        spans.append((at, at + len(sentence)))
        cursor = at + len(sentence)
    return spans
