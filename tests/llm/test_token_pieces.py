"""Token texts keep their pieces' word-start space: a SentencePiece tokenizer built here as Llama-2's is
(``▁`` pieces, byte fallback, a decoder that strips the first space), a byte-level BPE one, and Qwen's
real tokenizer where its GGUF is on the machine. DRAGIN's words are grouped from these texts."""

from __future__ import annotations

from pathlib import Path

import pytest
from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers
from transformers import PreTrainedTokenizerFast

from hopkit.llm.token_pieces import piece_texts, special_positions
from hopkit.methods.dragin.rind import words_of

pytestmark = pytest.mark.unit

TEXT = "The capital of France is Paris.\nSo the answer is Paris."
WORDS = ["The", "capital", "of", "France", "is", "Paris.", "So", "the", "answer", "is", "Paris."]


def _llama_style() -> PreTrainedTokenizerFast:
    pieces = ["<unk>", "<s>", "</s>", "<0x0A>", "\u2581", "\u2581The", "\u2581capital", "\u2581of", "\u2581France",
              "\u2581is", "\u2581Par", "is", ".", "So", "\u2581So", "\u2581the", "\u2581answer"]
    model = models.Unigram([(p, -1.0 if p.startswith("\u2581") else -2.0) for p in pieces], unk_id=0,
                           byte_fallback=True)
    tokenizer = Tokenizer(model)
    tokenizer.normalizer = normalizers.Sequence([normalizers.Prepend("\u2581"), normalizers.Replace(" ", "\u2581")])
    tokenizer.decoder = decoders.Sequence([decoders.Replace("\u2581", " "), decoders.ByteFallback(), decoders.Fuse(),
                                           decoders.Strip(" ", 1, 0)])
    return PreTrainedTokenizerFast(tokenizer_object=tokenizer, bos_token="<s>", eos_token="</s>", unk_token="<unk>")


def _byte_level() -> PreTrainedTokenizerFast:
    model = models.BPE(vocab={}, merges=[])
    tokenizer = Tokenizer(model)
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    alphabet = pre_tokenizers.ByteLevel.alphabet()
    tokenizer.add_tokens(sorted(alphabet))
    from tokenizers.trainers import BpeTrainer

    tokenizer.train_from_iterator([TEXT] * 20, trainer=BpeTrainer(initial_alphabet=alphabet, show_progress=False))
    return PreTrainedTokenizerFast(tokenizer_object=tokenizer)


def test_a_sentencepiece_tokenizer_decoding_pieces_alone_merges_a_line_into_one_word() -> None:
    tokenizer = _llama_style()
    ids = tokenizer.encode(TEXT, add_special_tokens=False)
    alone = [tokenizer.decode([i]) for i in ids]
    assert len([w for w in words_of(alone) if w.text]) <= 2          # the fault: a line is one "word"
    assert [w.text for w in words_of(piece_texts(tokenizer, ids)) if w.text] == WORDS


def test_a_bos_token_is_found_where_the_tokenizer_puts_it() -> None:
    tokenizer = _llama_style()
    ids = [tokenizer.bos_token_id, *tokenizer.encode(TEXT, add_special_tokens=False)]
    assert special_positions(tokenizer, ids) == (0,)
    assert piece_texts(tokenizer, ids)[0] == "<s>" and special_positions(tokenizer, ids[1:]) == ()


def test_the_texts_of_a_byte_level_tokenizer_are_its_lone_decodings() -> None:
    tokenizer = _byte_level()
    ids = tokenizer.encode(TEXT, add_special_tokens=False)
    texts = piece_texts(tokenizer, ids)
    assert texts == tuple(tokenizer.decode([i]) for i in ids)       # saved runs' words are unchanged
    assert "".join(texts) == TEXT
    assert [w.text for w in words_of(texts) if w.text] == WORDS


QWEN = Path("~/.cache/local-models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf").expanduser()


@pytest.mark.skipif(not QWEN.exists(), reason=f"{QWEN} is not on this machine (install-local-models.sh all)")
def test_qwens_tokenizer_groups_the_same_words() -> None:
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(QWEN.parent), gguf_file=QWEN.name)
    ids = tokenizer.encode(TEXT, add_special_tokens=False)
    texts = piece_texts(tokenizer, ids)
    assert texts == tuple(tokenizer.decode([i]) for i in ids) and "".join(texts) == TEXT
    assert [w.text for w in words_of(texts) if w.text] == WORDS
