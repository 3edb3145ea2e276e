"""load_or_build: build once, save atomically under a descriptive name, load thereafter."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from hopkit.errors import RetrievalError, UnknownNameError
from hopkit.records import Paragraph, corpus_fingerprint
from hopkit.retrieval import index_folders, index_store
from hopkit.retrieval.bm25 import BM25Retriever
from hopkit.retrieval.dense import DenseRetriever, HashingEmbedder
from hopkit.retrieval.hybrid import HybridRetriever
from hopkit.retrieval.index_meta import META_FILE
from hopkit.retrieval.index_store import load_or_build
from hopkit.retrieval.vector_build import VectorBuild

pytestmark = pytest.mark.unit

PARAGRAPHS = [
    Paragraph(1, "Paris", "Paris is the capital of France."),
    Paragraph(2, "Berlin", "Berlin is the capital of Germany."),
    Paragraph(3, "Everest", "Mount Everest is the highest mountain."),
]
FINGERPRINT = corpus_fingerprint(PARAGRAPHS)


def count_builds(monkeypatch: pytest.MonkeyPatch, cls: type) -> list[int]:
    """Counts BM25 builds, or the shards a dense build encodes."""
    calls: list[int] = []
    if cls is DenseRetriever:
        original_write = VectorBuild.write

        def counting_write(self: VectorBuild, *args: object) -> None:
            calls.append(1)
            original_write(self, *args)

        monkeypatch.setattr(VectorBuild, "write", counting_write)
        return calls
    original = cls.build_from.__func__

    def counting(klass: type, *args: object, **kwargs: object) -> object:
        calls.append(1)
        return original(klass, *args, **kwargs)

    monkeypatch.setattr(cls, "build_from", classmethod(counting))
    return calls


def folders(path: Path) -> list[Path]:
    """The index folders (not the hidden lock files of dense builds)."""
    return [child for child in path.iterdir() if not child.name.startswith(".")]


def test_bm25_built_once_then_loaded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    builds = count_builds(monkeypatch, BM25Retriever)
    first = load_or_build("bm25", PARAGRAPHS, tmp_path, FINGERPRINT)
    second = load_or_build("bm25", PARAGRAPHS, tmp_path, FINGERPRINT)
    assert len(builds) == 1
    assert isinstance(second, BM25Retriever)
    assert second.retrieve("capital France", k=2) == first.retrieve("capital France", k=2)
    names = [p.name for p in tmp_path.iterdir()]
    assert len(names) == 1 and names[0].startswith(f"bm25-{FINGERPRINT[:12]}-")


def test_options_that_change_the_index_change_the_folder(tmp_path: Path) -> None:
    load_or_build("bm25", PARAGRAPHS, tmp_path, FINGERPRINT)
    load_or_build("bm25", PARAGRAPHS, tmp_path, FINGERPRINT, k1=1.2, b=0.75)  # the defaults: same index
    load_or_build("bm25", PARAGRAPHS, tmp_path, FINGERPRINT, k1=0.9, b=0.4)
    load_or_build("bm25", PARAGRAPHS, tmp_path, FINGERPRINT, method="robertson")
    assert len(list(tmp_path.iterdir())) == 3


def test_dense_with_embedder_object_or_spec(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    builds = count_builds(monkeypatch, DenseRetriever)
    first = load_or_build("dense", PARAGRAPHS, tmp_path, FINGERPRINT, embedder=HashingEmbedder(32))
    second = load_or_build("dense", PARAGRAPHS, tmp_path, FINGERPRINT, embedder="hashing:32", batch_size=2)
    assert len(builds) == 1
    assert second.retrieve("highest mountain", k=1) == first.retrieve("highest mountain", k=1)
    load_or_build("dense", PARAGRAPHS, tmp_path, FINGERPRINT, embedder="hashing:16")
    assert len(builds) == 2


def test_hybrid_reuses_the_member_indexes(tmp_path: Path) -> None:
    hybrid = load_or_build("hybrid", PARAGRAPHS, tmp_path, FINGERPRINT, embedder="hashing:32", rrf_k=10, depth=5)
    assert isinstance(hybrid, HybridRetriever)
    assert (hybrid.rrf_k, hybrid.depth) == (10, 5)
    assert [h.id for h in hybrid.retrieve("capital of Germany", k=1)] == [2]
    assert sorted(p.name.split("-")[0] for p in folders(tmp_path)) == ["bm25", "dense", "vectors"]


def test_leaves_no_temporary_folder_on_failure(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken_save(self: BM25Retriever, directory: Path) -> None:
        (Path(directory) / "partial").write_text("half")
        raise OSError("disk full")

    monkeypatch.setattr(BM25Retriever, "save", broken_save)
    with pytest.raises(OSError, match="disk full"):
        load_or_build("bm25", PARAGRAPHS, tmp_path, FINGERPRINT)
    assert list(tmp_path.iterdir()) == []


def test_concurrent_winner_is_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real_build = BM25Retriever.build.__func__

    def build_while_another_saves(klass: type, *args: object, **kwargs: object) -> BM25Retriever:
        retriever = real_build(klass, *args, **kwargs)
        # another process finishes first and saves the same index under the final name
        path = index_folders.index_path(tmp_path, "bm25", FINGERPRINT, {
            "k1": 1.2, "b": 0.75, "method": "lucene", "tokenizer": index_store.TOKENIZER_ID})
        retriever.save(path)
        return retriever

    monkeypatch.setattr(BM25Retriever, "build", classmethod(build_while_another_saves))
    retriever = load_or_build("bm25", PARAGRAPHS, tmp_path, FINGERPRINT)
    assert [h.id for h in retriever.retrieve("Paris", k=1)] == [1]
    assert len(list(tmp_path.iterdir())) == 1


def test_a_fingerprint_not_of_the_paragraphs_is_refused(tmp_path: Path) -> None:
    load_or_build("bm25", PARAGRAPHS, tmp_path, FINGERPRINT)
    with pytest.raises(RetrievalError, match="fingerprint .* given for paragraphs whose fingerprint is"):
        load_or_build("bm25", PARAGRAPHS[:2], tmp_path, FINGERPRINT)


def test_a_folder_of_other_paragraphs_under_the_same_name_is_refused(tmp_path: Path) -> None:
    load_or_build("bm25", PARAGRAPHS, tmp_path, FINGERPRINT)
    (folder,) = folders(tmp_path)
    other = corpus_fingerprint(PARAGRAPHS[:2])
    folder.rename(tmp_path / folder.name.replace(FINGERPRINT[:12], other[:12]))
    with pytest.raises(RetrievalError, match="delete .*rebuild"):
        load_or_build("bm25", PARAGRAPHS[:2], tmp_path, other)


def test_rejects_unknown_names_and_bad_fingerprint(tmp_path: Path) -> None:
    with pytest.raises(UnknownNameError, match="retriever kind 'splade'"):
        load_or_build("splade", PARAGRAPHS, tmp_path, FINGERPRINT)
    with pytest.raises(UnknownNameError, match="bm25 retriever option 'embedder'"):
        load_or_build("bm25", PARAGRAPHS, tmp_path, FINGERPRINT, embedder="hashing:8")
    with pytest.raises(RetrievalError, match="fingerprint"):
        load_or_build("bm25", PARAGRAPHS, tmp_path, "../escape")
    assert list(tmp_path.iterdir()) == []



@pytest.mark.parametrize("kind", ["bm25", "dense"])
def test_metadata_records_the_fingerprint_of_the_folder_name(tmp_path: Path, kind: str) -> None:
    options = {"embedder": "hashing:32"} if kind == "dense" else {}
    load_or_build(kind, PARAGRAPHS, tmp_path, FINGERPRINT, **options)
    (folder,) = tmp_path.glob("vectors-*" if kind == "dense" else "bm25-*")  # beside it, the dense-flat search
    assert folder.name.startswith(f"{'vectors' if kind == 'dense' else kind}-{FINGERPRINT[:12]}-")
    assert json.loads((folder / META_FILE).read_text())["fingerprint"] == FINGERPRINT


@pytest.mark.parametrize("kind", ["bm25", "dense"])
def test_an_index_serves_its_paragraphs_in_any_order(tmp_path: Path, kind: str,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The fingerprint ignores order, so the index must too: rows are kept in id order."""
    options = {"embedder": "hashing:32"} if kind == "dense" else {}
    in_memory = load_or_build(kind, PARAGRAPHS, tmp_path / "reference", FINGERPRINT, **options)
    cls = BM25Retriever if kind == "bm25" else DenseRetriever
    builds = count_builds(monkeypatch, cls)
    load_or_build(kind, PARAGRAPHS[::-1], tmp_path / "shared", FINGERPRINT, **options)
    loaded = load_or_build(kind, PARAGRAPHS, tmp_path / "shared", FINGERPRINT, **options)
    assert len(builds) == 1 and corpus_fingerprint(PARAGRAPHS[::-1]) == FINGERPRINT  # one build (one shard)
    for query in ("capital of France", "capital of Germany", "highest mountain"):
        assert loaded.retrieve(query, k=3) == in_memory.retrieve(query, k=3)


def test_an_index_of_an_older_format_is_rebuilt_beside_it(tmp_path: Path) -> None:
    identity = {"k1": 1.2, "b": 0.75, "method": "lucene", "tokenizer": index_store.TOKENIZER_ID}
    digest = hashlib.sha256(json.dumps(identity, sort_keys=True).encode("utf-8")).hexdigest()[:12]
    old = tmp_path / f"bm25-{FINGERPRINT[:12]}-{digest}"  # where format 1 saved it
    old.mkdir()
    (old / META_FILE).write_text(json.dumps({"format": 1, "kind": "bm25", "fingerprint": "older"}))
    retriever = load_or_build("bm25", PARAGRAPHS, tmp_path, FINGERPRINT)
    assert [h.id for h in retriever.retrieve("Paris", k=1)] == [1]
    assert len(list(tmp_path.iterdir())) == 2
