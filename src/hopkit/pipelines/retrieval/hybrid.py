"""Hybrid retrieval pipeline: BM25 and dense fused by reciprocal rank fusion."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy.orm import Session, sessionmaker

from hopkit.options import NonEmptyStr, NonNegativeInt, PositiveInt, check_arguments
from hopkit.pipelines.retrieval.base import DenseIndexKind, RetrievalPipeline, dense_search_options
from hopkit.retrieval.index_store import HYBRID_DEFAULTS as DEFAULTS
from hopkit.retrieval.rerank import RERANK_DEPTH


class HybridRetrievalPipeline(RetrievalPipeline):
    """BM25 + dense (``embedder``) fused by reciprocal rank fusion with constant ``rrf_k``; the dense
    options as :class:`~hopkit.pipelines.retrieval.dense.DenseRetrievalPipeline`'s."""

    kind = "hybrid"

    def __init__(self, session_factory: sessionmaker[Session], name: str = "hybrid", dataset: str | None = None,
                 index_root: str | Path | None = None, rerank: NonEmptyStr | None = None,
                 rerank_depth: PositiveInt = RERANK_DEPTH, embedder: NonEmptyStr = DEFAULTS["embedder"],
                 rrf_k: NonNegativeInt = DEFAULTS["rrf_k"], index: DenseIndexKind = DEFAULTS["index"],
                 rescore: PositiveInt | None = DEFAULTS["rescore"], nprobe: PositiveInt | None = DEFAULTS["nprobe"],
                 ef_search: PositiveInt = DEFAULTS["ef_search"], batch_size: PositiveInt = DEFAULTS["batch_size"],
                 shard_size: PositiveInt = DEFAULTS["shard_size"]) -> None:
        check_arguments(HybridRetrievalPipeline.__init__, "hybrid retrieval option", embedder=embedder, rrf_k=rrf_k,
                        index=index, rescore=rescore, nprobe=nprobe, ef_search=ef_search, batch_size=batch_size,
                        shard_size=shard_size)
        super().__init__(session_factory, name, dataset, index_root, rerank, rerank_depth, embedder=embedder, rrf_k=rrf_k,
                         **dense_search_options(index=index, rescore=rescore, nprobe=nprobe, ef_search=ef_search))
        self.build_options = {"batch_size": batch_size, "shard_size": shard_size}
