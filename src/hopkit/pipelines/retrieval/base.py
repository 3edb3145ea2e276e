"""A retriever over a stored dataset's corpus, its index built once and saved."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal, Mapping

from sqlalchemy.orm import Session, sessionmaker

from hopkit.environment import index_dir
from hopkit.errors import StoreError
from hopkit.options import NonEmptyStr, PositiveInt, check_arguments
from hopkit.pipelines.retrieval.reranker import load_cross_encoder
from hopkit.retrieval.dense_store import ShardEncoder
from hopkit.retrieval.index_store import DENSE_DEFAULTS, load_or_build_from
from hopkit.retrieval.meter import MeteredRetriever
from hopkit.retrieval.protocol import Retriever
from hopkit.retrieval.rerank import RERANK_DEPTH, RerankedRetriever
from hopkit.store.store import Store


DenseIndexKind = Literal["auto", "flat", "hnsw", "ivfpq"]
#: Search options of a dense index, with the values that leave a run's id as it was before they existed.
DENSE_SEARCH_DEFAULTS: Mapping[str, Any] = {name: DENSE_DEFAULTS[name] for name in ("index", "rescore", "nprobe",
                                                                               "ef_search")}


def dense_search_options(**options: Any) -> dict[str, Any]:
    """Those of ``options`` that differ from :data:`DENSE_SEARCH_DEFAULTS` (they change what is found,
    so a run records them; the defaults are left out so that earlier runs keep their ids)."""
    return {name: value for name, value in options.items() if value != DENSE_SEARCH_DEFAULTS[name]}


def resolve_dataset(store: Store, dataset: str | None) -> str:
    """``dataset`` if given, else the only dataset in the store.

    Raises:
        StoreError: the store holds no dataset, or several and none was named.
    """
    known = store.datasets()
    if dataset is not None:
        if dataset not in known:
            raise StoreError(f"dataset {dataset!r} is not in the store; ingested: {', '.join(known) or '(none)'}"
                             f" (run `hopkit ingest {dataset} ...` first)")
        return dataset
    if len(known) == 1:
        return known[0]
    if not known:
        raise StoreError("the store holds no dataset yet; run `hopkit ingest DATASET [PATH]` first")
    raise StoreError(f"the store holds several datasets ({', '.join(known)}); name one with dataset=...")


class RetrievalPipeline:
    """A named retriever kind (``bm25``, ``dense``, ``hybrid``) with its options.

    Args:
        session_factory: the store's session factory.
        name: the pipeline's name.
        dataset: the dataset whose pooled corpus is searched; None = decided by the
            generation pipeline, or the only dataset in the store.
        index_root: where indexes are saved (default ``$HOPKIT_HOME/indexes``).
        rerank: a sentence-transformers cross-encoder (Hub name or folder) that reads the first
            stage's ``rerank_depth`` best again with the query and reorders them; None: no rerank.
    """

    kind = "bm25"

    def __init__(self, session_factory: sessionmaker[Session], name: NonEmptyStr, dataset: str | None = None,
                 index_root: str | Path | None = None, rerank: NonEmptyStr | None = None,
                 rerank_depth: PositiveInt = RERANK_DEPTH, **options: Any) -> None:
        check_arguments(RetrievalPipeline.__init__, "retrieval option", name=name, dataset=dataset,
                        index_root=index_root, rerank=rerank, rerank_depth=rerank_depth)
        self.rerank = rerank
        self.rerank_depth = rerank_depth
        self.session_factory = session_factory
        self.name = name
        self.dataset = dataset
        self.index_root = Path(index_root) if index_root is not None else None
        self.options: dict[str, Any] = options
        self.build_options: dict[str, Any] = {}  # how the index is built, not what it finds: not in the run id
        self._retrievers: dict[str, Retriever] = {}

    def spec(self, dataset: str) -> Mapping[str, Any]:
        """What identifies this retriever in a run's configuration."""
        store = Store(self.session_factory)
        spec: dict[str, Any] = {"kind": self.kind, "options": dict(sorted(self.options.items())),
                                "corpus_fingerprint": store.fingerprint(dataset)}
        if self.rerank is not None:
            spec["rerank"] = {"model": self.rerank, "depth": self.rerank_depth}
        return spec

    def retriever(self, dataset: str | None = None, *, progress: bool | None = None,
                  encoder: ShardEncoder | None = None) -> Retriever:
        """The metered retriever over ``dataset``'s corpus, loading or building its index once.

        The corpus stays in the store (it may be Wikipedia): the index is built from it a
        batch at a time and reads the paragraphs a query ranks. ``progress`` and ``encoder``
        as :func:`hopkit.retrieval.index_store.load_or_build_from`.
        """
        store = Store(self.session_factory)
        dataset = resolve_dataset(store, dataset or self.dataset)
        if dataset not in self._retrievers:
            inner = load_or_build_from(self.kind, store.corpus(dataset), self.index_root or index_dir(),
                                       progress=progress, encoder=encoder, **self.options,
                                       **self.build_options)
            if self.rerank is not None:
                inner = RerankedRetriever(inner, load_cross_encoder(self.rerank), self.rerank_depth)
            self._retrievers[dataset] = MeteredRetriever(inner)
        return self._retrievers[dataset]
