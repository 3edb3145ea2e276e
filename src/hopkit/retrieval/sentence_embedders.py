"""Any sentence-transformers model as an embedder, with what its model card asks for.

A model is named by its Hugging Face Hub name (``intfloat/e5-base-v2``) or a local folder.
A copy in ``$HOPKIT_MODEL_DIR`` (a folder named as the model's last name part, e.g.
``all-MiniLM-L6-v2``) is used before the Hub is asked, as for GGUF language models. The
folder's own modules give the pooling, the normalisation and the maximum length; the model
card's query and passage prefixes come from :data:`MODEL_CARDS` (E5: ``"query: "`` and
``"passage: "``; BGE English v1.5: an instruction before queries only), or from options.
The device is a GPU when the machine has one, else the CPU with every core.
"""

from __future__ import annotations

import importlib
import logging
import os
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any, Sequence

import numpy as np

from hopkit import environment
from hopkit.errors import RetrievalError

logger = logging.getLogger(__name__)

BGE_QUERY_INSTRUCTION = "Represent this sentence for searching relevant passages: "


@dataclass(frozen=True)
class ModelCard:
    """What a model family's card asks of its inputs: the text put before queries and before passages."""

    query_prefix: str = ""
    passage_prefix: str = ""


# By the model's name (its last part, lower case) starting with a key. Sources: the model cards of
# intfloat/e5-*-v2 and intfloat/multilingual-e5-* ("query: " / "passage: "), and of BAAI/bge-*-en-v1.5
# (the instruction for short queries searching passages; passages as they are).
MODEL_CARDS: dict[str, ModelCard] = {
    "e5-": ModelCard("query: ", "passage: "),
    "multilingual-e5-": ModelCard("query: ", "passage: "),
    "bge-small-en": ModelCard(BGE_QUERY_INSTRUCTION, ""),
    "bge-base-en": ModelCard(BGE_QUERY_INSTRUCTION, ""),
    "bge-large-en": ModelCard(BGE_QUERY_INSTRUCTION, ""),
}


def model_card(model_name: str) -> ModelCard:
    """The prefixes ``model_name``'s card asks for (none for a model not in :data:`MODEL_CARDS`)."""
    last = PurePosixPath(model_name.rstrip("/")).name.lower()
    for start, card in MODEL_CARDS.items():
        if last.startswith(start):
            return card
    return ModelCard()


def local_copy(model_name: str) -> Path | None:
    """The folder to load ``model_name`` from without the Hub: the name itself when it is a folder, else
    ``$HOPKIT_MODEL_DIR/<last part of the name>`` when that holds a model; None: ask the Hub."""
    named = Path(model_name).expanduser()
    if named.is_dir():
        return named
    candidate = environment.model_dir() / PurePosixPath(model_name.rstrip("/")).name
    return candidate if (candidate / "config.json").is_file() or (candidate / "modules.json").is_file() else None


def default_device() -> str:
    """``cuda`` when torch sees a GPU, else ``cpu`` (with torch using every core)."""
    import torch

    if torch.cuda.is_available():
        return "cuda"
    torch.set_num_threads(os.cpu_count() or 1)
    return "cpu"


class SentenceTransformerEmbedder:
    """Any sentence-transformers model (optional dependency: ``pip install 'hopkit[dense]'``).

    Args:
        model: a loaded ``SentenceTransformer``.
        model_id: ``"sentence-transformers:<name>"``, with the prefixes when there are some (an index built
            with other prefixes is another index).
        batch_size: texts per forward pass.
        card: the prefixes put before queries and passages.
    """

    def __init__(self, model: Any, model_id: str, *, batch_size: int = 32, card: ModelCard = ModelCard()) -> None:
        if batch_size < 1:
            raise RetrievalError(f"batch_size must be >= 1, got {batch_size}")
        self.model = model
        self.model_id = model_id
        self.batch_size = batch_size
        self.card = card

    @classmethod
    def load(cls, model_name: str, *, device: str | None = None, batch_size: int = 32,
             query_prefix: str | None = None, passage_prefix: str | None = None,
             max_length: int | None = None) -> SentenceTransformerEmbedder:
        """Load ``model_name`` (a Hub name or a local folder; a copy in ``$HOPKIT_MODEL_DIR`` first).

        Args:
            device: ``cuda``, ``cpu``...; None: a GPU when there is one, else every CPU core.
            batch_size: texts per forward pass.
            query_prefix, passage_prefix: text put before each query or passage; None: what the model's
                card asks for (:data:`MODEL_CARDS`).
            max_length: tokens kept of each text; None: the model's own maximum.

        Raises:
            RetrievalError: sentence-transformers is missing, or the model cannot be found or loaded (the
                message names it and where it was looked for).
        """
        try:
            module = importlib.import_module("sentence_transformers")
        except ImportError as error:
            raise RetrievalError(
                "SentenceTransformerEmbedder needs the sentence-transformers package: "
                "pip install 'hopkit[dense]' (or pip install sentence-transformers)") from error
        card = model_card(model_name)
        card = ModelCard(card.query_prefix if query_prefix is None else query_prefix,
                         card.passage_prefix if passage_prefix is None else passage_prefix)
        folder = local_copy(model_name)
        source = str(folder) if folder is not None else model_name
        try:
            model = module.SentenceTransformer(source, device=device or default_device())
        except Exception as error:  # noqa: BLE001 (the Hub client, transformers and torch raise many kinds)
            reason = " ".join(str(error).split())[:300]
            raise RetrievalError(
                f"cannot load the sentence-transformers model {model_name!r} ({type(error).__name__}: {reason}); "
                f"check the name, or put a copy of the model's folder in "
                f"{environment.model_dir() / PurePosixPath(model_name.rstrip('/')).name}") from error
        if max_length is not None:
            model.max_seq_length = max_length
        logger.info("loaded %s from %s on %s", model_name, source, model.device)
        return cls(model, _model_id(model_name, card, max_length), batch_size=batch_size, card=card)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        """Embed queries (with the card's query prefix), as float32 ``(len(texts), dim)``."""
        return self._encode([self.card.query_prefix + text for text in texts])

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        """Embed passages (with the card's passage prefix), as float32 ``(len(texts), dim)``."""
        return self._encode([self.card.passage_prefix + text for text in texts])

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed ``texts`` as passages."""
        return self.embed_passages(texts)

    def _encode(self, texts: list[str]) -> np.ndarray:
        vectors = self.model.encode(texts, batch_size=self.batch_size, convert_to_numpy=True,
                                    show_progress_bar=False)
        return np.asarray(vectors, dtype=np.float32)


def _model_id(model_name: str, card: ModelCard, max_length: int | None) -> str:
    """The embedder's identity: the name, plus the prefixes and length when they are set."""
    extras = []
    if card.query_prefix or card.passage_prefix:
        extras.append(f"query_prefix={card.query_prefix!r},passage_prefix={card.passage_prefix!r}")
    if max_length is not None:
        extras.append(f"max_length={max_length}")
    return f"sentence-transformers:{model_name}" + (f"[{';'.join(extras)}]" if extras else "")
