"""A retrieval config's ``rerank:`` model, loaded here and handed to the rerank stage of :mod:`hopkit.retrieval.rerank`."""

from __future__ import annotations

from pathlib import PurePosixPath

from hopkit import environment
from hopkit.errors import ConfigError, RetrievalError
from hopkit.judges.cross_encoder import CrossEncoderRelevance
from hopkit.retrieval.sentence_embedders import local_copy


def load_cross_encoder(model_name: str, *, batch_size: int = 32) -> CrossEncoderRelevance:
    """A sentence-transformers ``CrossEncoder`` by Hub name or folder; a copy in ``$HOPKIT_MODEL_DIR`` first.

    Raises:
        RetrievalError: the package is missing or the model cannot be loaded (one line naming it).
    """
    folder = local_copy(model_name)
    try:
        return CrossEncoderRelevance.load(str(folder) if folder is not None else model_name, batch_size=batch_size)
    except ConfigError as error:
        raise RetrievalError(str(error)) from error
    except Exception as error:  # noqa: BLE001 (the Hub client, transformers and torch raise many kinds)
        reason = " ".join(str(error).split())[:300]
        raise RetrievalError(
            f"cannot load the cross-encoder {model_name!r} ({type(error).__name__}: {reason}); check the name, or "
            f"put a copy of the model's folder in {environment.model_dir() / PurePosixPath(model_name).name}") from error
