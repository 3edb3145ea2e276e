"""Random BERT models saved as sentence-transformers folders, for tests that need a real transformer embedder."""

from __future__ import annotations

from pathlib import Path

WORDS = "query passage : where was ada quill born tarsk the orl is a river port city engineer in".split()


def save_sentence_model(folder: Path, *, hidden: int = 16, layers: int = 1, max_length: int = 32,
                        words: list[str] | None = None) -> Path:
    """A random BERT (seeded) with mean pooling over ``words``' vocabulary, saved as a sentence-transformers
    folder: small by default, slow enough to be caught mid-batch with ``hidden=256, layers=4, max_length=256``."""
    import sentence_transformers
    import torch
    import transformers
    from sentence_transformers import models

    bert = folder.with_name(folder.name + "-bert")
    bert.mkdir(parents=True)
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *(words or WORDS)]
    (bert / "vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf-8")
    settings = transformers.BertConfig(vocab_size=len(vocab), hidden_size=hidden, num_hidden_layers=layers,
                                       num_attention_heads=2, intermediate_size=2 * hidden,
                                       max_position_embeddings=max(64, max_length))
    torch.manual_seed(0)
    transformers.BertModel(settings).save_pretrained(bert)
    transformers.AutoTokenizer.from_pretrained(bert).save_pretrained(bert)
    word = models.Transformer(str(bert), max_seq_length=max_length)
    pooling = models.Pooling(word.get_embedding_dimension() if hasattr(word, "get_embedding_dimension")
                             else word.get_word_embedding_dimension(), "mean")
    sentence_transformers.SentenceTransformer(modules=[word, pooling]).save(str(folder))
    return folder
