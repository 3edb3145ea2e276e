"""A dense index's passages encoded by Ray tasks, one shard each, with a worker killed mid-shard (issue 49).

The model is a random BERT the test saves (large enough that a shard takes a few seconds on one
core); the cluster is the session's two-node cluster on 127.0.0.1 (tests/executors/conftest.py).
"""

from __future__ import annotations

import os
import random
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from hopkit.executors.choice import ExecutorChoice
from hopkit.executors.ray_encoding import ray_shard_encoder
from hopkit.pipelines.retrieval.dense import DenseRetrievalPipeline
from hopkit.records import Corpus, Paragraph
from hopkit.retrieval.index_store import load_or_build
from hopkit.retrieval.vector_build import VectorBuild
from hopkit.store.connection import DBConnection
from hopkit.store.store import Store
from tests.retrieval.sentence_models import WORDS, save_sentence_model

pytestmark = pytest.mark.integration
pytest.importorskip("sentence_transformers")

SHARDS = 4
SHARD_SIZE = 60


def busy_encoding_worker(seconds: float = 60) -> int | None:
    """The pid of a Ray worker running a shard task (Ray titles it ``ray::_encode_shard`` while it does)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                title = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if title.startswith(b"ray::_encode_shard"):
                return int(entry.name)
        time.sleep(0.05)
    return None


def test_shards_are_encoded_once_each_though_a_worker_dies_mid_shard(
        ray_cluster: Any, db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if db_url.startswith("sqlite"):
        pytest.skip("PostgreSQL: the cluster has two nodes")
    model = save_sentence_model(tmp_path / "slow-bert", hidden=256, layers=4, max_length=256)
    spec = f"sentence-transformers:{model}"
    rng = random.Random(7)
    paragraphs = tuple(Paragraph(i, f"Title {i}", " ".join(rng.choice(WORDS) for _ in range(220)))
                       for i in range(SHARDS * SHARD_SIZE))
    store = Store.connect(db_url)
    store.add_corpus(Corpus("encode", paragraphs, ()), replace=True)
    factory = DBConnection(db_url).get_session_factory()
    written: list[int] = []
    write = VectorBuild.write

    def counted(self: VectorBuild, shard: Any, rows: np.ndarray) -> None:
        written.append(shard.number)
        write(self, shard, rows)

    monkeypatch.setattr(VectorBuild, "write", counted)
    encode = ray_shard_encoder(ExecutorChoice("ray", address=ray_cluster.address, workers=2), db_url, "encode", spec)
    killed: list[int | None] = []

    def killing_one_worker(*args: Any) -> Iterator[Any]:
        shards = encode(*args)
        first = next(shards)  # meanwhile the next shard is being encoded
        killed.append(busy_encoding_worker())
        if killed[0] is not None:
            os.kill(killed[0], signal.SIGKILL)
        yield first
        yield from shards

    pipeline = DenseRetrievalPipeline(factory, embedder=spec, index_root=tmp_path / "indexes", shard_size=SHARD_SIZE,
                                      batch_size=16)
    retriever = pipeline.retriever("encode", encoder=killing_one_worker).inner
    assert killed and killed[0] is not None, "no worker was caught encoding a shard"
    assert sorted(written) == list(range(SHARDS))
    reference = load_or_build("dense", paragraphs, tmp_path / "reference", store.fingerprint("encode"),
                              embedder=spec, shard_size=SHARD_SIZE)
    np.testing.assert_allclose(np.asarray(retriever.vectors, dtype=np.float32),
                               np.asarray(reference.vectors, dtype=np.float32), atol=2e-3)
