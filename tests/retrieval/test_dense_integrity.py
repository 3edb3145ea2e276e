"""A finished dense index is checked against the CRC-32s recorded when it was written: bytes changed inside
its vectors or its structure file (same size, same shape) are found on the next load and rebuilt, never
used (issue 70, failure 6)."""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Iterable, Iterator
from pathlib import Path

import numpy as np
import pytest

from hopkit.records import Paragraph
from hopkit.retrieval import mapped_files
from hopkit.retrieval.dense import DenseRetriever
from hopkit.retrieval.dense_store import load_or_build_dense, vectors_folder
from hopkit.retrieval.embedders import Embedder, HashingEmbedder
from hopkit.retrieval.stored_view import MemorySource, ParagraphSource
from hopkit.retrieval.vector_build import VECTORS_FILE, Shard, local_shards

pytestmark = pytest.mark.unit

WORDS = ("river city film director mountain capital war novel singer album island bridge church football "
         "station painter poet battle king queen company school airport railway museum lake forest").split()
RNG = random.Random(5)
CORPUS = [Paragraph(10 * i + 7, f"Article {i % 300}", " ".join(RNG.sample(WORDS, 6)) + f" number {i}")
          for i in range(3000)]
QUERIES = [" ".join(random.Random(q).sample(WORDS, 3)) for q in range(20)]
MODEL = "hashing:64"


class CountingEncoder:
    """Encodes in this process, noting which shards it encoded."""

    def __init__(self) -> None:
        self.shards: list[int] = []

    def __call__(self, source: ParagraphSource, row_ids: np.ndarray, embedder: Embedder, batch_size: int,
                 pending: Iterable[Shard]) -> Iterator[tuple[Shard, np.ndarray]]:
        for shard, rows in local_shards(source, row_ids, embedder, batch_size, pending):
            self.shards.append(shard.number)
            yield shard, rows


def build(folder: Path, encoder: CountingEncoder | None = None, **options: object) -> DenseRetriever:
    return load_or_build_dense(MemorySource(CORPUS), folder, HashingEmbedder(64), shard_size=256, encoder=encoder,
                               progress=False, **options)  # type: ignore[arg-type]


def top15(retriever: DenseRetriever) -> list[list[int]]:
    return [[hit.id for hit in retriever.retrieve(query, k=15)] for query in QUERIES]


def vectors_file(folder: Path) -> Path:
    return vectors_folder(folder, MemorySource(CORPUS).fingerprint, MODEL) / VECTORS_FILE


def overwrite_rows(path: Path, start: int, stop: int, count: int = 3000, dim: int = 64) -> None:
    """Rows ``start`` to ``stop`` of the finished vector file set to its last passage's values, in place
    (the file keeps its size, shape and header)."""
    row_bytes = dim * 2
    offset = path.stat().st_size - count * row_bytes  # past the header
    with open(path, "r+b") as file:
        file.seek(offset + (count - 1) * row_bytes)
        last = file.read(row_bytes)
        file.seek(offset + start * row_bytes)
        file.write(last * (stop - start))


@pytest.mark.parametrize("kind", ["flat", "ivfpq"])
def test_bytes_changed_in_finished_vectors_are_found_and_their_shards_encoded_again(
        tmp_path: Path, caplog: pytest.LogCaptureFixture, kind: str) -> None:
    expected = top15(build(tmp_path, index=kind))
    path = vectors_file(tmp_path)
    overwrite_rows(path, 300, 1100)  # rows in shards 1 to 4 of 12
    assert len(np.load(path, mmap_mode="r")) == 3000  # the same shape: only the CRC-32s can tell
    encoder = CountingEncoder()
    with caplog.at_level(logging.WARNING):
        again = build(tmp_path, encoder=encoder, index=kind)
    assert top15(again) == expected
    assert f"{path}: 4 of 12 shards (1 (rows 256..511), 2 (rows 512..767), 3 (rows 768..1023), 4 (rows " \
           "1024..1279)) no longer match the CRC-32 recorded when the vectors were written; encoding them again" \
           in caplog.text
    assert encoder.shards == [1, 2, 3, 4]  # only the changed shards
    fresh = tmp_path / "fresh"
    build(fresh, index=kind)
    np.testing.assert_array_equal(np.load(path), np.load(vectors_file(fresh)))


def test_a_checked_file_is_not_read_again_until_it_changes(
        tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    """The stamp of a full check lets later loads skip the read, and never hides a later change."""
    monkeypatch.setattr(mapped_files, "RACY_SECONDS", 0.05)
    expected = top15(build(tmp_path))
    path = vectors_file(tmp_path)
    time.sleep(0.1)  # past the racy window of the build's last write: the next check is stamped
    build(tmp_path)
    assert mapped_files.checked_since(path)
    reads: list[tuple[object, ...]] = []

    def counted(*args: object) -> list[Shard]:
        reads.append(args)
        return []

    with monkeypatch.context() as patched:
        patched.setattr("hopkit.retrieval.dense_store.changed_shards", counted)
        build(tmp_path)
    assert reads == []  # the stamp stood: the file was not read
    overwrite_rows(path, 2000, 2001)  # one row, after the check
    assert not mapped_files.checked_since(path)
    with caplog.at_level(logging.WARNING):
        again = build(tmp_path)
    assert "1 of 12 shards (7 (rows 1792..2047))" in caplog.text
    assert top15(again) == expected


def test_a_structure_file_whose_bytes_changed_is_rebuilt(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    expected = top15(build(tmp_path, index="ivfpq", rescore=20))
    (structure,) = [path for path in tmp_path.iterdir() if path.name.startswith("dense-ivfpq-")]
    index_file = structure / "index.faiss"
    data = bytearray(index_file.read_bytes())
    middle = len(data) // 2
    data[middle:middle + 4096] = bytes(4096)  # codes zeroed, in place: the same size
    index_file.write_bytes(bytes(data))
    with caplog.at_level(logging.WARNING):
        again = build(tmp_path, index="ivfpq", rescore=20)
    assert top15(again) == expected
    assert f"{index_file}: its bytes no longer match the CRC-32 recorded when it was written" in caplog.text
    assert "building it again" in caplog.text


def test_the_real_minilm_index_gets_its_top_15_back_after_its_vectors_changed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """The probe's case with the real all-MiniLM-L6-v2 (skipped where it is not installed: scripts/test.sh
    installs it)."""
    from tests.retrieval.test_sentence_embedders import LOCAL_MODELS, minilm_folder

    models = minilm_folder()
    if models is None:
        pytest.skip(f"no all-MiniLM-L6-v2 in $HOPKIT_MODEL_DIR or {LOCAL_MODELS} "
                    "(../shared/tools/install-local-models.sh DEST embed)")
    monkeypatch.setenv("HOPKIT_MODEL_DIR", str(models))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    from hopkit.retrieval.embedders import load_embedder

    embedder = load_embedder("minilm")
    corpus = CORPUS[:300]

    def minilm(encoder: CountingEncoder | None = None) -> DenseRetriever:
        return load_or_build_dense(MemorySource(corpus), tmp_path, embedder, shard_size=64, index="flat",
                                   encoder=encoder, progress=False)

    expected = top15(minilm())
    (folder,) = [path for path in tmp_path.iterdir() if path.name.startswith("vectors-")]
    overwrite_rows(folder / VECTORS_FILE, 70, 190, count=300, dim=384)  # rows in shards 1 to 2 of 5
    encoder = CountingEncoder()
    with caplog.at_level(logging.WARNING):
        again = minilm(encoder)
    assert top15(again) == expected
    assert "2 of 5 shards" in caplog.text and encoder.shards == [1, 2]
