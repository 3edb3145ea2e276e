"""The retriever a server serves: loaded once per worker process, named by the corpus and its configuration.

Its :attr:`ServedRetriever.identity` is the hash of what the run id of an in-process run records of the
retriever (kind, options, corpus fingerprint, rerank): two servers share it exactly when they answer the
same. A client records it in its run's id and checks it on every reply.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from sqlalchemy.orm import Session, sessionmaker

from hopkit import __version__
from hopkit.config import load_named
from hopkit.errors import ConfigError, StoreError
from hopkit.pipelines.retrieval.base import RetrievalPipeline, resolve_dataset
from hopkit.records import ScoredParagraph
from hopkit.remote_retrieval.wire import QueryItem, ServedHit
from hopkit.retrieval.protocol import Retriever
from hopkit.serving.batch_search import PreparedQueries, batched_encoding, search_batch
from hopkit.store.records import canonical_json
from hopkit.store.store import Store

IDENTITY_LENGTH = 16


def identity_of(spec: Mapping[str, Any]) -> str:
    """The first 16 hex digits of the SHA-256 of ``spec``'s canonical JSON."""
    text = canonical_json(dict(spec), what="the served retriever's configuration")
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:IDENTITY_LENGTH]


def dataset_to_serve(store: Store, dataset: str | None, corpus: str | None) -> str:
    """The stored dataset whose retriever serves: ``dataset``, or the first dataset on the named ``corpus``
    (indexes are built over a dataset's corpus; every dataset on one corpus shares its passages).

    Raises:
        ConfigError: both given, or the corpus has no dataset on it.
        StoreError: an unknown dataset or corpus.
    """
    if dataset is not None and corpus is not None:
        raise ConfigError("--dataset and --corpus: give one (--corpus NAME serves a corpus stored with "
                          "`hopkit corpus add`, --dataset NAME a dataset's corpus)")
    if corpus is None:
        return resolve_dataset(store, dataset)
    on_it = store.corpora.datasets_on(corpus)
    if not on_it:
        raise StoreError(f"no dataset retrieves from corpus {corpus!r} yet, and indexes are built for one: ingest one "
                         f"with `hopkit ingest DATASET PATH --on-corpus {corpus}` first")
    return on_it[0]


@dataclass(frozen=True)
class ServeSettings:
    """What a worker process needs to load the served retriever (sent to each worker as JSON).

    Attributes:
        db_url: the store.
        retrieval: the retrieval config's name (``configs/retrieval/<name>.yaml``).
        dataset: the stored dataset whose corpus is served.
    """

    db_url: str
    retrieval: str
    dataset: str


class ServedRetriever:
    """A loaded retriever with what ``/health`` says of it and the source ids its documents carry.

    Args:
        retriever: the retriever (its embedders are replaced by batch encoders at :meth:`load`).
        dataset: the stored dataset served.
        corpus: the named corpus it retrieves from, or None for its own paragraphs.
        passages: how many passages the corpus holds.
        fingerprint: the corpus's fingerprint.
        retrieval: the retrieval config's name.
        spec: what identifies the retriever (as a run records it).
        store: the store (read for the source ids of a named corpus's passages).
    """

    def __init__(self, retriever: Retriever, *, dataset: str, corpus: str | None, passages: int, fingerprint: str,
                 retrieval: str, spec: Mapping[str, Any], store: Store | None = None) -> None:
        self.retriever = retriever
        self.dataset = dataset
        self.corpus = corpus
        self.passages = passages
        self.fingerprint = fingerprint
        self.retrieval = retrieval
        self.spec = dict(spec)
        self.identity = identity_of(spec)
        self.store = store
        self.encoders: list[PreparedQueries] = []

    @classmethod
    def load(cls, settings: ServeSettings, session_factory: sessionmaker[Session], *,
             progress: bool | None = False) -> ServedRetriever:
        """Load (or build once) the retriever of ``settings``.

        Raises:
            ConfigError: the retrieval config builds no retrieval pipeline.
            StoreError, RetrievalError: as loading the index does.
        """
        pipeline = load_named("retrieval", settings.retrieval, session_factory=session_factory)
        if not isinstance(pipeline, RetrievalPipeline):
            raise ConfigError(f"retrieval config {settings.retrieval!r} does not build a retrieval pipeline")
        if pipeline.kind == "remote":
            raise ConfigError(f"retrieval config {settings.retrieval!r} is itself a remote retriever; serve the "
                              "index it points at where it is")
        store = Store(session_factory)
        corpus = store.corpus(settings.dataset)
        retriever = pipeline.retriever(settings.dataset, progress=progress)
        served = cls(retriever, dataset=settings.dataset, corpus=corpus.corpus_name, passages=len(corpus),
                     fingerprint=corpus.fingerprint, retrieval=settings.retrieval,
                     spec=pipeline.spec(settings.dataset), store=store)
        served.encoders = batched_encoding(retriever)
        return served

    def health(self) -> dict[str, Any]:
        """What ``GET /health`` answers."""
        return {"status": "ok", "hopkit_version": __version__,
                "corpus": {"name": self.corpus or self.dataset, "dataset": self.dataset, "passages": self.passages,
                           "fingerprint": self.fingerprint},
                "retriever": {"config": self.retrieval, "identity": self.identity, "spec": self.spec}}

    def search(self, items: Sequence[QueryItem]) -> list[list[ServedHit]]:
        """Each query's paragraphs, as the wire carries them; the batch embedded at once."""
        found = search_batch(self.retriever, self.encoders, items)
        sources = self._source_ids([hit.id for hits in found for hit in hits])
        return [[self._hit(hit, sources) for hit in hits] for hits in found]

    def _source_ids(self, ids: list[int]) -> dict[int, str]:
        if self.corpus is None or self.store is None or not ids:
            return {}
        return self.store.corpora.source_ids(self.corpus, ids)

    @staticmethod
    def _hit(hit: ScoredParagraph, sources: Mapping[int, str]) -> ServedHit:
        paragraph = hit.paragraph
        return ServedHit(paragraph.id, sources.get(paragraph.id, str(paragraph.id)), paragraph.title, paragraph.text,
                         float(hit.score))
