"""Dense indexes built from a paragraph source: exact and approximate search agree, builds resume,
and a damaged or mismatched index is rebuilt, never used (issue 49)."""

from __future__ import annotations

import logging
import random
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Sequence

import numpy as np
import pytest

from hopkit.errors import RetrievalError
from hopkit.records import Paragraph
from hopkit.retrieval.ann import build_settings, chosen_kind, lists_searched
from hopkit.retrieval.dense import DenseRetriever
from hopkit.retrieval.dense_store import load_or_build_dense, vectors_folder
from hopkit.retrieval.embedders import Embedder, HashingEmbedder
from hopkit.retrieval.stored_view import MemorySource, ParagraphSource
from hopkit.retrieval.vector_build import VECTORS_FILE, Shard, local_shards

pytestmark = pytest.mark.unit

WORDS = ("river city film director mountain capital war novel singer album island bridge church football "
         "station painter poet battle king queen company school airport railway museum lake forest").split()


def paragraphs(count: int, seed: int = 3) -> list[Paragraph]:
    rng = random.Random(seed)
    return [Paragraph(10 * i + 7, f"Article {i % 300}", " ".join(rng.sample(WORDS, 6)) + f" number {i}")
            for i in range(count)]


CORPUS = paragraphs(3000)
QUERIES = [" ".join(random.Random(q).sample(WORDS, 3)) for q in range(20)]


def ids(hits: list) -> list[int]:
    return [hit.id for hit in hits]


def same_ranking(found: list, exact: list) -> bool:
    """The same scores in the same order, and the same paragraphs but among ties at the last score
    (the hashing embedder gives many paragraphs one score; exact search takes the lowest ids among
    them, an approximate index whichever of them it proposed)."""
    if [hit.score for hit in found] != [hit.score for hit in exact]:
        return False
    last = exact[-1].score if exact else None
    return [hit.id for hit in found if hit.score != last] == [hit.id for hit in exact if hit.score != last]


class CountingEncoder:
    """Encodes in this process, counting shards, and stops (as a killed build would) after ``stop_after``."""

    def __init__(self, stop_after: int | None = None) -> None:
        self.shards: list[int] = []
        self.stop_after = stop_after

    def __call__(self, source: ParagraphSource, row_ids: np.ndarray, embedder: Embedder, batch_size: int,
                 pending: Iterable[Shard]) -> Iterator[tuple[Shard, np.ndarray]]:
        for shard, rows in local_shards(source, row_ids, embedder, batch_size, pending):
            if self.stop_after is not None and len(self.shards) == self.stop_after:
                raise KeyboardInterrupt("killed")
            self.shards.append(shard.number)
            yield shard, rows


def build(folder: Path, corpus: Sequence[Paragraph] = CORPUS, encoder: CountingEncoder | None = None,
          embedder: Embedder | None = None, **options: object) -> DenseRetriever:
    return load_or_build_dense(MemorySource(corpus), folder, embedder or HashingEmbedder(64), shard_size=256,
                               encoder=encoder, progress=False, **options)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def exact(tmp_path_factory: pytest.TempPathFactory) -> DenseRetriever:
    return build(tmp_path_factory.mktemp("exact"), index="flat")


def test_the_default_index_follows_the_corpus_size() -> None:
    assert chosen_kind("auto", 200_000) == "flat" and chosen_kind("auto", 200_001) == "ivfpq"
    assert build_settings("ivfpq", 21_000_000, 768) == {"nlist": 8192, "m": 96, "nbits": 8}
    assert build_settings("ivfpq", 5_000_000, 384) == {"nlist": 4096, "m": 48, "nbits": 8}
    with pytest.raises(RetrievalError, match="unknown dense index 'annoy'"):
        chosen_kind("annoy", 10)


