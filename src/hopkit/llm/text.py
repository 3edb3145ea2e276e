"""Small text helpers the backends share: cutting at stop sequences, estimating tokens."""

from __future__ import annotations

import re
from typing import Sequence

# Runs of letters, single digits, single other non-space characters: roughly how BPE
# tokenizers of current open models split English text.
_PIECE = re.compile(r"[^\W\d_]+|\d|[^\s\w]|_")
# Letters per token inside a long word; 6 matches the SmolLM2 tokenizer on the IRCoT
# prompts within ~1% and overestimates Qwen2.5's by ~6% (the safe side for fitting).
_LETTERS_PER_TOKEN = 6


def cut_at_stop(text: str, stop: Sequence[str]) -> str:
    """Cut ``text`` before the earliest occurrence of any stop sequence.

    Args:
        text: generated text.
        stop: stop sequences; empty strings are ignored.

    Returns:
        The text up to (not including) the first stop sequence, or the whole text.
    """
    end = len(text)
    for sequence in stop:
        if sequence:
            at = text.find(sequence)
            if at != -1 and at < end:
                end = at
    return text[:end]


def estimate_tokens(text: str) -> int:
    """Estimate how many tokens ``text`` takes when the real tokenizer is out of reach.

    Counts word pieces: each run of letters costs one token per started 6 letters,
    each digit and punctuation character one token.

    Args:
        text: any text.

    Returns:
        The estimated token count (0 for empty or whitespace-only text).
    """
    return sum(1 + (len(piece) - 1) // _LETTERS_PER_TOKEN for piece in _PIECE.findall(text))
