"""Token texts that keep the word-start space of their tokenizer's pieces.

A SentencePiece tokenizer (Llama, Mistral) marks a word's first piece with ``▁`` and drops that space when
a piece is decoded alone, so ``decode([id])`` gives "capital" for "▁capital" and a line's tokens join to a
single "word". Byte-level BPE tokenizers (GPT-2, Qwen, SmolLM2) decode a lone piece with its space. Here
each token's text is its lone decoding, with the space its piece's word-start mark stands for put back:
the grouping of pieces into words that the DRAGIN authors make from ``convert_ids_to_tokens``.
"""

from __future__ import annotations

from typing import Any, Sequence

#: SentencePiece's mark of a piece that starts a word
WORD_START = "\u2581"


def piece_texts(tokenizer: Any, ids: Sequence[int]) -> tuple[str, ...]:
    """Each token of ``ids`` as text, a word's first piece beginning with a space."""
    ids = [int(i) for i in ids]
    pieces = tokenizer.convert_ids_to_tokens(ids)
    texts = []
    for token_id, piece in zip(ids, pieces):
        text = tokenizer.decode([token_id])
        if isinstance(piece, str) and piece.startswith(WORD_START) and not text[:1].isspace():
            text = " " + text
        texts.append(text)
    return tuple(texts)


def special_positions(tokenizer: Any, ids: Sequence[int]) -> tuple[int, ...]:
    """Where ``ids`` holds one of the tokenizer's special tokens (a Llama-2 tokenizer's ``<s>``)."""
    special = set(tokenizer.all_special_ids)
    return tuple(position for position, token_id in enumerate(ids) if int(token_id) in special)
