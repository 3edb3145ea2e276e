"""A finished BM25 index is checked against the CRC-32s recorded when it was finished: bytes changed inside
one of its files (same size) are found on the next load and the index is built again, with a warning naming
the file, never used (issue 70, "In general": the dense indexes' check, failure 6, for BM25)."""

from __future__ import annotations

import logging
import time
from pathlib import Path

import numpy as np
import pytest

from hopkit.errors import RetrievalError
from hopkit.retrieval import mapped_files
from hopkit.retrieval.bm25 import BM25Retriever
from hopkit.retrieval.index_folders import ChangedIndexFile
from hopkit.retrieval.index_meta import META_FILE
from hopkit.retrieval.index_store import load_or_build_from
from hopkit.retrieval.stored_view import ROW_IDS_FILE, MemorySource
from tests.retrieval.test_dense_integrity import CORPUS, QUERIES  # 3000 paragraphs, 20 queries

pytestmark = pytest.mark.unit


def build(folder: Path) -> BM25Retriever:
    return load_or_build_from("bm25", MemorySource(CORPUS), folder)  # type: ignore[return-value]


def top15(retriever: BM25Retriever) -> list[list[int]]:
    return [[hit.id for hit in retriever.retrieve(query, k=15)] for query in QUERIES]


def index_folder(folder: Path) -> Path:
    (found,) = [path for path in folder.iterdir() if path.name.startswith("bm25-")]
    return found


def reverse_array(path: Path) -> None:
    """The values of the ``.npy`` file at ``path`` reversed, in place: the same size, shape and header."""
    values = np.load(path)
    offset = path.stat().st_size - values.nbytes
    with open(path, "r+b") as file:
        file.seek(offset)
        file.write(np.ascontiguousarray(values[::-1]).tobytes())


@pytest.mark.parametrize("name", ["data.csc.index.npy", ROW_IDS_FILE])
def test_bytes_changed_in_a_finished_bm25_file_are_found_and_the_index_built_again(
        tmp_path: Path, caplog: pytest.LogCaptureFixture, name: str) -> None:
    expected = top15(build(tmp_path))
    path = index_folder(tmp_path) / name
    size = path.stat().st_size
    reverse_array(path)
    assert path.stat().st_size == size  # only the CRC-32 can tell
    with caplog.at_level(logging.WARNING):
        again = build(tmp_path)
    assert f"{path}: its bytes no longer match the CRC-32 recorded when the BM25 index was finished; " \
           "building the index again" in caplog.text
    assert top15(again) == expected
    fresh = top15(build(tmp_path / "fresh"))
    assert fresh == expected
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        assert top15(build(tmp_path)) == expected  # the rebuilt folder passes its check
    assert "CRC-32" not in caplog.text
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".") and p.is_dir()] == []  # nothing left


def test_a_missing_file_of_a_finished_bm25_index_rebuilds_it(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    expected = top15(build(tmp_path))
    path = index_folder(tmp_path) / "vocab.tokens.bin"
    path.unlink()
    with caplog.at_level(logging.WARNING):
        assert top15(build(tmp_path)) == expected
    assert f"{path}: cannot read this file of a finished BM25 index" in caplog.text


def test_loading_a_changed_bm25_index_directly_names_the_file(tmp_path: Path) -> None:
    build(tmp_path)
    folder = index_folder(tmp_path)
    reverse_array(folder / "indices.csc.index.npy")
    with pytest.raises(ChangedIndexFile, match="indices.csc.index.npy: its bytes no longer match") as raised:
        BM25Retriever.load(folder, CORPUS)
    assert isinstance(raised.value, RetrievalError) and "\n" not in str(raised.value)


def test_a_checked_bm25_file_is_not_read_again_until_it_changes(
        tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mapped_files, "RACY_SECONDS", 0.05)
    expected = top15(build(tmp_path))
    folder = index_folder(tmp_path)
    time.sleep(0.1)  # past the racy window of the build's last write: the next check is stamped
    build(tmp_path)
    reads: list[Path] = []
    original = mapped_files.file_crc32

    def counted(path: Path) -> int:
        reads.append(path)
        return original(path)

    monkeypatch.setattr(mapped_files, "file_crc32", counted)
    build(tmp_path)
    assert reads == []  # every file's stamp stood: none was read
    reverse_array(folder / "data.csc.index.npy")
    with caplog.at_level(logging.WARNING):
        assert top15(build(tmp_path)) == expected
    assert reads == [folder / "data.csc.index.npy"]  # only the changed file was read (the others stamped)
    assert "data.csc.index.npy: its bytes no longer match" in caplog.text


def test_the_metadata_records_every_file_of_the_index(tmp_path: Path) -> None:
    import json

    build(tmp_path)
    folder = index_folder(tmp_path)
    recorded = json.loads((folder / META_FILE).read_text(encoding="utf-8"))["file_crcs"]
    files = {path.name for path in folder.iterdir() if not path.name.startswith(".")} - {META_FILE}
    assert set(recorded) == files and {"data.csc.index.npy", ROW_IDS_FILE, "vocab.tokens.bin"} <= files