def test_the_search_breadth_grows_with_the_corpus_unless_set(tmp_path: Path) -> None:
    assert lists_searched(4096) == 2048 and lists_searched(8192) == 4096  # 5 and 21 million passages
    assert lists_searched(256) == 128 and lists_searched(64) == 64 and lists_searched(512) == 256 and lists_searched(4096, 300) == 300
    ivfpq, flat = build(tmp_path, index="ivfpq"), build(tmp_path, index="flat")
    assert ivfpq.rescore == 1000 and flat.rescore == 200
    assert build(tmp_path, index="ivfpq", rescore=20).rescore == 20


@pytest.mark.parametrize("kind", ["ivfpq", "hnsw"])
def test_approximate_search_with_rescoring_finds_what_exact_search_finds(
        tmp_path: Path, exact: DenseRetriever, kind: str) -> None:
    approximate = build(tmp_path, index=kind, nprobe=1000)
    assert approximate.candidates is not None
    for query in QUERIES:
        assert same_ranking(approximate.retrieve(query, k=5), exact.retrieve(query, k=5)), query
    again = build(tmp_path, index=kind, nprobe=1000)  # loaded, not rebuilt: the same answers
    assert again.retrieve(QUERIES[0], k=15) == approximate.retrieve(QUERIES[0], k=15)


def test_exclusion_and_titles_hold_under_an_approximate_index(tmp_path: Path, exact: DenseRetriever) -> None:
    approximate = build(tmp_path, index="ivfpq", rescore=20)
    best = ids(exact.retrieve(QUERIES[1], k=30))
    hits = approximate.retrieve(QUERIES[1], k=5, exclude=set(best[:25]))
    assert hits and not set(ids(hits)) & set(best[:25])
    titled = approximate.retrieve(QUERIES[1], k=50, titles={"Article 3", "Article 4"})  # scored exactly
    assert titled == exact.retrieve(QUERIES[1], k=50, titles={"Article 3", "Article 4"})
    assert {hit.paragraph.title for hit in titled} == {"Article 3", "Article 4"} and len(titled) == 20


def test_a_killed_build_resumes_at_its_first_unfinished_shard(tmp_path: Path, exact: DenseRetriever) -> None:
    with pytest.raises(KeyboardInterrupt):
        build(tmp_path, encoder=CountingEncoder(stop_after=5))
    assert not vectors_folder(tmp_path, MemorySource(CORPUS).fingerprint, "hashing:64").exists()
    resumed = CountingEncoder()
    retriever = build(tmp_path, encoder=resumed)
    assert resumed.shards == list(range(5, 12))  # 3,000 passages in shards of 256: 12, five were done
    np.testing.assert_array_equal(np.asarray(retriever.vectors), exact.vectors)
    assert retriever.retrieve(QUERIES[2], k=15) == exact.retrieve(QUERIES[2], k=15)


def test_a_finished_shard_whose_bytes_changed_is_encoded_again(tmp_path: Path, exact: DenseRetriever) -> None:
    with pytest.raises(KeyboardInterrupt):
        build(tmp_path, encoder=CountingEncoder(stop_after=3))
    (unfinished,) = [path for path in tmp_path.iterdir() if path.name.endswith(".build")]
    with open(unfinished / VECTORS_FILE, "r+b") as vectors:
        vectors.seek(-1, 2)  # the end of the file is past shard 2: first find shard 1's bytes
        header = vectors.tell() + 1 - len(CORPUS) * 64 * 2
        vectors.seek(header + 300 * 64 * 2)  # a byte of row 300, in shard 1
        vectors.write(b"\x7f")
    resumed = CountingEncoder()
    retriever = build(tmp_path, encoder=resumed)
    assert resumed.shards == [1, *range(3, 12)]
    np.testing.assert_array_equal(np.asarray(retriever.vectors), exact.vectors)


