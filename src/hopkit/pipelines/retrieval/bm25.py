"""BM25 retrieval pipeline (bm25s over title + text; the default)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from annotated_types import Interval

from sqlalchemy.orm import Session, sessionmaker

from hopkit.options import NonEmptyStr, NonNegativeFloat, PositiveInt, check_arguments
from hopkit.pipelines.retrieval.base import RetrievalPipeline
from hopkit.retrieval.bm25 import BM25_DEFAULTS
from hopkit.retrieval.rerank import RERANK_DEPTH


class BM25RetrievalPipeline(RetrievalPipeline):
    """BM25 over a stored dataset's pooled corpus, index built once and saved."""

    kind = "bm25"

    def __init__(self, session_factory: sessionmaker[Session], name: str = "bm25", dataset: str | None = None,
                 index_root: str | Path | None = None, rerank: NonEmptyStr | None = None,
                 rerank_depth: PositiveInt = RERANK_DEPTH, k1: NonNegativeFloat = BM25_DEFAULTS["k1"],
                 b: Annotated[float, Interval(ge=0, le=1)] = BM25_DEFAULTS["b"]) -> None:
        check_arguments(BM25RetrievalPipeline.__init__, "BM25 option", k1=k1, b=b)
        super().__init__(session_factory, name, dataset, index_root, rerank, rerank_depth, k1=k1, b=b)
