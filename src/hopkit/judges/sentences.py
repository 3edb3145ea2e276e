"""Sentence splitting for chains of thought.

IRCoT keeps only the *first sentence* of each generation (Trivedi et al. 2023,
Section 3.1; the authors used spaCy). A naive ``". "`` search breaks on
"F.W. Murnau", "Dr. Caligari", "U.S." or "1,000.5", so a real segmenter is used.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import syntok.segmenter as segmenter


@runtime_checkable
class SentenceSplitter(Protocol):
    """Splits text into sentences."""

    def split(self, text: str) -> list[str]:
        """The sentences of ``text`` in order, each stripped; ``[]`` for blank text."""
        ...


class SyntokSplitter:
    """A rule-based splitter on syntok: knows abbreviations, initials and decimal numbers.

    Each sentence is cut from the original text by token offsets, so its characters
    (quotes, spacing inside the sentence) are exactly those of the input.
    """

    def split(self, text: str) -> list[str]:
        """The sentences of ``text`` in order.

        Args:
            text: any text; a newline always ends a sentence.

        Returns:
            The stripped, non-empty sentences; ``[]`` when ``text`` is blank.
        """
        if not text.strip():
            return []
        sentences: list[str] = []
        for line in text.splitlines():
            if line.strip():
                sentences.extend(self._split_line(line))
        return sentences

    @staticmethod
    def _split_line(text: str) -> list[str]:
        spans: list[tuple[int, int]] = []
        for paragraph in segmenter.analyze(text):
            for sentence in paragraph:
                tokens = list(sentence)
                if not tokens:
                    continue
                start = tokens[0].offset
                end = tokens[-1].offset + len(tokens[-1].value)
                # Sentences are separated by whitespace: pieces that touch were cut inside a
                # word, as syntok cuts after an ellipsis that opens a title ("...And God").
                if spans and spans[-1][1] == start:
                    spans[-1] = (spans[-1][0], end)
                else:
                    spans.append((start, end))
        return [piece for start, end in spans if (piece := text[start:end].strip())]

    def first(self, text: str) -> str:
        """The first sentence of ``text``, or ``""`` when it is blank."""
        sentences = self.split(text)
        return sentences[0] if sentences else ""


def first_sentence_settled(splitter: SentenceSplitter, text: str, lookahead_words: int = 2) -> bool:
    """Whether more text can no longer change the first sentence of ``text``.

    True once a second sentence has begun with ``lookahead_words`` words, so that an
    abbreviation or an initial ("F.W. Murnau") is never mistaken for the end.
    """
    sentences = splitter.split(text)
    return len(sentences) > 2 or (len(sentences) == 2 and len(sentences[1].split()) >= lookahead_words)
