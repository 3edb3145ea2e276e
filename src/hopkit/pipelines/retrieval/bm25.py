"""BM25 retrieval pipeline (bm25s over title + text; the default)."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy.orm import Session, sessionmaker

from hopkit.pipelines.retrieval.base import RetrievalPipeline


class BM25RetrievalPipeline(RetrievalPipeline):
    """BM25 over a stored dataset's pooled corpus, index built once and saved."""

    kind = "bm25"

    def __init__(self, session_factory: sessionmaker[Session], name: str = "bm25", dataset: str | None = None,
                 index_root: str | Path | None = None, k1: float = 1.2, b: float = 0.75) -> None:
        super().__init__(session_factory, name, dataset, index_root, k1=k1, b=b)
