"""A corpus stored once (``hopkit corpus add``) served: Search-R1's documents carry the source's ids, and a
Search-R1 client's documents map back to the store's passages by them."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from hopkit.cli import main
from hopkit.pipelines.retrieval.remote import RemoteRetrievalPipeline
from hopkit.serving.server import load_served
from hopkit.serving.served import ServeSettings, dataset_to_serve
from hopkit.store.connection import DBConnection
from hopkit.store.store import Store
from tests.data.corpus_fixtures import wiki18_file
from tests.serving.loopback import SERVE_SECONDS, running

pytestmark = pytest.mark.integration


@pytest.fixture
def corpus_url(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("HOPKIT_HOME", str(tmp_path / "home"))
    url = f"sqlite:///{tmp_path / 'store.db'}"
    questions = tmp_path / "dev.jsonl"
    questions.write_text(json.dumps({"id": "q0", "question": "Which river does Town 42 lie on?",
                                     "golden_answers": ["river number 42"]}) + "\n", encoding="utf-8")
    assert main(["--db", url, "corpus", "add", "wiki18", str(wiki18_file(tmp_path / "wiki-18.jsonl", 300)),
                 "--quiet"]) == 0
    assert main(["--db", url, "ingest", "flashrag", str(questions), "--name", "qs", "--on-corpus", "wiki18"]) == 0
    return url


def test_search_r1_documents_carry_the_sources_ids_and_map_back_to_the_stores_passages(corpus_url: str) -> None:
    store = Store(DBConnection(corpus_url).get_session_factory())
    dataset = dataset_to_serve(store, None, "wiki18")
    served = load_served(ServeSettings(corpus_url, "bm25", dataset))
    in_process = served.retriever.retrieve("Town 42 river", 3)
    with running(served) as server:
        reply = httpx.post(f"{server.url}/retrieve", json={"queries": ["Town 42 river"], "topk": 3,
                                                           "return_scores": True}, timeout=SERVE_SECONDS).json()
        health = httpx.get(f"{server.url}/health", timeout=SERVE_SECONDS).json()
        remote = RemoteRetrievalPipeline(DBConnection(corpus_url).get_session_factory(), url=server.url,
                                         protocol="search-r1", max_retries=0)
        over_search_r1 = remote.retriever("qs").retrieve("Town 42 river", 3)
    first = reply["result"][0][0]["document"]
    assert first == {"id": "42", "contents": '"Town 42"\nTown 42 lies on river number 42, "Ahärôn" said.'}
    assert in_process[0].id == 35  # its position in the file: ids there start at 7
    assert health["corpus"]["name"] == "wiki18" and health["corpus"]["passages"] == 300
    assert [(hit.id, hit.paragraph.text) for hit in over_search_r1] == [(hit.id, hit.paragraph.text)
                                                                         for hit in in_process]
