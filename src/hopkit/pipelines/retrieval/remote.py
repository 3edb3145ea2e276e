"""A retrieval server as a run's retriever (``hopkit serve-retrieval``, or Search-R1's own server).

The run's id records what the server's ``GET /health`` says it serves (the corpus fingerprint and the
retriever's identity), never its URL: a farm of servers on one index, or a server moved to another
machine, keeps the run; a server on another index makes another run. The documents a server answers with
are matched to the stored dataset's paragraphs: by id when the server serves this very corpus (hopkit's
shape), by the source's passage id through the stored named corpus, by id and text for a dataset's own
paragraphs; what matches nothing keeps its text under a stand-in id no gold paragraph has, so recall by
gold id counts it as a miss.
"""

from __future__ import annotations

import hashlib
import logging
from pathlib import Path
from typing import Any, Mapping, Sequence

from sqlalchemy.orm import Session, sessionmaker

from hopkit.errors import ConfigError, LLMError
from hopkit.llm.endpoint_pool import split_base_urls
from hopkit.options import NonEmptyStr, NonNegativeFloat, NonNegativeInt, PositiveFloat, PositiveInt, check_arguments
from hopkit.pipelines.retrieval.base import RetrievalPipeline, resolve_dataset
from hopkit.pipelines.retrieval.reranker import load_cross_encoder
from hopkit.records import Paragraph
from hopkit.remote_retrieval.client import Matcher, RemoteRetriever, ServerIdentity
from hopkit.remote_retrieval.wire import PROTOCOLS, Protocol, ServedHit
from hopkit.retrieval.dense_store import ShardEncoder
from hopkit.retrieval.meter import MeteredRetriever
from hopkit.retrieval.protocol import Retriever
from hopkit.retrieval.rerank import RERANK_DEPTH, RerankedRetriever
from hopkit.store.store import Store

logger = logging.getLogger(__name__)


def stand_in_id(source_id: str, title: str, text: str) -> int:
    """A negative id for a document the store does not hold, the same for the same document in every question."""
    digest = hashlib.sha256(f"{source_id}\n{title}\n{text}".encode()).digest()
    return -1 - int.from_bytes(digest[:7], "big")


class StoreMatcher:
    """Maps a server's documents to a stored dataset's paragraphs (see the module's docstring).

    Args:
        store: the store.
        dataset: the dataset the run is on.
    """

    def __init__(self, store: Store, dataset: str) -> None:
        self.store = store
        self.dataset = dataset

    def __call__(self, hits: Sequence[ServedHit]) -> list[Paragraph]:
        corpus = self.store.corpus(self.dataset)
        found: dict[str, Paragraph] = {}
        if corpus.corpus_name is not None:
            by_source = self.store.corpora.by_source_ids(corpus.corpus_name, [hit.source_id for hit in hits])
            found = {sid: Paragraph(p.id, p.title, p.text) for sid, p in by_source.items()}
        else:
            ids = {int(hit.source_id): hit.source_id for hit in hits if hit.source_id.isdigit()}
            for paragraph_id, paragraph in corpus.fetch(ids).items():
                found[ids[paragraph_id]] = paragraph
        return [self._one(hit, found.get(hit.source_id)) for hit in hits]

    @staticmethod
    def _one(hit: ServedHit, stored: Paragraph | None) -> Paragraph:
        if stored is not None and stored.text.strip() == hit.text.strip():
            return stored
        return Paragraph(stand_in_id(hit.source_id, hit.title, hit.text), hit.title, hit.text)