def test_a_truncated_vector_file_is_rebuilt_from_its_last_good_shard(
        tmp_path: Path, exact: DenseRetriever, caplog: pytest.LogCaptureFixture) -> None:
    build(tmp_path)
    folder = vectors_folder(tmp_path, MemorySource(CORPUS).fingerprint, "hashing:64")
    path = folder / VECTORS_FILE
    path.write_bytes(path.read_bytes()[:-(3000 - 2700) * 64 * 2])  # rows from 2,700 on are lost: in shard 10
    resumed = CountingEncoder()
    with caplog.at_level(logging.WARNING):
        retriever = build(tmp_path, encoder=resumed)
    assert "resuming its build from the last good shard" in caplog.text
    assert resumed.shards == [10, 11]
    np.testing.assert_array_equal(np.asarray(retriever.vectors), exact.vectors)


def test_a_damaged_structure_is_rebuilt(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    first = build(tmp_path, index="ivfpq")
    (structure,) = [path for path in tmp_path.iterdir() if path.name.startswith("dense-ivfpq-")]
    index_file = structure / "index.faiss"
    index_file.write_bytes(index_file.read_bytes()[:1000])
    with caplog.at_level(logging.WARNING):
        again = build(tmp_path, index="ivfpq")
    assert "cannot read the ivfpq index" in caplog.text and "building it again" in caplog.text
    assert again.retrieve(QUERIES[3], k=10) == first.retrieve(QUERIES[3], k=10)


class ResizedModel:
    """A model whose files changed under the same name: same model id, another dimension."""

    model_id = "sentence-transformers:same/name"

    def __init__(self, dim: int) -> None:
        self.inner = HashingEmbedder(dim)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return self.inner.embed(texts)


def test_vectors_of_another_dimension_are_rebuilt_with_a_line_saying_why(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    build(tmp_path, embedder=ResizedModel(32))
    with caplog.at_level(logging.WARNING):
        retriever = build(tmp_path, embedder=ResizedModel(48))
    assert "vectors of dimension 32, but 'sentence-transformers:same/name' now gives 48" in caplog.text
    assert retriever.dim == 48


class ChangingSource(MemorySource):
    """A corpus that loses a paragraph between listing its ids and reading them."""

    def batches(self, size: int, after: int | None = None) -> Iterator[list[Paragraph]]:
        for batch in super().batches(size, after):
            yield [p for p in batch if p.id != CORPUS[600].id]


def test_bad_input_is_refused_in_one_line(tmp_path: Path) -> None:
    with pytest.raises(RetrievalError, match="empty corpus"):
        load_or_build_dense(MemorySource([]), tmp_path, HashingEmbedder(8))
    with pytest.raises(RetrievalError, match="the corpus changed while its vectors were being built"):
        load_or_build_dense(ChangingSource(CORPUS), tmp_path, HashingEmbedder(8), shard_size=256)
    with pytest.raises(RetrievalError, match="batch_size must be >= 1"):
        load_or_build_dense(MemorySource(CORPUS), tmp_path, HashingEmbedder(8), batch_size=0)
    assert not [path for path in tmp_path.iterdir() if path.name.startswith("vectors-")]


@pytest.mark.parametrize("kind", ["ivfpq", "hnsw", "flat"])
def test_a_batch_searched_at_once_answers_what_each_query_alone_gets(tmp_path: Path, kind: str,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    approximate = build(tmp_path, index=kind, nprobe=4)
    assert approximate.candidates is not None
    alone = [approximate.retrieve(query, k=5, exclude={7}) for query in QUERIES]
    approximate.prepare_batch([(query, 5, 1) for query in QUERIES] + [("", 5, 0), (QUERIES[0], 0, 0)])
    assert len(approximate._batch) == len(set(QUERIES))  # a blank query or k 0 searches nothing
    with monkeypatch.context() as patched:  # every query of the batch takes its rows from the batch's one search
        patched.setattr(approximate.candidates, "nearest", lambda *_: pytest.fail("searched again"))
        assert [approximate.retrieve(query, k=5, exclude={7}) for query in QUERIES] == alone
    # A query asked for more rows than the batch searched for searches on its own.
    assert same_ranking(approximate.retrieve(QUERIES[0], k=400), approximate.retrieve(QUERIES[0], k=400))
    approximate.forget_batch()
    assert len(approximate._batch) == 0
