"""A retrieval pipeline's index: its folder name and its metadata carry the store's fingerprint."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hopkit.pipelines.retrieval.base import RetrievalPipeline
from hopkit.pipelines.retrieval.bm25 import BM25RetrievalPipeline
from hopkit.pipelines.retrieval.dense import DenseRetrievalPipeline
from hopkit.records import Corpus, Paragraph, Query, corpus_fingerprint
from hopkit.retrieval.index_meta import META_FILE
from hopkit.store.connection import DBConnection
from hopkit.store.store import Store

pytestmark = pytest.mark.unit

PARAGRAPHS = (Paragraph(4, "Paris", "Paris is the capital of France."),
              Paragraph(0, "Berlin", "Berlin is the capital of Germany."),
              Paragraph(9, "Everest", "Mount Everest is the highest mountain."))


@pytest.mark.parametrize("pipeline", [
    lambda factory, root: BM25RetrievalPipeline(factory, index_root=root),
    lambda factory, root: DenseRetrievalPipeline(factory, index_root=root, embedder="hashing:256"),
], ids=["bm25", "dense"])
def test_index_folder_and_metadata_agree_with_the_store(tmp_path: Path, pipeline) -> None:
    factory = DBConnection(f"sqlite:///{tmp_path / 'db.sqlite'}").get_session_factory()
    store = Store(factory)
    store.add_corpus(Corpus("toy", PARAGRAPHS, (Query(id="q", text="Where is Paris?"),)))
    fingerprint = store.fingerprint("toy")
    assert fingerprint == corpus_fingerprint(PARAGRAPHS)

    retrieval: RetrievalPipeline = pipeline(factory, tmp_path / "indexes")
    assert [hit.id for hit in retrieval.retriever("toy").retrieve("capital of France", k=1)] == [4]
    assert retrieval.spec("toy")["corpus_fingerprint"] == fingerprint
    kind = "vectors" if retrieval.kind == "dense" else retrieval.kind  # the vectors; beside them, the flat search
    (folder,) = (tmp_path / "indexes").glob(f"{kind}-*")
    assert folder.name.startswith(f"{kind}-{fingerprint[:12]}-")
    assert json.loads((folder / META_FILE).read_text())["fingerprint"] == fingerprint
