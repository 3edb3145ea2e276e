"""Hybrid retrieval pipeline: BM25 and dense fused by reciprocal rank fusion."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy.orm import Session, sessionmaker

from hopkit.options import NonEmptyStr, NonNegativeInt, check_arguments
from hopkit.pipelines.retrieval.base import RetrievalPipeline


class HybridRetrievalPipeline(RetrievalPipeline):
    """BM25 + dense (``embedder``) fused by reciprocal rank fusion with constant ``rrf_k``."""

    kind = "hybrid"

    def __init__(self, session_factory: sessionmaker[Session], name: str = "hybrid", dataset: str | None = None,
                 index_root: str | Path | None = None, embedder: NonEmptyStr = "wordllama",
                 rrf_k: NonNegativeInt = 60) -> None:
        check_arguments(HybridRetrievalPipeline.__init__, "hybrid retrieval option", embedder=embedder, rrf_k=rrf_k)
        super().__init__(session_factory, name, dataset, index_root, embedder=embedder, rrf_k=rrf_k)
