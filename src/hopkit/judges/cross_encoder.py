"""A dedicated reranker: any sentence-transformers cross-encoder (the ``judges`` extra)."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from hopkit.errors import ConfigError
from hopkit.judges.optional import import_optional
from hopkit.judges.protocol import RELEVANCE
from hopkit.judges.timing import timed
from hopkit.options import NonEmptyStr, PositiveInt, check_arguments


class CrossEncoderRelevance:
    """Relevance from a cross-encoder reading the query and each text together.

    A score is the model's output for ``(query, text)`` after the activation the model
    was saved with: a raw logit for the MS MARCO cross-encoders
    (``cross-encoder/ms-marco-MiniLM-L-6-v2``), whose configs ask for none; a
    probability for a one-label model saved without one (sentence-transformers then
    applies a sigmoid).

    Args:
        model: a loaded ``sentence_transformers.CrossEncoder``.
        model_name: its name or folder, for ``judge_id``.
        batch_size: pairs per forward pass.
    """

    def __init__(self, model: Any, model_name: str, *, batch_size: PositiveInt = 32) -> None:
        check_arguments(CrossEncoderRelevance.__init__, "cross-encoder option", batch_size=batch_size)
        self.model = model
        self.batch_size = batch_size
        self.judge_id = f"cross-encoder:{model_name}"

    @classmethod
    def load(cls, model: NonEmptyStr, *, device: str | None = None, batch_size: PositiveInt = 32,
             max_length: PositiveInt | None = None) -> CrossEncoderRelevance:
        """Load a cross-encoder by Hugging Face name or from a local folder.

        Args:
            model: e.g. ``"cross-encoder/ms-marco-MiniLM-L-6-v2"`` or a folder it was saved to.
            device: ``"cpu"``, ``"cuda"``...; None lets sentence-transformers choose.
            batch_size: pairs per forward pass.
            max_length: tokens per pair (longer pairs are truncated); None: the model's.

        Raises:
            ConfigError: sentence-transformers is not installed, or an option is wrong.
        """
        check_arguments(cls.load, "cross-encoder option", model=model, batch_size=batch_size, max_length=max_length)
        module = import_optional("sentence_transformers", needed_by="the cross-encoder relevance judge")
        options: dict[str, Any] = {"device": device}
        if max_length is not None:
            options["max_length"] = max_length
        return cls(module.CrossEncoder(model, **options), model, batch_size=batch_size)

    @timed(RELEVANCE)
    def relevance(self, query: str, texts: Sequence[str]) -> list[float]:
        """The cross-encoder's score of ``(query, text)`` for each text, in batches.

        Raises:
            ConfigError: the model gives several scores per pair (a classifier).
        """
        if not texts:
            return []
        scores = np.asarray(self.model.predict([(query, text) for text in texts], batch_size=self.batch_size,
                                               show_progress_bar=False, convert_to_numpy=True))
        if scores.ndim != 1:
            raise ConfigError(f"{self.judge_id} gives {scores.shape[-1]} scores per pair; a relevance judge needs "
                              "a cross-encoder with one output (a reranker), not a classifier")
        return [float(score) for score in scores]
