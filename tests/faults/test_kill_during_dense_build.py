"""kill -9 during a dense index build, then the same command: only the unfinished shards are encoded,
and the index is the one an uninterrupted build makes (issue 49).

The child is a real ``hopkit index`` process over a SQLite store; it is killed once its progress
file records three finished shards.
"""

from __future__ import annotations

import json
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from hopkit.pipelines.retrieval.dense import DenseRetrievalPipeline
from hopkit.records import Corpus, Paragraph
from hopkit.retrieval.index_store import load_or_build
from hopkit.retrieval.vector_build import PROGRESS_FILE, VectorBuild
from hopkit.store.connection import DBConnection
from hopkit.store.store import Store

pytestmark = pytest.mark.unit

WORDS = "river city film director mountain capital war novel singer album island bridge church".split()
SHARD_SIZE = 2_000
COUNT = 40_000  # 20 shards


def test_a_killed_build_resumes_at_its_first_unfinished_shard(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(11)
    paragraphs = tuple(Paragraph(i, f"T{i % 500}", " ".join(rng.choices(WORDS, k=40))) for i in range(COUNT))
    db = f"sqlite:///{tmp_path / 'hopkit.db'}"
    store = Store.connect(db)
    store.add_corpus(Corpus("big", paragraphs, ()))
    config = tmp_path / "hashing.yaml"
    config.write_text("_target_: hopkit.pipelines.retrieval.dense.DenseRetrievalPipeline\nname: hashing\n"
                      f"embedder: hashing:64\nshard_size: {SHARD_SIZE}\nbatch_size: 500\n", encoding="utf-8")
    monkeypatch.setenv("HOPKIT_HOME", str(tmp_path / "home"))
    child = subprocess.Popen([sys.executable, "-m", "hopkit.cli", "--db", db, "index", "--retrieval", str(config),
                              "--quiet"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    indexes = tmp_path / "home" / "indexes"
    done_at_kill: set[int] = set()
    deadline = time.monotonic() + 120
    while child.poll() is None and time.monotonic() < deadline:
        progress = list(indexes.glob(f".vectors-*.build/{PROGRESS_FILE}")) if indexes.exists() else []
        if progress:
            try:
                done_at_kill = {int(n) for n in json.loads(progress[0].read_text())["done"]}
            except (OSError, ValueError):
                continue
            if len(done_at_kill) >= 3:
                child.send_signal(signal.SIGKILL)
                break
        time.sleep(0.01)
    child.wait(timeout=30)
    assert child.returncode == -signal.SIGKILL, child.stdout.read().decode() if child.stdout else ""
    assert not list(indexes.glob("vectors-*")), "a half-built index was published"
    done_at_kill = {int(n) for n in json.loads(next(indexes.glob(f".vectors-*.build/{PROGRESS_FILE}")).read_text())
                    ["done"]}  # what the child finished before the signal landed
    assert 3 <= len(done_at_kill) < COUNT // SHARD_SIZE

    written: list[int] = []
    write = VectorBuild.write

    def counted(self: VectorBuild, shard: object, rows: np.ndarray) -> None:
        written.append(shard.number)  # type: ignore[attr-defined]
        write(self, shard, rows)  # type: ignore[arg-type]

    monkeypatch.setattr(VectorBuild, "write", counted)
    factory = DBConnection(db).get_session_factory()
    resumed = DenseRetrievalPipeline(factory, embedder="hashing:64", shard_size=SHARD_SIZE,
                                     index_root=indexes).retriever("big").inner
    assert sorted(written) == sorted(set(range(COUNT // SHARD_SIZE)) - done_at_kill)
    reference = load_or_build("dense", paragraphs, tmp_path / "reference", store.fingerprint("big"),
                              embedder="hashing:64")
    np.testing.assert_array_equal(np.asarray(resumed.vectors), np.asarray(reference.vectors))
    query = " ".join(WORDS[:3])
    assert resumed.retrieve(query, k=15) == reference.retrieve(query, k=15)
