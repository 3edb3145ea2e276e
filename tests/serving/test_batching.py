"""Concurrent requests answered in batches: one call of the query encoder per batch, the same answers."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from typing import Sequence

import httpx
import numpy as np
import pytest

from hopkit.retrieval.bm25 import BM25Retriever
from hopkit.retrieval.dense import DenseRetriever
from hopkit.retrieval.embedders import HashingEmbedder
from hopkit.retrieval.hybrid import HybridRetriever
from hopkit.retrieval.meter import MeteredRetriever
from hopkit.serving.batch_search import batched_encoding
from hopkit.serving.options import ServerOptions
from hopkit.serving.served import ServedRetriever
from hopkit.store.connection import DBConnection
from hopkit.store.store import Store
from tests.polling import wait_until
from tests.serving.loopback import SERVE_SECONDS, GatedRetriever, serving

pytestmark = pytest.mark.integration

QUERIES = ["Ember Tide director", "Marrowick river", "Ninefold House founded", "Selvane coast film",
           "Oltheny province city"]


class CountingEmbedder(HashingEmbedder):
    """The hashing embedder, recording the texts of each call."""

    def __init__(self) -> None:
        super().__init__(64)
        self.calls: list[list[str]] = []

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.calls.append(list(texts))
        return super().embed(texts)


def hybrid_served(store_url: str) -> tuple[ServedRetriever, CountingEmbedder, HybridRetriever]:
    paragraphs = Store(DBConnection(store_url).get_session_factory()).paragraphs("sample")
    embedder = CountingEmbedder()
    hybrid = HybridRetriever([BM25Retriever.build(paragraphs), DenseRetriever.build(paragraphs, embedder)])
    served = ServedRetriever(MeteredRetriever(hybrid), dataset="sample", corpus=None, passages=len(paragraphs),
                             fingerprint="f", retrieval="hybrid", spec={"kind": "hybrid"})
    return served, embedder, hybrid


def _ask(base: str, query: str) -> list[int]:
    reply = httpx.post(f"{base}/hopkit/retrieve", json={"queries": [{"text": query, "k": 3}]}, timeout=SERVE_SECONDS)
    assert reply.status_code == 200, reply.text
    return [hit["id"] for hit in reply.json()["result"][0]]


def _waiting(base: str) -> int:
    return int(httpx.get(f"{base}/health", timeout=SERVE_SECONDS).json()["batching"]["waiting"])


@pytest.mark.parametrize(("options", "call_sizes"), [
    (ServerOptions(max_wait=0.0, max_batch=64), [1, 5]),  # the five that waited: one batch, one encoder call
    (ServerOptions(max_wait=0.0, max_batch=1), [1, 1, 1, 1, 1, 1]),  # batching off: a call per query
])
def test_queries_that_wait_together_are_encoded_in_one_call(store_url: str, options: ServerOptions,
                                                            call_sizes: list[int]) -> None:
    served, embedder, hybrid = hybrid_served(store_url)
    alone = {query: [hit.id for hit in hybrid.retrieve(query, 3)] for query in ["opening", *QUERIES]}
    served.retriever = gated = GatedRetriever(served.retriever)
    served.encoders = batched_encoding(served.retriever)
    embedder.calls.clear()
    with serving(served, options) as base, ThreadPoolExecutor(len(QUERIES) + 1) as pool:
        first = pool.submit(_ask, base, "opening")
        assert gated.entered.wait(SERVE_SECONDS)
        rest = {query: pool.submit(_ask, base, query) for query in QUERIES}
        wait_until(lambda: _waiting(base) == len(QUERIES), SERVE_SECONDS, "the five queries to wait")
        gated.gate.set()
        answers = {"opening": first.result(SERVE_SECONDS), **{q: f.result(SERVE_SECONDS) for q, f in rest.items()}}
        batches = httpx.get(f"{base}/health", timeout=SERVE_SECONDS).json()["batching"]["batches"]
    assert sorted(len(call) for call in embedder.calls) == call_sizes
    assert batches == len(call_sizes)
    assert answers == alone


def test_a_batch_answers_what_each_query_alone_gets_over_the_wire(store_url: str) -> None:
    served, _, hybrid = hybrid_served(store_url)
    served.encoders = batched_encoding(served.retriever)
    request = {"queries": [{"text": q, "k": 4, "exclude": [1], "titles": None} for q in QUERIES]}
    with serving(served) as base:
        reply = httpx.post(f"{base}/hopkit/retrieve", json=request, timeout=SERVE_SECONDS)
    got = [[(hit["id"], hit["title"], hit["score"]) for hit in found] for found in json.loads(reply.content)["result"]]
    want = [[(hit.id, hit.paragraph.title, hit.score) for hit in hybrid.retrieve(q, 4, {1})] for q in QUERIES]
    assert got == want