class RemoteRetrievalPipeline(RetrievalPipeline):
    """A retrieval server (or a farm of them) as the retriever (docs/serving.md).

    Args:
        url: the server's base URL, or several (a list, or one string separated by commas or spaces): each
            query goes to the one with the fewest in flight, a failing one is rested.
        protocol: ``hopkit`` (``hopkit serve-retrieval``'s own shape: paragraph ids, exclusions, titles) or
            ``search-r1`` (Search-R1's ``POST /retrieve``, which any such server speaks).
        token: the bearer token (None: ``$HOPKIT_RETRIEVAL_TOKEN`` when set).
        timeout: seconds to connect and for each read.
        deadline: seconds one request may take, connect to last byte (None: three timeouts).
        max_retries: retries after the first attempt (429, 503, 5xx, time-outs, refused connections).
        backoff: seconds before the first retry, doubled for each further one.
        rerank: a cross-encoder that reads the server's ``rerank_depth`` best again here.
    """

    kind = "remote"

    def __init__(self, session_factory: sessionmaker[Session], name: NonEmptyStr = "remote", dataset: str | None = None,
                 index_root: str | Path | None = None, rerank: NonEmptyStr | None = None,
                 rerank_depth: PositiveInt = RERANK_DEPTH, url: str | list[str] = "http://127.0.0.1:8000",
                 protocol: Protocol = "hopkit", token: str | None = None, timeout: PositiveFloat = 30.0,
                 deadline: PositiveFloat | None = None, max_retries: NonNegativeInt = 4,
                 backoff: NonNegativeFloat = 1.0) -> None:
        check_arguments(RemoteRetrievalPipeline.__init__, "remote retrieval option", url=url, protocol=protocol,
                        token=token, timeout=timeout, deadline=deadline, max_retries=max_retries, backoff=backoff)
        try:
            split_base_urls(url)
        except LLMError as exc:
            raise ConfigError(f"remote retrieval option 'url': {str(exc).replace('base_url', 'url')}") from exc
        if protocol not in PROTOCOLS:
            raise ConfigError(f"remote retrieval option 'protocol': expected one of {', '.join(PROTOCOLS)}, "
                              f"got {protocol!r}")
        super().__init__(session_factory, name, dataset, index_root, rerank, rerank_depth, url=url,
                         protocol=protocol, token=token, timeout=timeout, deadline=deadline, max_retries=max_retries,
                         backoff=backoff)
        self._identity: ServerIdentity | None = None

    def client(self, *, matcher: Matcher | None = None, expected_identity: str | None = None) -> RemoteRetriever:
        """A client of the servers (nothing is sent until it is used)."""
        urls = self.options["url"]
        return RemoteRetriever([urls] if isinstance(urls, str) else urls, self.options["protocol"], matcher=matcher,
                               token=self.options["token"], expected_identity=expected_identity,
                               timeout=self.options["timeout"], deadline=self.options["deadline"],
                               max_retries=self.options["max_retries"], backoff=self.options["backoff"])

    def server_identity(self) -> ServerIdentity:
        """What the servers serve, from each one's ``/health`` (asked once).

        Raises:
            ConfigError: the servers of a farm serve different retrievers or corpora.
            RetrievalServerError: a server cannot be reached.
        """
        if self._identity is None:
            client = self.client()
            try:
                seen = {url: client.health(url) for url in client.base_urls}
            finally:
                client.close()
            distinct = set(seen.values())
            if len(distinct) > 1:
                listed = "; ".join(f"{url}: corpus {i.fingerprint}, retriever {i.retriever}" for url, i in seen.items())
                raise ConfigError(f"retrieval {self.name!r}: its servers serve different indexes ({listed}); a run "
                                  "asks servers of one index")
            self._identity = distinct.pop()
        return self._identity

    def spec(self, dataset: str) -> Mapping[str, Any]:
        """What identifies the retriever in a run: the server's corpus fingerprint and retriever identity (a
        Search-R1 server, which has no ``/health``, by its URLs instead)."""
        identity = self.server_identity()
        spec: dict[str, Any] = {"kind": self.kind, "options": {"protocol": self.options["protocol"]},
                                "corpus_fingerprint": identity.fingerprint, "retriever": identity.retriever}
        if identity.retriever is None:
            urls = self.options["url"]
            spec["servers"] = sorted([urls] if isinstance(urls, str) else urls)
        if self.rerank is not None:
            spec["rerank"] = {"model": self.rerank, "depth": self.rerank_depth}
        return spec

    def retriever(self, dataset: str | None = None, *, progress: bool | None = None,
                  encoder: ShardEncoder | None = None) -> Retriever:
        """The metered client over ``dataset`` (``progress`` and ``encoder`` do not apply: no index is built here)."""
        store = Store(self.session_factory)
        dataset = resolve_dataset(store, dataset or self.dataset)
        if dataset not in self._retrievers:
            identity = self.server_identity()
            same_corpus = identity.fingerprint is not None and identity.fingerprint == store.fingerprint(dataset)
            if self.options["protocol"] == "hopkit" and not same_corpus:
                logger.warning("retrieval %s: the server serves corpus %s, not this dataset's (%s): its documents "
                               "are matched to the store by their source ids", self.name, identity.fingerprint,
                               dataset)
            trusted = self.options["protocol"] == "hopkit" and same_corpus
            inner: Retriever = self.client(matcher=None if trusted else StoreMatcher(store, dataset),
                                           expected_identity=identity.retriever)
            if self.rerank is not None:
                inner = RerankedRetriever(inner, load_cross_encoder(self.rerank), self.rerank_depth)
            self._retrievers[dataset] = MeteredRetriever(inner)
        return self._retrievers[dataset]
