"""A FAISS index built elsewhere, named by ``index_path:``, over a stored dataset's corpus."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy.orm import Session, sessionmaker

from hopkit.options import NonEmptyStr, PositiveInt, check_arguments
from hopkit.pipelines.retrieval.base import RetrievalPipeline, resolve_dataset
from hopkit.pipelines.retrieval.reranker import load_cross_encoder
from hopkit.retrieval.dense_store import ShardEncoder
from hopkit.retrieval.embedders import load_embedder
from hopkit.retrieval.index_files import index_file
from hopkit.retrieval.meter import MeteredRetriever
from hopkit.retrieval.prebuilt import PrebuiltRetriever
from hopkit.retrieval.protocol import Retriever
from hopkit.retrieval.rerank import RERANK_DEPTH, RerankedRetriever
from hopkit.retrieval.stored_view import SourceView
from hopkit.store.store import Store


class PrebuiltIndexPipeline(RetrievalPipeline):
    """Queries embedded by ``embedder`` searched in the FAISS index ``index_path`` (docs/retrieval.md).

    Row ``i`` of the index is the dataset's ``i``-th passage in id order: for a dataset on a corpus stored
    once (``ingest --on-corpus``), the corpus file's ``i``-th passage. Checked before the first query: the
    index must have one row per passage and the embedder's dimension.

    Args:
        embedder: the model the index was built with, as :class:`DenseRetrievalPipeline`'s (``e5-base-v2``
            adds its ``query: `` prefix, as FlashRAG and Search-R1 do).
        index_path: a local FAISS file, an ``hf://datasets/OWNER/NAME/FILE`` file of the Hub, or a list of
            such parts joined in order once (:mod:`hopkit.retrieval.index_files`).
        ef_search: an HNSW index's search breadth (None: the one saved in the index).
        nprobe: an IVF index's lists searched per query (None: the one saved in the index).
    """

    kind = "prebuilt"

    def __init__(self, session_factory: sessionmaker[Session], name: str = "prebuilt", dataset: str | None = None,
                 index_root: str | Path | None = None, rerank: NonEmptyStr | None = None,
                 rerank_depth: PositiveInt = RERANK_DEPTH, *, embedder: NonEmptyStr,
                 index_path: NonEmptyStr | list[NonEmptyStr], ef_search: PositiveInt | None = None,
                 nprobe: PositiveInt | None = None) -> None:
        check_arguments(PrebuiltIndexPipeline.__init__, "prebuilt index option", embedder=embedder,
                        index_path=index_path, ef_search=ef_search, nprobe=nprobe)
        searching = {name: value for name, value in (("ef_search", ef_search), ("nprobe", nprobe))
                     if value is not None}
        super().__init__(session_factory, name, dataset, index_root, rerank, rerank_depth, embedder=embedder,
                         index_path=index_path, **searching)

    def retriever(self, dataset: str | None = None, *, progress: bool | None = None,
                  encoder: ShardEncoder | None = None) -> Retriever:
        """The metered retriever over ``dataset``'s corpus: the index downloaded (and joined) once if it is
        on the Hub, read (mapped where FAISS can) and checked against the corpus and the embedder.

        Raises:
            RetrievalError: the index's rows are not the corpus's passages, or its dimension not the
                embedder's (one line saying which); the file cannot be read.
            DownloadError: a Hub file cannot be downloaded.
        """
        store = Store(self.session_factory)
        dataset = resolve_dataset(store, dataset or self.dataset)
        if dataset not in self._retrievers:
            options: dict[str, Any] = self.options
            source = store.corpus(dataset)
            path = index_file(options["index_path"], progress=progress)
            named = getattr(source, "corpus_name", None)
            corpus = f"dataset {dataset!r}" + (f" (on corpus {named!r})" if named else "")
            inner: Retriever = PrebuiltRetriever.load(
                path, SourceView(source), lambda: load_embedder(options["embedder"]),
                where=f"index_path {path} (retrieval {self.name!r})", corpus_label=corpus,
                ef_search=options.get("ef_search"), nprobe=options.get("nprobe"))
            if self.rerank is not None:
                inner = RerankedRetriever(inner, load_cross_encoder(self.rerank), self.rerank_depth)
            self._retrievers[dataset] = MeteredRetriever(inner)
        return self._retrievers[dataset]
