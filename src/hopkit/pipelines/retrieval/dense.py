"""Dense retrieval pipeline on an embedding model (wordllama by default)."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy.orm import Session, sessionmaker

from hopkit.options import NonEmptyStr, PositiveInt, check_arguments
from hopkit.pipelines.retrieval.base import DenseIndexKind, RetrievalPipeline, dense_search_options
from hopkit.retrieval.index_store import DENSE_DEFAULTS as DEFAULTS
from hopkit.retrieval.rerank import RERANK_DEPTH


class DenseRetrievalPipeline(RetrievalPipeline):
    """Cosine similarity of embeddings over the store's corpus (docs/retrieval.md).

    Args:
        embedder: ``wordllama``, ``minilm``, ``e5-base-v2``, ``bge-small`` or any
            sentence-transformers model by Hub name or folder.
        index: ``auto`` (exact up to 200,000 passages, IVF-PQ above), ``flat``, ``hnsw`` or ``ivfpq``.
        rescore: candidates an approximate index proposes for exact scoring (None: 200; 1,000 for IVF-PQ).
        nprobe: IVF-PQ lists searched per query (None: half the lists, at least 128).
        ef_search: HNSW search breadth.
        batch_size: passages handed to the model at once while encoding (does not change the index).
        shard_size: passages per shard of the build, the unit of resuming (does not change the index).
    """

    kind = "dense"

    def __init__(self, session_factory: sessionmaker[Session], name: str = "dense", dataset: str | None = None,
                 index_root: str | Path | None = None, rerank: NonEmptyStr | None = None,
                 rerank_depth: PositiveInt = RERANK_DEPTH, embedder: NonEmptyStr = DEFAULTS["embedder"],
                 index: DenseIndexKind = DEFAULTS["index"], rescore: PositiveInt | None = DEFAULTS["rescore"],
                 nprobe: PositiveInt | None = DEFAULTS["nprobe"], ef_search: PositiveInt = DEFAULTS["ef_search"],
                 batch_size: PositiveInt = DEFAULTS["batch_size"], shard_size: PositiveInt = DEFAULTS["shard_size"]
                 ) -> None:
        check_arguments(DenseRetrievalPipeline.__init__, "dense retrieval option", embedder=embedder, index=index,
                        rescore=rescore, nprobe=nprobe, ef_search=ef_search, batch_size=batch_size,
                        shard_size=shard_size)
        super().__init__(session_factory, name, dataset, index_root, rerank, rerank_depth, embedder=embedder,
                         **dense_search_options(index=index, rescore=rescore, nprobe=nprobe, ef_search=ef_search))
        self.build_options = {"batch_size": batch_size, "shard_size": shard_size}
