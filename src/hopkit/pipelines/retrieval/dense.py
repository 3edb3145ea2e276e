"""Dense retrieval pipeline on an embedding model (wordllama by default)."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy.orm import Session, sessionmaker

from hopkit.options import NonEmptyStr, check_arguments
from hopkit.pipelines.retrieval.base import RetrievalPipeline


class DenseRetrievalPipeline(RetrievalPipeline):
    """Cosine similarity of embeddings; ``embedder`` is "wordllama" or a sentence-transformers model name."""

    kind = "dense"

    def __init__(self, session_factory: sessionmaker[Session], name: str = "dense", dataset: str | None = None,
                 index_root: str | Path | None = None, embedder: NonEmptyStr = "wordllama") -> None:
        check_arguments(DenseRetrievalPipeline.__init__, "dense retrieval option", embedder=embedder)
        super().__init__(session_factory, name, dataset, index_root, embedder=embedder)
